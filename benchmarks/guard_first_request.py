"""A fresh server's first guarded request against its deadline (the first plain
request with ``deadline_s: 3`` took 17.8 s while the check's clock said 3.16 s).

Each run starts ``factdebate serve`` afresh with the guard in front of the scripted upstream model
(tests/server/guard_support.py, in a process of its own: a first-token latency, then one word per
``--token-delay``), waits until ``GET /v1/health`` says ready (the warm-up, server/ops/warmup.py), and sends its
first ``POST /v1/chat/completions`` with ``factdebate: {deadline_s: 3}``, plain on one fresh start and streamed
on the next. Reported per start: seconds to ready, the request's wall time (to the answer, or to the first
token and to the last chunk), the upstream's own time for the same answer (asked directly), and the check's
own clock (``usage.seconds``). The request meets its deadline when its wall time, less the upstream's, is
within the deadline and a little HTTP.

The checker is the configured model, by default the embedded llama.cpp one (``--llm``); the search is the
built-in local index of the data folder in use (``FACTDEBATE_DATA_DIR`` or the default one), built first if
missing. The tiers' agents are ``search,search`` so that no vector index is opened (``rag`` would build one).

    .venv/bin/python benchmarks/guard_first_request.py --runs 3
    .venv/bin/python benchmarks/guard_first_request.py --runs 3 --tier fast
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ANSWER = ("Paris is the capital of France. The Louvre is a museum in Paris. The Eiffel Tower is in Rome. "
          "The Seine flows through Paris.")
QUESTION = [{"role": "user", "content": "Tell me about Paris."}]


def _wait(url: str, process: subprocess.Popen[bytes], what: str, ready: bool = False) -> float:
    """Seconds until ``url`` answers (with 200 when ``ready``)."""
    began = time.monotonic()
    while True:
        try:
            status = httpx.get(url, timeout=5).status_code
            if status == 200 or (not ready and status < 500):
                return time.monotonic() - began
        except httpx.TransportError:
            pass
        if time.monotonic() - began > 600 or process.poll() is not None:
            raise RuntimeError(f"{what} did not start (exit {process.poll()})")
        time.sleep(0.1)


def plain(url: str, options: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "messages": QUESTION}
    if options is not None:
        body["factdebate"] = options
    began = time.monotonic()
    reply = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=600)
    wall = time.monotonic() - began
    reply.raise_for_status()
    result = reply.json().get("factdebate") or {}
    return {"wall_s": wall, "first_token_s": None, "check_s": (result.get("usage") or {}).get("seconds"),
            "statuses": [c["status"] for c in result.get("claims", [])], "degraded": result.get("degraded")}


def stream(url: str, options: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "messages": QUESTION, "stream": True}
    if options is not None:
        body["factdebate"] = options
    began, first = time.monotonic(), None
    result: dict[str, Any] = {}
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=600) as reply:
        reply.raise_for_status()
        for line in reply.iter_lines():
            if not line.startswith("data: {"):
                continue
            chunk = json.loads(line[6:])
            if first is None and any((c.get("delta") or {}).get("content") for c in chunk.get("choices") or []):
                first = time.monotonic() - began
            result = chunk.get("factdebate") or result
    return {"wall_s": time.monotonic() - began, "first_token_s": first,
            "check_s": (result.get("usage") or {}).get("seconds"),
            "statuses": [c["status"] for c in result.get("claims", [])], "degraded": result.get("degraded")}


def one_start(args: argparse.Namespace, model_url: str, streamed: bool, work: Path) -> dict[str, Any]:
    from tests.server.conftest import free_port

    port = free_port()
    exe = str(Path(sys.executable).with_name("factdebate"))
    log = (work / f"serve-{port}.log").open("w")
    began = time.monotonic()
    server = subprocess.Popen([exe, "serve", "--no-auth", "--port", str(port), "--llm", args.llm, "--agents",
                               "search,search", "--no-cache", "--db", str(work / f"service-{port}.sqlite"),
                               "--guard-upstream", f"{model_url}/v1", "--log-level", "warning"],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        ready = _wait(f"{url}/v1/health", server, "factdebate serve", ready=True)
        health = httpx.get(f"{url}/v1/health", timeout=5).json()
        options: dict[str, Any] = {"deadline_s": args.deadline, **({"tier": args.tier} if args.tier else {})}
        found = stream(url, options) if streamed else plain(url, options)
        second = stream(url, options) if streamed else plain(url, options)  # warm: what the first should match
        return {"kind": "stream" if streamed else "plain", "start_to_ready_s": ready,
                "since_start_s": time.monotonic() - began, "reason": health.get("reason"), **found,
                "second": second}
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh starts of each kind (plain, stream)")
    parser.add_argument("--deadline", type=float, default=3.0)
    parser.add_argument("--tier", help="the tier the check starts at (default: the service's, guard.tier)")
    parser.add_argument("--llm", default="llama-cpp:builtin", help="the guard's models (every role)")
    parser.add_argument("--first", type=float, default=0.3, help="upstream seconds before the first token")
    parser.add_argument("--token-delay", type=float, default=0.02, help="upstream seconds between words")
    args = parser.parse_args()
    from factdebate.run.build import ensure_indexes
    from factdebate.settings.model import Settings
    from tests.server.conftest import free_port

    settings = Settings.model_validate({"methods": {"tool-mad": {"agents": ["search", "search"]}}})
    ensure_indexes(settings)  # the built-in local index, built once if this data folder lacks it
    model_port = free_port()
    model = subprocess.Popen([sys.executable, "-m", "tests.server.guard_support", "--port", str(model_port),
                              "--answer", ANSWER, "--latency", str(args.first), "--token-delay",
                              str(args.token_delay)], cwd=ROOT, stderr=subprocess.DEVNULL)
    rows = []
    try:
        model_url = f"http://127.0.0.1:{model_port}"
        _wait(f"{model_url}/docs", model, "the scripted model")
        # The upstream alone, each way (a plain answer comes whole after the first-token latency).
        direct = [stream(model_url, None) for _ in range(3)]
        upstream = {"stream": statistics.median(d["wall_s"] for d in direct),
                    "plain": statistics.median(plain(model_url, None)["wall_s"] for _ in range(3))}
        upstream_first = statistics.median(d["first_token_s"] or 0.0 for d in direct)
        print(f"upstream alone: plain answer {upstream['plain']:.2f} s; stream first token {upstream_first:.2f} s, "
              f"last chunk {upstream['stream']:.2f} s", flush=True)
        with tempfile.TemporaryDirectory() as folder:
            for run in range(args.runs):
                for streamed in (False, True):
                    row = one_start(args, model_url, streamed, Path(folder))
                    row["load"] = os.getloadavg()[0]
                    rows.append(row)
                    print(f"run {run + 1} {row['kind']:6s}: ready after {row['start_to_ready_s']:.1f} s; "
                          f"first request: {_said(row)}; second: {_said(row['second'])}; upstream alone "
                          f"{upstream[row['kind']]:.2f} s; deadline {args.deadline} s; load {row['load']:.1f}",
                          flush=True)
    finally:
        model.terminate()
        model.wait(timeout=30)
    for kind in ("plain", "stream"):
        for which, mine in (("first", [r for r in rows if r["kind"] == kind]),
                            ("second", [r["second"] for r in rows if r["kind"] == kind])):
            upstream_s = upstream[kind]
            over = [r["wall_s"] - upstream_s for r in mine]
            first = [r["first_token_s"] for r in mine if r["first_token_s"] is not None]
            print(f"{kind} {which}: median answer {statistics.median(r['wall_s'] for r in mine):.2f} s, beyond the "
                  f"upstream's {upstream_s:.2f} s {statistics.median(over):.2f} s (max {max(over):.2f})"
                  + (f", first token {statistics.median(first):.2f} s (upstream {upstream_first:.2f})" if first
                     else "")
                  + f", check's clock median {statistics.median(r['check_s'] or 0 for r in mine):.2f} s; "
                    f"deadline {args.deadline} s")


def _said(row: dict[str, Any]) -> str:
    first = f", first token {row['first_token_s']:.2f} s" if row["first_token_s"] is not None else ""
    statuses = ",".join(sorted(set(row["statuses"]))) or "none"
    return (f"answer {row['wall_s']:.2f} s{first}, check's clock {row['check_s']} s, {len(row['statuses'])} "
            f"claims ({statuses}){', degraded' if row['degraded'] else ''}")


if __name__ == "__main__":
    main()
