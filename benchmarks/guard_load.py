"""The guard past its machine's capacity, with load shedding (``guard.on_overload``) on and off.

Three processes, so that what saturates is the guard and what is timed is not the load generator's own
queueing: the guard (this script with ``--serve``: uvicorn, scripted checker models answering each call after
``--latency`` seconds), a scripted upstream (``--serve-upstream``: a bare asyncio HTTP/1.1 server sending a
6-sentence reply word by word after ``--first`` seconds, every chunk encoded once at start), and the clients
(this process: raw HTTP/1.1 on asyncio streams, benchmarks/raw_http.py, the first token found in the bytes
without parsing JSON).

Runs, each ``--seconds`` long (the one-stream ones ``--alone-seconds``, by default half of it):

1. the guard without shedding (``guard.checks_at_once`` 100000, nothing watched): one stream at a time (the
   uncontended figures), then ``--concurrency`` streams kept in flight (closed loop), which saturate it: its
   replies per second are the machine's capacity (also given in streams by Little's law: that rate times the
   uncontended reply's seconds);
2. the same guard offered ``--offered`` times that capacity, open loop (requests arrive at random, Poisson,
   whatever was answered; a shed one is not retried: a retry is one more arrival);
3. for each ``--max-cpu-share`` value, a guard with shedding (the adaptive limit on checks in flight, the default,
   with ``guard.max_cpu_share`` that value as a cap, 0 by default: none; ``guard.max_loop_lag_ms``
   ``--max-lag-ms``, ``guard.checks_at_once`` ``--checks-at-once``): one stream at a time, then the same open load.

Reported per run: requests offered per second, answered, shed (503), goodput (replies answered and checked within
their deadline, a second: their result came, not degraded, no claim cut at the deadline; over the capacity in the
summary), p50/p99 time to first token of the admitted ones, the admitted replies that ended with a claim unchecked
at its deadline, each process's share of a core over the run (its user and system time over the run's seconds),
the guard's CPU ms per reply and, for the open runs, how late the clients sent a request (p99: a pause here would
bunch arrivals up). 64 streams in flight may leave a guard with a core of its own partly idle (the
capacity line gives the guard's share of a core in that run), so each guard's goodput is also given over what the
unshed guard answered under the same open load, its core saturated. The uncontended first token is every guard's
one-stream runs together (shedding never acts on a lone stream), and each shedding run's admitted p99 is given
over its p99, and over the p99 of the same guard's one-stream run.

    .venv/bin/python benchmarks/guard_load.py --seconds 20 --first 0.3 --guard-cores 1 --max-cpu-share 0 0.5

``--workers 1 2`` runs all of that once per number of guard processes (``factdebate serve --workers N``: uvicorn's
workers, one state database shared by them, ``shared_state`` on; 1 is one process, as ``serve`` without the flag),
each against its own capacity, and ends with the capacity of each over one process's.

``--guard-cores N`` pins the guard's processes to N cores and the clients and the upstream to the others, so
that the guard has cores of its own, as it has in production, where its clients run elsewhere: unpinned on two
cores, the clients' work for twice the capacity (the shed requests' too) takes the guard's CPU in the open runs
but less of it in the capacity run. The guard's adaptive limit reads the cores it may use (its floor is 8 checks
for each).

``--curve N ...`` then runs the unshed guard with each of those numbers of streams in flight and prints what it
answers and its p99 first token over a lone stream's: the throughput a latency goal leaves, and how much more
streams buy at what latency. ``--settle S`` offers each open load S seconds before the ``--seconds`` that are
measured, as a guard that serves for hours meets an overload already past the seconds its limit takes to grow
from its floor; the whole run's goodput and p99 are printed beside the measured ones.

``--checker-slots N`` has the checker answer N calls at once per guard process, the rest waiting their turn, as a
model server with N slots does (0, the default: any number). With ``--latency 1`` and few slots the open load
(twice the unshed guard's replies answered with 64 streams) is many times what the checker answers within a
deadline: what the admission lets in must still be checked within it. The requests' deadline is
the shedding guards' own (``guard.deadline_s``), so their checker's limit learns from its misses; the unshed guard's
is longer, so its checker's limit learns nothing (a deadline shorter than the operator's is the caller's choice).

``--flood`` then runs the default guard with one key offering ``--offered`` times the capacity while a second key
keeps ``--flood-light`` streams in flight beside it, and reports what each key had admitted and shed.

``--first`` (default 0: at once) is the upstream's time to its first token. At 0 a first token's time is the
guard's own; a served model's 0.1-1 s is part of what a client reads (benchmarks/guard_vs_litellm.py's upstream
waits 0.3 s), and the ratios are then the client's.

``--floor`` runs benchmarks/relay_floor.py (a bare asyncio relay making 12 checker calls a reply over HTTP to a
bare checker answering after ``--latency``; no framework, no check logic, no shedding) in place of the guards: one
stream at a time, ``--concurrency`` streams (its CPU per reply busy), then open loads of each ``--max-cpu-share``
value times what a whole core would serve at that CPU per reply: the floor at about that share of a core, as a
guard shedding at that share keeps itself. Its p99 over its one-stream p99
says what a single event loop in Python keeps at that load, whatever the guard's own code does.

``--variant NAME:ATTR=VALUE,...`` adds a default guard per variant with settings of server/ops/adaptive.py
changed in its process (``unpaced:PACE=0``; ``fixed40:FLOOR_PER_CORE=20,CEILING=40`` pins the limit at 40 on two
cores; a dotted name sets another module's), so that admission rules compare within one run.
``FACTDEBATE_BENCH_LIMIT_TRACE=/tmp/trace`` has each guard write every interval of its adaptive limit (the loop's
mean lateness, the checks running, the limit, the process's CPU seconds) to ``/tmp/trace.PID.jsonl``.

``FACTDEBATE_BENCH_LOOP_WATCH=/tmp/watch`` times every callback on each guard's event loop
(benchmarks/loop_watch.py; ``FACTDEBATE_BENCH_LOOP_WATCH_MS``, default 5: the callbacks whose stacks are
sampled) and writes ``/tmp/watch.PORT.json`` when that guard stops. It costs the guard CPU (a SIGALRM every
0.5 ms), so its runs' first-token figures are not the plain runs'.

``FACTDEBATE_BENCH_CPU_SAMPLES=/tmp/samples`` has each guard sample its own stacks in CPU time
(benchmarks/cpu_samples.py) and write ``/tmp/samples.PORT`` (folded stacks) when it stops. Each guard is served
by ``server/ops/workers.serve_app``, as ``factdebate serve`` serves it.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.raw_http import Pool
from benchmarks.results_log import add_record_flag, record

KEY = "bench-key-0123456789abcdef"
LIGHT_KEY = "bench-light-key-0123456789"  # --flood: the key that sends a few streams beside the flood
ANSWER = ("Paris is the capital of France. The Louvre is a museum in Paris. The Eiffel Tower is in Rome. "
          "The Seine flows through Paris. Montmartre is a hill in Paris. The Pantheon stands in Paris.")
WORKER_ENV = "FACTDEBATE_BENCH_GUARD_WORKER"  # --serve --workers N: what each worker builds its guard from
TARGET_ENV = "FACTDEBATE_BENCH_TARGET_S"  # --target-ms: the adaptive limit's target in the guard's process
VARIANT_ENV = "FACTDEBATE_BENCH_ADAPTIVE"  # --variant: server/ops/adaptive.py's settings in the guard's process
CPUS_ENV = "FACTDEBATE_BENCH_CPUS"  # --guard-cores: the cores the run may use, before any was pinned
TRACE_ENV = "FACTDEBATE_BENCH_LIMIT_TRACE"  # a file: each interval's lateness, checks running and limit go there
FIRST_TOKEN = re.compile(rb'"content": ?"[^"]')  # a chunk that carries text (the role chunk's is "")


def serve(args: argparse.Namespace) -> None:
    """The guard alone in this process (``--serve``), its checker scripted (benchmarks/guard.py's responder)."""
    pin(args.guard_cores, guard=True)  # before the adaptive limit reads the cores it may use
    import uvicorn

    from benchmarks.guard import guard_app
    from factdebate.server.ops.workers import serve_app

    set_target()
    watch = os.environ.get("FACTDEBATE_BENCH_LOOP_WATCH")  # a file: the loop's long callbacks go there
    if watch:
        from benchmarks import loop_watch

        loop_watch.install(Path(f"{watch}.{args.port}.json"),
                           float(os.environ.get("FACTDEBATE_BENCH_LOOP_WATCH_MS", "5")))
    if args.workers[0] > 1:  # uvicorn's workers, as serve --workers N runs them, each building worker_app
        os.environ[WORKER_ENV] = json.dumps({"upstream": args.upstream, "latency": args.latency,
                                             "slots": args.checker_slots, "work": tempfile.mkdtemp()})
        uvicorn.run("benchmarks.guard_load:worker_app", factory=True, workers=args.workers[0], host="127.0.0.1",
                    port=args.port, log_level="warning")
        return
    app = guard_app(Path(tempfile.mkdtemp()), args.upstream, checker(args.latency, args.checker_slots), KEY, LIGHT_KEY)
    samples = os.environ.get("FACTDEBATE_BENCH_CPU_SAMPLES")  # benchmarks/cpu_samples.py: where the CPU goes
    if not samples:
        serve_app(app, "127.0.0.1", args.port, "warning", 5)  # as `factdebate serve` serves it
        return
    from benchmarks.cpu_samples import Sampler

    # uvicorn raises the SIGTERM it caught again once it has stopped: an exit, so the samples are written
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sampler = Sampler()
    sampler.start()
    try:
        serve_app(app, "127.0.0.1", args.port, "warning", 5)
    finally:
        sampler.stop(Path(f"{samples}.{args.port}"))


def pin(guard_cores: int, guard: bool) -> None:
    """``--guard-cores N``: the guard's processes on the first N cores this process may use, the clients and the
    upstream on the others, so that on a machine of its own only the guard's cores are what saturates."""
    if not guard_cores or not hasattr(os, "sched_setaffinity"):
        return
    # the guard's process starts pinned as its parent, the clients, were: the cores come from before that
    given = os.environ.setdefault(CPUS_ENV, ",".join(map(str, sorted(os.sched_getaffinity(0)))))
    cores = [int(core) for core in given.split(",")]
    if len(cores) <= guard_cores:
        raise SystemExit(f"--guard-cores {guard_cores}: this process may use only {len(cores)} cores")
    os.sched_setaffinity(0, cores[:guard_cores] if guard else cores[guard_cores:])


def set_target() -> None:
    """``--target-ms`` and ``--variant``: the adaptive limit's settings in this guard process (each of uvicorn's
    workers too); ``FACTDEBATE_BENCH_LIMIT_TRACE=/tmp/trace`` writes each interval's step to
    ``/tmp/trace.PID.jsonl``."""
    from factdebate.server.ops import adaptive

    if os.environ.get(TARGET_ENV):
        adaptive.TARGET_S = float(os.environ[TARGET_ENV])
    for name, value in json.loads(os.environ.get(VARIANT_ENV) or "{}").items():
        if name == "switchinterval":  # the interpreter's: how long a thread holds the GIL while another waits
            sys.setswitchinterval(float(value))
            continue
        if name == "path":  # a folder of packages first on the guard's path: uvloop and httptools, which uvicorn
            sys.path.insert(0, value)  # picks when they import
            continue
        module: Any = adaptive
        if "." in name:  # another module's setting: factdebate.server.guard.openai_chat.stream.JOINED=0
            path, _, name = name.rpartition(".")
            module = importlib.import_module(path)
        if not hasattr(module, name):
            raise SystemExit(f"--variant: {module.__name__} has no {name}")
        kind = type(getattr(module, name))
        setattr(module, name, bool(int(value)) if kind is bool else kind(value))
    if trace := os.environ.get(TRACE_ENV):
        out = open(f"{trace}.{os.getpid()}.jsonl", "a", buffering=1)  # open while the guard serves
        observe = adaptive.AdaptiveLimit.observe

        def traced(self: Any, late_s: float, running: int) -> None:
            observe(self, late_s, running)
            out.write(json.dumps({"t": round(time.monotonic(), 3), "late_ms": round(1000 * late_s, 2),
                                  "running": running, "limit": round(self.limit, 1),
                                  "cpu": round(time.process_time(), 3)}) + "\n")

        adaptive.AdaptiveLimit.observe = traced  # type: ignore[method-assign]


def variants(given: list[str]) -> list[tuple[str, dict[str, str]]]:
    """``--variant NAME:ATTR=VALUE,ATTR=VALUE``: a name and the settings of server/ops/adaptive.py it sets."""
    out = []
    for text in given:
        name, _, settings = text.partition(":")
        out.append((name, dict(pair.split("=", 1) for pair in settings.split(",") if pair)))
    return out


def checker(latency: float, slots: int) -> Any:
    """The scripted checker (benchmarks/guard.py's responder), each call ``latency`` seconds; ``slots`` (0: any
    number) calls at once, the rest waiting their turn, as a model server with that many slots answers: in the
    queue a model server's calls wait in (llm/in_flight.py), which the guard's admission reads."""
    from benchmarks.guard import responder
    from factdebate.llm import in_flight
    from factdebate.llm.base import Completion, GenParams, Message
    from factdebate.llm.scripted import ScriptedBackend

    class Slotted(ScriptedBackend):
        async def complete(self, messages: list[Message], params: GenParams) -> Completion:
            async with in_flight.slot("scripted-checker", slots):
                return await super().complete(messages, params)

    return (Slotted if slots else ScriptedBackend)(responder(), latency=latency, record=False)


def worker_app() -> Any:
    """One worker's guard (``--serve --workers N``): the scripted checker, and the state database all the workers
    share with ``shared_state`` on, as ``serve --workers N`` sets it (the cap on checks in progress is then the
    service's, each check's slot a row of that database)."""
    from factdebate.server.app import create_app
    from tests.server.conftest import PLAIN, offline_build

    given = json.loads(os.environ[WORKER_ENV])
    set_target()
    backend = checker(given["latency"], given["slots"])
    os.environ["FACTDEBATE_GUARD__UPSTREAM"] = given["upstream"]
    return create_app(api_keys=[KEY, LIGHT_KEY], defaults=PLAIN, db_path=Path(given["work"]) / "service.sqlite",
                      rate_limit_per_minute=0, claims_per_minute=0, shared_state=True,
                      build=lambda settings: offline_build(settings, backend))


def upstream_chunks() -> list[bytes]:
    """The streamed reply's chunks, HTTP/1.1 chunked framing included, encoded once."""
    head = {"id": "chatcmpl-scripted", "created": int(time.time()), "model": "m",
            "object": "chat.completion.chunk"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        data = f"data: {json.dumps({**head, 'choices': [{'index': 0, 'delta': delta, 'finish_reason': finish}]})}" \
               "\n\n".encode()
        return f"{len(data):x}\r\n".encode() + data + b"\r\n"

    words = re.findall(r"\S+\s*", ANSWER)
    done = b"data: [DONE]\n\n"
    return [chunk({"role": "assistant", "content": ""}), *(chunk({"content": word}) for word in words),
            chunk({}, "stop"), f"{len(done):x}\r\n".encode() + done + b"\r\n0\r\n\r\n"]


def serve_upstream(args: argparse.Namespace) -> None:
    """The scripted upstream (``--serve-upstream``): after ``--first`` seconds, streams ANSWER word by word,
    ``--token-delay`` apart; a request not streamed gets it whole."""
    chunks = upstream_chunks()
    whole = json.dumps({"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": "m",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 40, "total_tokens": 50}}).encode()
    plain = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (
        len(whole), whole)
    stream_head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"

    async def respond(body: bytes, writer: asyncio.StreamWriter) -> None:
        if args.first:  # a model's time to its first token (its prompt read), before any byte of the answer
            await asyncio.sleep(args.first)
        if not re.search(rb'"stream": ?true', body):
            writer.write(plain)
            return
        writer.write(stream_head + chunks[0])
        for number, data in enumerate(chunks[1:]):
            if number and number < len(chunks) - 3:
                await asyncio.sleep(args.token_delay)
            writer.write(data)
        await writer.drain()

    bare_server(args.port, respond)


def bare_server(port: int, respond: Callable[[bytes, asyncio.StreamWriter], Awaitable[None]]) -> None:
    """A bare asyncio HTTP/1.1 server on loopback, connections kept: each request's body goes to ``respond``,
    which writes the whole answer."""
    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
                await respond(await reader.readexactly(length), writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(connection, "127.0.0.1", port, backlog=4096)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


BODY = json.dumps({"model": "m", "stream": True, "messages": [{"role": "user", "content": "Tell me about Paris."}],
                   "factdebate": {"tier": "fast", "method": "single", "deadline_s": 0}}).encode()


async def one(pool: Pool, body: bytes, ended: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """One streamed request: shed (503), or its time to first token, its seconds and whether a claim was left
    unchecked at its deadline."""
    started = time.perf_counter()
    reply = await pool.post("/v1/chat/completions", body)
    try:
        if reply.status != 200:
            await reply.read()
            if reply.status == 503:
                return {"shed": True, "seconds": time.perf_counter() - started,
                        "retry_after": float(reply.headers.get("retry-after", "1"))}
            return {"shed": False, "error": f"HTTP {reply.status}"}
        first = None
        tail = b""
        async for data in reply.chunks():
            if first is None and FIRST_TOKEN.search(data):
                first = time.perf_counter() - started
            tail = (tail + data)[-65536:]  # the last event holds the check (its "factdebate" part)
        seconds = time.perf_counter() - started
    finally:
        reply.close()
    result: dict[str, Any] = {}
    for line in tail.split(b"\n"):
        if line.startswith(b"data: {") and b'"factdebate"' in line:
            result = json.loads(line[6:]).get("factdebate") or {}
    at_deadline = bool(result.get("deadline_missed"))  # admitted, not checked within its deadline
    # Goodput counts a reply answered and checked within its deadline: its result came, no claim was cut.
    return {"shed": False, "ttft": first, "seconds": seconds, "at_deadline": at_deadline,
            "good": bool(result) and not at_deadline and not result.get("degraded"),
            "calls": (result.get("usage") or {}).get("model_calls", 0)}


def request_body(deadline_s: float) -> bytes:
    return BODY.replace(b'"deadline_s": 0', f'"deadline_s": {deadline_s}'.encode())


async def closed(url: str, concurrency: int, seconds: float, deadline_s: float, key: str = KEY
                 ) -> list[dict[str, Any]]:
    """``concurrency`` streams kept in flight for ``seconds`` (a 503 waits its Retry-After, as an OpenAI client
    does)."""
    done: list[dict[str, Any]] = []
    stop = time.perf_counter() + seconds
    pool = Pool(url, {"Authorization": f"Bearer {key}"}, timeout=600, keep=concurrency + 4)
    body = request_body(deadline_s)

    async def worker() -> None:
        while time.perf_counter() < stop:
            try:
                run = await one(pool, body)
            except (OSError, TimeoutError) as exc:
                run = {"shed": False, "error": type(exc).__name__}
            done.append(run)
            if run.get("shed"):
                await asyncio.sleep(run["retry_after"])

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    await pool.aclose()
    return done


async def open_loop(url: str, rate: float, seconds: float, deadline_s: float, settle_s: float = 0.0,
                    settled: Callable[[], None] = lambda: None) -> list[dict[str, Any]]:
    """Requests arriving at ``rate`` a second (Poisson) for ``settle_s`` and then ``seconds`` more, whatever was
    answered; all awaited, each with its arrival's second (``at``); ``settled`` is called as the measured
    seconds begin."""
    done: list[dict[str, Any]] = []
    pool = Pool(url, {"Authorization": f"Bearer {KEY}"}, timeout=600, keep=4096)
    body = request_body(deadline_s)
    draw = random.Random(59)

    async def request(at: float, late_s: float) -> None:
        try:
            done.append({**await one(pool, body), "at": at, "late_s": late_s})
        except (OSError, TimeoutError) as exc:
            done.append({"shed": False, "error": type(exc).__name__, "at": at, "late_s": late_s})

    tasks = []
    start = time.perf_counter()
    due = start
    while True:
        due += draw.expovariate(rate)
        if due - start >= settle_s + seconds:
            break
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        if settle_s and due - start >= settle_s:
            settled()
            settle_s = 0.0
            start = due  # arrivals from here are the measured ones
        # how late this process sent it: arrivals that bunch up behind a pause of the clients are not Poisson
        late_s = time.perf_counter() - due
        tasks.append(asyncio.create_task(request(due - start if not settle_s else -1.0, late_s)))
    await asyncio.gather(*tasks)
    await pool.aclose()
    return done


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))] if ordered else float("nan")


def cpu_seconds(pid: int) -> float:
    """The user and system CPU seconds so far of the process and of its children running now (/proc/PID/stat:
    a guard's uvicorn workers are its children)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # a process that ended meanwhile
            continue
        if stat.parent.name == str(pid) or fields[1] == str(pid):  # fields[1]: its parent
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


class Cpu:
    """Each process's CPU seconds over one run: the one served (``served``: the guard, or the floor's relay), the
    upstream, and these clients."""

    def __init__(self, guard: int, upstream: int, served: str = "guard") -> None:
        self.served = served
        self.pids = {served: guard, "upstream": upstream}
        self.before = self._now()
        self.started = time.perf_counter()

    def _now(self) -> dict[str, float]:
        return {**{name: cpu_seconds(pid) for name, pid in self.pids.items()}, "clients": time.process_time()}

    def shares(self) -> dict[str, float]:
        wall = time.perf_counter() - self.started
        now = self._now()
        return {name: (now[name] - self.before[name]) / wall for name in now}


def summary(name: str, runs: list[dict[str, Any]], seconds: float, cpu: Cpu) -> dict[str, Any]:
    shares = cpu.shares()
    admitted = [r for r in runs if not r["shed"] and "error" not in r]
    ttfts = [r["ttft"] for r in admitted if r["ttft"] is not None]
    served_cpu_s = shares[cpu.served] * (time.perf_counter() - cpu.started)
    row = {"run": name, "offered_per_s": round(len(runs) / seconds, 2), "answered": len(runs),
           "per_s": round(len(admitted) / seconds, 2), "shed": sum(bool(r["shed"]) for r in runs),
           "ttft_p50_s": round(statistics.median(ttfts), 4) if ttfts else None,
           "ttft_p99_s": round(percentile(ttfts, 0.99), 4),
           "reply_p50_s": round(statistics.median([r["seconds"] for r in admitted]), 3) if admitted else None,
           "checker_calls_p50": statistics.median([r["calls"] for r in admitted]) if admitted else None,
           "at_deadline": sum(r["at_deadline"] for r in admitted), "errors": sum("error" in r for r in runs),
           "goodput_per_s": round(sum(r["good"] for r in admitted) / seconds, 2),
           **({"sent_late_p99_ms": round(1000 * percentile([r["late_s"] for r in runs if "late_s" in r], 0.99), 1)}
              if any("late_s" in r for r in runs) else {}),
           "cpu_share": {name: round(share, 2) for name, share in shares.items()},
           # the served process's CPU per reply it answered (a shed one costs little; counted in the total)
           f"{cpu.served}_cpu_ms_per_reply": round(1000 * served_cpu_s / max(1, len(admitted)), 1)}
    print(json.dumps(row), flush=True)
    return row


def wait_ready(process: subprocess.Popen[bytes], port: int, what: str) -> None:
    import socket

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the {what} ended at its start")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"the {what} did not start")


def start_guard(args: argparse.Namespace, upstream: str, port: int,
                max_cpu_share: float | None, workers: int = 1, target_ms: float = 0.0,
                variant: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """The guard's process (``workers`` processes under it past 1); ``max_cpu_share`` None: shedding off;
    ``target_ms`` (0: the shipped one) the loop's lateness the adaptive limit holds (``--target-ms``);
    ``variant`` server/ops/adaptive.py's settings (``--variant``)."""
    shedding = max_cpu_share is not None
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "FACTDEBATE_GUARD__CHECKS_AT_ONCE": str(args.checks_at_once if shedding else 100_000),
           "FACTDEBATE_GUARD__MAX_LOOP_LAG_MS": str(args.max_lag_ms if shedding else 0),
           "FACTDEBATE_GUARD__MAX_CPU_SHARE": str(max_cpu_share or 0)}
    if shedding:  # the requests' deadline the operator's, so the checker's limit learns from their misses
        env["FACTDEBATE_GUARD__DEADLINE_S"] = str(args.deadline)
    if target_ms:
        env[TARGET_ENV] = str(target_ms / 1000)
    if variant:
        env[VARIANT_ENV] = json.dumps(variant)
    process = subprocess.Popen([sys.executable, __file__, "--serve", "--port", str(port), "--upstream", upstream,
                                "--latency", str(args.latency), "--workers", str(workers),
                                "--checker-slots", str(args.checker_slots), "--guard-cores", str(args.guard_cores)],
                               env=env)
    wait_ready(process, port, "guard")
    return process


def serve_checker(args: argparse.Namespace) -> None:
    """The floor's checker (``--serve-checker``): a bare asyncio server answering each chat completion after
    ``--latency`` seconds with an answer encoded once (an extraction's claim list when the request's schema asks
    for claims, else a label), so that at the floor's loads the checker is not what runs out of CPU."""
    def answer(content: dict[str, Any]) -> bytes:
        body = json.dumps({"id": "chk", "object": "chat.completion", "created": 0, "model": "checker",
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": json.dumps(content)}}],
                           "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}).encode()
        return b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (
            len(body), body)

    claims = answer({"claims": ["Paris is the capital of France."]})
    label = answer({"label": "SUPPORTS", "passage": 1, "quote": "Paris is the capital of France."})

    async def respond(body: bytes, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(args.latency)
        writer.write(claims if b'"claims"' in body else label)

    bare_server(args.port, respond)


def floor_runs(args: argparse.Namespace, upstream: subprocess.Popen[bytes], upstream_url: str) -> None:
    """``--floor``: the bare relay alone, at its capacity, and at each share of that capacity (open loop)."""
    from tests.server.conftest import free_port

    root = Path(__file__).resolve().parents[1]
    checker_port, port = free_port(), free_port()
    checker = subprocess.Popen([sys.executable, __file__, "--serve-checker", "--port", str(checker_port),
                                "--latency", str(args.latency)])
    floor: subprocess.Popen[bytes] | None = None
    try:
        wait_ready(checker, checker_port, "checker")
        checker_url = f"http://127.0.0.1:{checker_port}/v1"
        floor = subprocess.Popen([sys.executable, str(root / "benchmarks" / "relay_floor.py"), "--port", str(port),
                                  "--upstream", upstream_url, "--checker", checker_url])
        wait_ready(floor, port, "floor")
        url = f"http://127.0.0.1:{port}"
        asyncio.run(closed(url, 1, 3, args.deadline))  # warm-up: connections
        cpu = Cpu(floor.pid, upstream.pid, "floor")
        alone_s = args.alone_seconds or args.seconds / 2
        alone = summary("floor, 1 stream", asyncio.run(closed(url, 1, alone_s, args.deadline)), alone_s, cpu)
        cpu = Cpu(floor.pid, upstream.pid, "floor")
        busy = summary(f"floor, closed {args.concurrency} streams",
                       asyncio.run(closed(url, args.concurrency, args.seconds, args.deadline)), args.seconds, cpu)
        # The floor's CPU capacity (replies a second a whole core would give, at the busy run's CPU per reply):
        # the closed streams alone do not saturate it.
        capacity = 1000 / busy["floor_cpu_ms_per_reply"]
        for share in args.max_cpu_share:
            cpu = Cpu(floor.pid, upstream.pid, "floor")
            checker_before, started = cpu_seconds(checker.pid), time.perf_counter()
            row = summary(f"floor, open {share:g} of a core's capacity ({share * capacity:.1f}/s)",
                          asyncio.run(open_loop(url, share * capacity, args.seconds, args.deadline)), args.seconds,
                          cpu)
            print(json.dumps({"floor_load": share, "capacity_per_s": round(capacity, 1),
                              "floor_cpu_share": row["cpu_share"]["floor"],
                              "checker_cpu_share": round((cpu_seconds(checker.pid) - checker_before)
                                                         / (time.perf_counter() - started), 2),
                              "ttft_p99_over_one_stream_p99": round(row["ttft_p99_s"] / alone["ttft_p99_s"], 2),
                              "one_stream_p50_p99_s": [alone["ttft_p50_s"], alone["ttft_p99_s"]]}), flush=True)
    finally:
        for process in (floor, checker):
            if process is not None:
                process.terminate()
                process.wait(30)


def flood_run(args: argparse.Namespace, upstream: subprocess.Popen[bytes], upstream_url: str,
              capacity_per_s: float) -> None:
    """``--flood``: the default guard offered ``--offered`` times the capacity by one key while a second key keeps
    ``--flood-light`` streams in flight (back to back, a 503 waiting its Retry-After): the light key's requests are
    admitted while the flood's are shed (max-min fair admission)."""
    from tests.server.conftest import free_port

    port = free_port()
    guard = start_guard(args, upstream_url, port, 0.0)
    url = f"http://127.0.0.1:{port}"
    rate = args.offered * capacity_per_s

    async def both() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        flood, light = await asyncio.gather(open_loop(url, rate, args.seconds, args.deadline),
                                            closed(url, args.flood_light, args.seconds, args.deadline, LIGHT_KEY))
        return flood, light

    try:
        asyncio.run(closed(url, 1, 3, args.deadline))  # warm-up
        cpu = Cpu(guard.pid, upstream.pid)
        flood, light = asyncio.run(both())
        flooding = summary(f"default guard, one key flooding at {args.offered:g} x capacity ({rate:.1f}/s)", flood,
                           args.seconds, cpu)
        light_row = summary(f"default guard, a light key's {args.flood_light} streams beside it", light,
                            args.seconds, cpu)
        print(json.dumps({"flood_shed_share": round(flooding["shed"] / max(1, flooding["answered"]), 2),
                          "light_answered": light_row["answered"], "light_shed": light_row["shed"],
                          "light_goodput_per_s": light_row["goodput_per_s"],
                          "light_ttft_p99_s": light_row["ttft_p99_s"]}), flush=True)
    finally:
        guard.terminate()
        guard.wait(30)


def capacity_runs(args: argparse.Namespace, url: str, guard: int, upstream: int, name: str,
                  rows: dict[str, dict[str, Any]]) -> float:
    """The unshed guard's closed runs: ``--concurrency`` streams (the capacity, ``rows``' ``off closed``), then
    one run for each ``--curve`` number of streams (``off closed N``), each printed with its p99 first token over
    the one-stream run's just before: what more streams answer, and at what latency. The capacity, replies a
    second."""
    lone_p99 = rows["off 1"]["ttft_p99_s"]
    for streams in [args.concurrency, *args.curve]:
        cpu = Cpu(guard, upstream)
        row = summary(f"{name}, closed {streams} streams",
                      asyncio.run(closed(url, streams, args.seconds, args.deadline)), args.seconds, cpu)
        rows["off closed" if streams == args.concurrency else f"off closed {streams}"] = row
        print(json.dumps({"streams": streams, "per_s": row["per_s"],
                          "p99_over_one_stream": round(row["ttft_p99_s"] / lone_p99, 2),
                          "guard_cpu_share": row["cpu_share"]["guard"]}), flush=True)
    return float(rows["off closed"]["per_s"])


def guards(args: argparse.Namespace, upstream: subprocess.Popen[bytes], upstream_port: int, workers: int,
           figures: dict[str, float]) -> float:
    """The runs of the docstring with ``workers`` guard processes (``figures`` takes what --record keeps, named
    for the number of processes past the first asked for); the capacity they measured, replies a second."""
    from tests.server.conftest import free_port

    rows: dict[str, dict[str, Any]] = {}
    alone_ttfts: list[float] = []  # every guard's one-stream runs: shedding never acts on a lone stream
    capacity_per_s = 0.0
    # None: shedding off, first (it measures the capacity); then each share; then the default at each --target-ms;
    # then each --variant
    runs: list[tuple[float | None, float, str, dict[str, str]]] = [
        (None, 0.0, "", {}), *((share, 0.0, "", {}) for share in args.max_cpu_share),
        *((0.0, ms, "", {}) for ms in args.target_ms), *((0.0, 0.0, name, sets) for name, sets in args.variant)]
    for share, target_ms, variant, sets in runs:
        port = free_port()
        guard = start_guard(args, f"http://127.0.0.1:{upstream_port}/v1", port, share, workers, target_ms, sets)
        url = f"http://127.0.0.1:{port}"
        key = ("off" if share is None else variant if variant else f"target{target_ms:g}ms" if target_ms
               else "default" if share == 0 else f"{share:g}")
        target = (f", the loop's target {target_ms:g} ms" if target_ms else
                  f", {', '.join(f'{k} {v}' for k, v in sets.items())}" if sets else "")
        name = (f"shedding on (the adaptive limit{target}, max_cpu_share {share:g}, max_loop_lag_ms "
                f"{args.max_lag_ms:g}, checks_at_once {args.checks_at_once})" if share is not None
                else "shedding off (checks_at_once 100000, which lifts the adaptive limit's floor past any "
                "load; max_active_runs 512 still refuses past it)") + f", {workers} guard process(es)"
        try:
            asyncio.run(closed(url, workers, 3, args.deadline))  # warm-up: each worker learns a lone check
            cpu = Cpu(guard.pid, upstream.pid)
            alone_s = args.alone_seconds or args.seconds / 2
            replies = asyncio.run(closed(url, 1, alone_s, args.deadline))
            alone_ttfts += [r["ttft"] for r in replies if r.get("ttft") is not None]
            rows[f"{key} 1"] = summary(f"{name}, 1 stream", replies, alone_s, cpu)
            if share is None:
                capacity_per_s = capacity_runs(args, url, guard.pid, upstream.pid, name, rows)
            rate = args.offered * capacity_per_s
            cpus = [Cpu(guard.pid, upstream.pid)]
            arrived = asyncio.run(open_loop(url, rate, args.seconds, args.deadline, args.settle,
                                            lambda cpus=cpus, pid=guard.pid: cpus.append(Cpu(pid, upstream.pid))))
            if args.settle:  # the whole run too, its first seconds included, where the limit grows from its floor
                rows[f"{key} whole"] = summary(f"{name}, open, its first {args.settle:g} s too", arrived,
                                               args.settle + args.seconds, cpus[0])
            rows[f"{key} open"] = summary(f"{name}, open {args.offered:g} x capacity ({rate:.1f}/s)"
                                          + (f", after its first {args.settle:g} s" if args.settle else ""),
                                          [r for r in arrived if r["at"] >= 0], args.seconds, cpus[-1])
        finally:
            guard.terminate()
            guard.wait(30)
    uncontended = percentile(alone_ttfts, 0.99)
    saturated = max(row["per_s"] for key, row in rows.items() if key.startswith("off c"))
    print(json.dumps({"workers": workers, "capacity_per_s": capacity_per_s,
                      "capacity_streams": round(capacity_per_s * (rows["off 1"]["reply_p50_s"] or 0), 1),
                      "uncontended_ttft_p50_p99_s": [round(statistics.median(alone_ttfts), 4), round(uncontended, 4)],
                      "uncontended_samples": len(alone_ttfts),
                      # below about 0.95 the streams, not the guard's CPU, bound the capacity run
                      "capacity_guard_cpu_share": rows["off closed"]["cpu_share"]["guard"],
                      # the most any number of streams got answered, whatever their first token's wait
                      "saturated_per_s": saturated,
                      "unshed_at_deadline": rows["off open"]["at_deadline"]}), flush=True)
    named = "" if workers == args.workers[0] else f"workers_{workers}_"
    lone_p99 = rows["off 1"]["ttft_p99_s"]
    curve = [(int(key.split()[-1]) if key != "off closed" else args.concurrency, row["per_s"] / capacity_per_s,
              row["ttft_p99_s"] / lone_p99) for key, row in rows.items() if key.startswith("off closed")]
    for streams, part, ratio in curve:  # the unshed guard's closed runs, recorded for a later plot
        figures.update({f"{named}curve_{streams}_per_s": round(part * capacity_per_s, 2),
                        f"{named}curve_{streams}_p99_over_one_stream": round(ratio, 2)})
    if args.plot:
        from benchmarks.guard_load_plot import plot

        shedding = [(key.split()[0], row["goodput_per_s"] / capacity_per_s, row["ttft_p99_s"] / uncontended)
                    for key, row in rows.items() if key.endswith(" open") and not key.startswith("off")]
        where = args.plot.with_name(f"{args.plot.stem}{'' if not named else '_' + named.rstrip('_')}{args.plot.suffix}")
        drawn = plot(curve, shedding, args.offered, f"guard_load.py, {workers} guard process(es), capacity "
                     f"{capacity_per_s:.1f} replies a second, load {os.getloadavg()[0]:.1f}", where)
        print(f"plotted in {drawn}", flush=True)
    figures.update({f"{named}capacity_per_s": capacity_per_s, f"{named}uncontended_ttft_p99_s": round(uncontended, 4),
                    f"{named}saturated_per_s": saturated})
    for key, row in rows.items():
        if not key.endswith(" open"):
            continue
        print(json.dumps({"workers": workers,
                          "guard": key.split()[0],  # off, default (the adaptive limits), or a max_cpu_share
                          "offered_over_capacity": round(row["offered_per_s"] / capacity_per_s, 2),
                          "admitted_per_s": row["per_s"], "shed": row["shed"],
                          "goodput_per_s": row["goodput_per_s"],
                          "goodput_over_capacity": round(row["goodput_per_s"] / capacity_per_s, 2),
                          **({"whole_run_goodput_over_capacity": round(
                              rows[f"{key.split()[0]} whole"]["goodput_per_s"] / capacity_per_s, 2),
                              "whole_run_ttft_p99_over_uncontended": round(
                                  rows[f"{key.split()[0]} whole"]["ttft_p99_s"] / uncontended, 2)}
                             if args.settle else {}),
                          # over what the unshed guard answered under the same open load: a saturated core's
                          # (none where it checked nothing in time, as behind a slow checker)
                          "goodput_over_unshed": (round(row["goodput_per_s"] / unshed, 2)
                                                  if (unshed := rows["off open"]["goodput_per_s"]) else None),
                          "admitted_ttft_p99_over_uncontended": round(row["ttft_p99_s"] / uncontended, 2),
                          # over the same guard's one-stream run just before (a shared machine's load moves)
                          "over_its_own_one_stream_p99": round(
                              row["ttft_p99_s"] / rows[f"{key.split()[0]} 1"]["ttft_p99_s"], 2),
                          "admitted_at_deadline": row["at_deadline"],
                          "guard_cpu_share": row["cpu_share"]["guard"],
                          "guard_cpu_ms_per_reply": row["guard_cpu_ms_per_reply"]}), flush=True)
        kind = key.split()[0]
        share = named + {"off": "unshed", "default": "default"}.get(
            kind, kind if kind.startswith("target") or kind in dict(args.variant) else f"share_{kind}")
        figures.update({f"{share}_admitted_per_s": row["per_s"], f"{share}_goodput_per_s": row["goodput_per_s"],
                        f"{share}_ttft_p50_s": row["ttft_p50_s"], f"{share}_ttft_p99_s": row["ttft_p99_s"],
                        f"{share}_p99_over_uncontended": round(row["ttft_p99_s"] / uncontended, 2),
                        f"{share}_admitted_at_deadline": row["at_deadline"]})
        if args.settle:
            whole = rows[f"{kind} whole"]
            figures.update({"settle_s": args.settle, f"{share}_whole_run_goodput_per_s": whole["goodput_per_s"],
                            f"{share}_whole_run_p99_over_uncontended": round(whole["ttft_p99_s"] / uncontended, 2)})
    return capacity_per_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=64, help="streams in flight in the capacity run")
    parser.add_argument("--curve", type=int, nargs="*", default=[], help="then the unshed guard with each of these "
                        "numbers of streams in flight: what it answers, and its p99 first token over a lone stream's")
    parser.add_argument("--offered", type=float, default=2.0, help="the open load, times the capacity")
    parser.add_argument("--seconds", type=float, default=20, help="each run's seconds; a shedding guard's limit "
                        "takes about 5 s to grow from its floor, which 60 s runs weigh less")
    parser.add_argument("--alone-seconds", type=float, default=0.0, help="each guard's one-stream run, seconds "
                        "(0: half of --seconds); a p99 of the uncontended first token needs a hundred replies or "
                        "more (a reply takes about 0.47 s, so 20 s a guard gives about 40)")
    parser.add_argument("--settle", type=float, default=0.0, help="the open runs' first seconds, before "
                        "--seconds more are measured: a guard serves for hours and its limit grows from its floor "
                        "once, in its first seconds under load (the whole run is given too)")
    parser.add_argument("--deadline", type=float, default=5.0, help="each request's deadline_s")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per checker model call")
    parser.add_argument("--checker-slots", type=int, default=0, help="calls the checker answers at once, the rest "
                        "waiting their turn (0: any number), per guard process")
    parser.add_argument("--token-delay", type=float, default=0.01)
    parser.add_argument("--first", type=float, default=0.0, help="the upstream's seconds before its answer's "
                        "first byte (0: at once, so a first token's time is the guard's own; a served model's "
                        "is 0.1-1 s, benchmarks/guard_vs_litellm.py's --first 0.3)")
    parser.add_argument("--checks-at-once", type=int, default=0, help="guard.checks_at_once of the shedding run "
                        "(0: the default, 8 per core)")
    parser.add_argument("--max-lag-ms", type=float, default=0.0, help="guard.max_loop_lag_ms of the shedding "
                        "run (0: not watched)")
    parser.add_argument("--max-cpu-share", type=float, nargs="+", default=[0.0], help="guard.max_cpu_share of "
                        "the shedding runs, one guard each (0: not watched, the default: the adaptive limit alone)")
    parser.add_argument("--target-ms", type=float, nargs="*", default=[], help="then the default guard again with "
                        "the adaptive limit's target (server/ops/adaptive.py's TARGET_S) at each of these ms, one "
                        "guard each, to compare targets within one run")
    parser.add_argument("--variant", nargs="*", default=[], help="then the default guard again with settings of "
                        "server/ops/adaptive.py changed, one guard each: NAME:ATTR=VALUE,ATTR=VALUE (as "
                        "fixed40:FLOOR_PER_CORE=20,CEILING=40, a limit pinned at 40 on two cores; a dotted name sets "
                        "another module's: factdebate.server.guard.openai_chat.stream.JOINED=0)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1], help="guard processes (serve --workers N), "
                        "the runs repeated for each number given (--serve: the guard's)")
    parser.add_argument("--guard-cores", type=int, default=0, help="the guard's processes pinned to this many "
                        "cores, the clients and the upstream to the others (0: not pinned): a machine of its own "
                        "for the guard, whose adaptive limit reads the cores it may use")
    parser.add_argument("--flood", action="store_true", help="then the default guard with one key flooding at "
                        "--offered times the capacity and a second key's --flood-light streams beside it")
    parser.add_argument("--plot", type=Path, default=None, help="a PNG of the run: each shedding guard's goodput "
                        "against its p99 first token, beside the unshed guard's --curve and the goal's corner")
    parser.add_argument("--flood-light", type=int, default=2, help="the light key's streams in flight (--flood)")
    parser.add_argument("--floor", action="store_true", help="benchmarks/relay_floor.py in place of the guards "
                        "(its loads: each --max-cpu-share value of a core)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-upstream", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-checker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--upstream", default="", help=argparse.SUPPRESS)
    add_record_flag(parser)
    args = parser.parse_args()
    args.variant = variants(args.variant)
    if args.record and args.floor:
        parser.error("--record records the guards' runs; the floor's figures are recorded by hand in "
                     "benchmarks/results/relay_floor.jsonl")
    if args.serve:
        serve(args)
        return
    if args.serve_upstream:
        serve_upstream(args)
        return
    if args.serve_checker:
        serve_checker(args)
        return
    from tests.server.conftest import free_port

    pin(args.guard_cores, guard=False)  # the clients here and the upstream started below
    load = os.getloadavg()[0]
    print(f"load average before: {load:.1f} on {os.cpu_count()} cores"
          + (f", the guard on {args.guard_cores} of them" if args.guard_cores else ""), flush=True)
    upstream_port = free_port()
    upstream = subprocess.Popen([sys.executable, __file__, "--serve-upstream", "--port", str(upstream_port),
                                 "--token-delay", str(args.token_delay), "--first", str(args.first)])
    capacities: dict[int, float] = {}
    try:
        wait_ready(upstream, upstream_port, "upstream")
        if args.floor:
            floor_runs(args, upstream, f"http://127.0.0.1:{upstream_port}/v1")
            return
        figures: dict[str, float] = {"offered_over_capacity": args.offered}
        for workers in args.workers:
            capacities[workers] = guards(args, upstream, upstream_port, workers, figures)
        if args.flood:
            flood_run(args, upstream, f"http://127.0.0.1:{upstream_port}/v1", capacities[args.workers[0]])
    finally:
        upstream.terminate()
        upstream.wait(30)
    if len(capacities) > 1:  # how the capacity grows with the guard's processes, within this run
        one = capacities[args.workers[0]]
        print(json.dumps({"capacity_per_s_by_workers": capacities,
                          "capacity_over_first": {w: round(c / one, 2) for w, c in capacities.items()}}), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}", flush=True)
    if args.record:
        print(f"recorded in {record('guard_load', figures, load=load)}", flush=True)


if __name__ == "__main__":
    main()
