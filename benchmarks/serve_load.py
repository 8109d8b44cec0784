"""Load benchmark of the streaming API: N concurrent SSE clients against a real `factdebate serve` process
whose models answer after a fixed latency (the scripted backend), so every millisecond above the debate's
own latency is the service's overhead.

    .venv/bin/python benchmarks/serve_load.py --streams 200

Prints requests/s, latency percentiles and errors, compares p95 under load with one debate measured alone,
and ends with ``streams=N errors=E p95_ratio=R``. The client speaks HTTP/1.1 on raw asyncio sockets so its
own cost stays small next to the server's (both share the machine)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

KEY = "bench-key"


@dataclass
class Outcome:
    seconds: float
    events: int
    error: str | None = None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int, args: argparse.Namespace, workdir: Path) -> subprocess.Popen[bytes]:
    settings = {"llm": {"debater": f"scripted:disagree@{args.latency}", "cache": args.cache},
                "toolmad": {"agents": ["none", "none"], "rounds": args.rounds, "scoring": args.scoring}}
    service = {"rate_limit_per_minute": 0, "max_active_runs": max(1024, 2 * args.streams),
               "db_path": str(workdir / "service.sqlite")}
    (workdir / "settings.yaml").write_text(json.dumps(settings))  # JSON is valid YAML
    (workdir / "service.yaml").write_text(json.dumps(service))
    env = {**os.environ, "FACTDEBATE_API_KEYS": KEY, "FACTDEBATE_DATA_DIR": str(workdir),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = [sys.executable, "-m", "factdebate.cli.main", "serve", "--port", str(port), "--log-level", "warning",
               "--config", str(workdir / "settings.yaml"), "--service-config", str(workdir / "service.yaml")]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


async def wait_ready(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("server exited: " + (process.stderr.read().decode() if process.stderr else ""))
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /v1/health HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
            await writer.drain()
            status = await reader.readline()
            writer.close()
            if b" 200 " in status:
                return
        except OSError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError("server did not become ready")


async def one_stream(port: int, claim: str) -> Outcome:
    """POST /v1/verify/stream and read the chunked SSE body until the `result` (or `error`) event."""
    body = json.dumps({"claim": claim}).encode()
    request = (f"POST /v1/verify/stream HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {KEY}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
               ).encode() + body
    started = time.perf_counter()
    events = 0
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            return Outcome(time.perf_counter() - started, 0, status.decode().strip())
        while (await reader.readline()) not in (b"\r\n", b""):
            pass  # headers
        buffer = b""
        while True:
            size = int((await reader.readline()).strip() or b"0", 16)
            if size == 0:
                return Outcome(time.perf_counter() - started, events, "stream ended without a result")
            buffer += (await reader.readexactly(size + 2))[:-2]  # chunk data, then CRLF
            *frames, buffer = buffer.split(b"\n\n")
            for frame in frames:
                if frame.startswith(b"event: "):
                    events += 1
                    if frame.startswith(b"event: result"):
                        writer.close()
                        return Outcome(time.perf_counter() - started, events)
                    if frame.startswith(b"event: error"):
                        writer.close()
                        return Outcome(time.perf_counter() - started, events, frame.decode()[:200])
    except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
        return Outcome(time.perf_counter() - started, events, f"{type(exc).__name__}: {exc}")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def measure(port: int, args: argparse.Namespace) -> float:
    for i in range(3):  # warm-up: imports, first resources build, first connections
        await one_stream(port, f"Warm-up claim {i}.")
    alone = [await one_stream(port, f"Single claim {i} is true.") for i in range(args.single_runs)]
    failures = [o.error for o in alone if o.error]
    if failures:
        raise RuntimeError(f"single debate failed: {failures[0]}")
    single = statistics.median(o.seconds for o in alone)
    print(f"single debate alone: median {single * 1000:.1f} ms over {len(alone)} runs "
          f"({alone[0].events} events each)")

    outcomes: list[Outcome] = []
    wall = 0.0
    for wave in range(args.waves):
        started = time.perf_counter()
        outcomes += await asyncio.gather(*(one_stream(port, f"Claim {wave}-{i}: the sea is salty.")
                                           for i in range(args.streams)))
        wall += time.perf_counter() - started
    errors = [o for o in outcomes if o.error]
    ok = [o.seconds for o in outcomes if not o.error]
    p95 = percentile(ok, 0.95) if ok else float("inf")
    print(f"{args.streams} concurrent streams x {args.waves} wave(s): {len(ok)} ok, {len(errors)} errors")
    if errors:
        print(f"  first error: {errors[0].error}")
    if ok:
        print(f"  latency ms: p50 {percentile(ok, 0.5) * 1000:.1f}  p95 {p95 * 1000:.1f}  "
              f"max {max(ok) * 1000:.1f}")
    print(f"  throughput: {len(outcomes) / wall:.1f} debates/s, "
          f"{sum(o.events for o in outcomes) / wall:.0f} events/s")
    ratio = p95 / single
    print(f"  p95 / single = {ratio:.3f} (target <= 1.2)")
    print(f"streams={args.streams} errors={len(errors)} p95_ratio={ratio:.2f}")
    return ratio


async def core_baseline(args: argparse.Namespace) -> None:
    """The same debates through the library alone, without HTTP: the part of the ratio that is not the
    service's (the Python work of the debates themselves)."""
    os.environ["FACTDEBATE_DATA_DIR"] = tempfile.mkdtemp(prefix="fd-bench-core-")
    from factdebate.run.build import build_resources
    from factdebate.run.claim import run_claim
    from factdebate.settings.load import settings_from

    settings = settings_from({"llm": f"scripted:disagree@{args.latency}", "agents": ["none", "none"],
                              "rounds": args.rounds, "scoring": args.scoring, "cache": False})
    resources = build_resources(settings)

    async def timed(claim: str) -> float:
        started = time.perf_counter()
        await run_claim(claim, settings, resources, sinks=[lambda event: None])
        return time.perf_counter() - started

    await timed("Warm-up claim.")
    single = statistics.median([await timed(f"Single claim {i}.") for i in range(args.single_runs)])
    under_load = await asyncio.gather(*(timed(f"Claim {i}: the sea is salty.") for i in range(args.streams)))
    print(f"library alone (no HTTP): single {single * 1000:.1f} ms, {args.streams} at once p95 "
          f"{percentile(under_load, 0.95) * 1000:.1f} ms, ratio {percentile(under_load, 0.95) / single:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per scripted LLM call")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scoring", action="store_true",
                        help="score answers too (loads the MiniLM embedder in the server)")
    parser.add_argument("--cache", action="store_true",
                        help="keep the on-disk LLM response cache on (claims differ, so it only writes)")
    parser.add_argument("--waves", type=int, default=1)
    parser.add_argument("--single-runs", type=int, default=7)
    parser.add_argument("--core-baseline", action="store_true",
                        help="first run the same debates in-process without HTTP, for comparison")
    args = parser.parse_args()
    if args.core_baseline:
        asyncio.run(core_baseline(args))
    with tempfile.TemporaryDirectory(prefix="fd-bench-") as tmp:
        port = free_port()
        process = start_server(port, args, Path(tmp))
        try:
            asyncio.run(wait_ready(port, process))
            asyncio.run(measure(port, args))
        finally:
            process.terminate()
            process.wait(timeout=15)


if __name__ == "__main__":
    main()
