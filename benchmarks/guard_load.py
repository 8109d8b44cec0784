"""The guard past its machine's capacity, with load shedding (``guard.on_overload``) on and off.

A scripted upstream (tests/server/guard_support.py: a 6-sentence reply streamed word by word) runs in this
process; the guard runs in a process of its own (this script with ``--serve``: uvicorn, scripted checker models
answering each call after ``--latency`` seconds). Clients keep ``--concurrency`` streamed requests in flight
for ``--seconds`` (closed loop: a new one as soon as one ends), first one at a time (the uncontended figures),
then with shedding (``guard.checks_at_once`` 0: 8 per core, and ``guard.max_loop_lag_ms`` ``--max-lag-ms``: a
request is shed while the guard's event loop runs that late) and with it off (checks_at_once 100000, no lag
watched, no request ever shed). The machine's capacity, in streams, is read from the run without shedding by
Little's law: its replies per second times the uncontended reply's seconds; the load offered is
``--concurrency`` over it. Reported per run: requests answered, shed (503), p50/p99 time to first token of
the admitted ones, the admitted replies that ended with a claim unchecked at its deadline, and the guard
process's CPU milliseconds per reply answered (its user and system time over the run).

    .venv/bin/python benchmarks/guard_load.py --concurrency 64 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KEY = "bench-key-0123456789abcdef"
ANSWER = ("Paris is the capital of France. The Louvre is a museum in Paris. The Eiffel Tower is in Rome. "
          "The Seine flows through Paris. Montmartre is a hill in Paris. The Pantheon stands in Paris.")


def serve(args: argparse.Namespace) -> None:
    """The guard alone in this process (``--serve``), its checker scripted (benchmarks/guard.py's responder)."""
    import uvicorn

    from benchmarks.guard import guard_app, responder
    from factdebate.llm.scripted import ScriptedBackend

    backend = ScriptedBackend(responder(), latency=args.latency, record=False)
    app = guard_app(Path(tempfile.mkdtemp()), args.upstream, backend, KEY)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


async def one(client: httpx.AsyncClient, url: str, deadline_s: float) -> dict[str, Any]:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Tell me about Paris."}],
            "factdebate": {"tier": "fast", "method": "single", "deadline_s": deadline_s}}
    started = time.perf_counter()
    first = None
    async with client.stream("POST", f"{url}/v1/chat/completions", json=body,
                             headers={"Authorization": f"Bearer {KEY}"}) as reply:
        if reply.status_code not in (200, 503):  # a failure, never counted as a reply
            await reply.aread()
            return {"shed": False, "error": f"HTTP {reply.status_code}", "ttft": None, "seconds": 0.0,
                    "at_deadline": False}
        if reply.status_code == 503:  # as an OpenAI client does: wait the Retry-After it was given
            await reply.aread()
            seconds = time.perf_counter() - started
            await asyncio.sleep(float(reply.headers.get("Retry-After", "1")))
            return {"shed": True, "seconds": seconds}
        result: dict[str, Any] = {}
        async for line in reply.aiter_lines():
            if not line.startswith("data: {"):
                continue
            chunk = json.loads(line[6:])
            if first is None and any((c.get("delta") or {}).get("content") for c in chunk.get("choices") or []):
                first = time.perf_counter() - started
            if "factdebate" in chunk:
                result = chunk["factdebate"]
    at_deadline = "deadline" in (result.get("degraded_reason") or "") or any(
        c["status"] == "unchecked" and "deadline" in (c.get("reason") or "") for c in result.get("claims", []))
    return {"shed": False, "ttft": first, "seconds": time.perf_counter() - started, "at_deadline": at_deadline}


async def load(url: str, concurrency: int, seconds: float, deadline_s: float) -> list[dict[str, Any]]:
    done: list[dict[str, Any]] = []
    stop = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=concurrency + 4, max_keepalive_connections=concurrency + 4)
    async with httpx.AsyncClient(timeout=600, limits=limits) as client:
        async def worker() -> None:
            while time.perf_counter() < stop:
                try:
                    done.append(await one(client, url, deadline_s))
                except httpx.HTTPError as exc:
                    done.append({"shed": False, "error": type(exc).__name__, "ttft": None, "seconds": 0.0,
                                 "at_deadline": False})

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return done


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))] if ordered else float("nan")


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU seconds so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(name: str, runs: list[dict[str, Any]], seconds: float, cpu_s: float) -> dict[str, Any]:
    admitted = [r for r in runs if not r["shed"] and "error" not in r]
    ttfts = [r["ttft"] for r in admitted if r["ttft"] is not None]
    row = {"run": name, "answered": len(runs), "per_s": round(len(admitted) / seconds, 2),
           "shed": len(runs) - len(admitted), "ttft_p50_s": round(statistics.median(ttfts), 4) if ttfts else None,
           "ttft_p99_s": round(percentile(ttfts, 0.99), 4),
           "reply_p50_s": round(statistics.median([r["seconds"] for r in admitted]), 3) if admitted else None,
           "at_deadline": sum(r["at_deadline"] for r in admitted), "errors": sum("error" in r for r in runs),
           # the guard process's CPU per reply it answered (a shed one costs little; counted in the total)
           "guard_cpu_ms_per_reply": round(1000 * cpu_s / max(1, len(admitted)), 1)}
    print(json.dumps(row), flush=True)
    return row


def start_guard(args: argparse.Namespace, upstream: str, port: int, checks_at_once: int,
                max_lag_ms: float) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FACTDEBATE_GUARD__CHECKS_AT_ONCE": str(checks_at_once), "HF_HUB_OFFLINE": "1",
           "FACTDEBATE_GUARD__MAX_LOOP_LAG_MS": str(max_lag_ms)}
    process = subprocess.Popen([sys.executable, __file__, "--serve", "--port", str(port), "--upstream", upstream,
                                "--latency", str(args.latency)], env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    process.kill()
    raise RuntimeError("the guard did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--deadline", type=float, default=5.0, help="each request's deadline_s")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per checker model call")
    parser.add_argument("--token-delay", type=float, default=0.01)
    parser.add_argument("--checks-at-once", type=int, default=0, help="guard.checks_at_once of the shedding run "
                        "(0: the default, 8 per core)")
    parser.add_argument("--max-lag-ms", type=float, default=10.0, help="guard.max_loop_lag_ms of the shedding run "
                        "(0: not watched)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--upstream", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args)
        return
    from tests.server.conftest import LiveServer, free_port
    from tests.server.guard_support import Upstream, upstream_app

    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    with LiveServer(upstream_app(Upstream(answer=ANSWER, token_delay=args.token_delay))) as model:
        rows: dict[str, dict[str, Any]] = {}
        for key, name, checks_at_once, lag in (
                ("on", f"shedding on (checks_at_once {args.checks_at_once}, max_loop_lag_ms {args.max_lag_ms:g})",
                 args.checks_at_once, args.max_lag_ms),
                ("off", "shedding off (checks_at_once 100000)", 100_000, 0.0)):
            port = free_port()
            guard = start_guard(args, f"{model.url}/v1", port, checks_at_once, lag)
            try:
                url = f"http://127.0.0.1:{port}"
                asyncio.run(load(url, 1, 3, args.deadline))  # warm-up: the admission learns a lone check
                for concurrency, seconds in ((1, args.seconds / 3), (args.concurrency, args.seconds)):
                    before = cpu_seconds(guard.pid)
                    runs = asyncio.run(load(url, concurrency, seconds, args.deadline))
                    rows[f"{key} {concurrency}"] = summary(
                        f"{name}, concurrency {concurrency}", runs, seconds, cpu_seconds(guard.pid) - before)
            finally:
                guard.terminate()
                guard.wait(30)
        alone, full = rows["off 1"], rows[f"off {args.concurrency}"]
        if alone["reply_p50_s"] and full["per_s"]:
            capacity = full["per_s"] * alone["reply_p50_s"]  # streams one guard process keeps busy (Little)
            on, uncontended = rows[f"on {args.concurrency}"], rows["on 1"]
            print(json.dumps({"capacity_streams": round(capacity, 1),
                              "offered_over_capacity": round(args.concurrency / capacity, 2),
                              "admitted_ttft_p99_over_uncontended": round(on["ttft_p99_s"] /
                                                                          uncontended["ttft_p99_s"], 2),
                              "admitted_at_deadline": on["at_deadline"]}), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
