"""CPU per checker call by HTTP client (68.6 % of the guard's CPU at 50 streams was the OpenAI
SDK's client making the checker's calls). The same chat completions are sent to an OpenAI-compatible server
on loopback in a process of its own (tests/fake_openai.py, answering at once), ``--calls`` of them with
``--concurrency`` in flight, by:

- ``sdk``: ``openai.AsyncOpenAI`` as the checker's backend makes it (llm/openai_compat.py), default transport;
- ``sdk+pool``: the same SDK over an ``httpx.AsyncClient`` with a pool sized for the concurrency;
- ``httpx``: one long-lived ``httpx.AsyncClient`` posting the JSON and reading the reply's text, no SDK;
- ``http1``: benchmarks/raw_http.py's pool (a raw HTTP/1.1 client on asyncio streams), the same JSON.

``--keep-alive`` has the server answer in HTTP/1.1 and keep its connections, as a model server does (by
default it answers in HTTP/1.0 and closes each: a TCP connect per call).

Reported per client: this process's CPU milliseconds per call (user and system, all threads) and calls per
second, in alternating rounds (``--rounds``), medians.

    .venv/bin/python benchmarks/decisions/checker_client.py --calls 400 --concurrency 16 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
MESSAGES = [{"role": "system", "content": "Answer with SUPPORTS, REFUTES or NOT ENOUGH INFO."},
            {"role": "user", "content": "Claim: The Eiffel Tower is in Paris.\nEvidence: [1] It stands in Paris."}]
SERVER = ("import sys, time; sys.path.insert(0, {root!r}); from tests.fake_openai import FakeOpenAI; "
          "s = FakeOpenAI(reply='SUPPORTS'); s.server.RequestHandlerClass.protocol_version = {protocol!r}; "
          "s.__enter__(); print(s.base_url, flush=True); time.sleep(3600)")

Call = Callable[[], Awaitable[str]]


def clients(base_url: str, concurrency: int) -> dict[str, tuple[Call, Callable[[], Awaitable[None]]]]:
    import openai

    limits = httpx.Limits(max_connections=concurrency * 2, max_keepalive_connections=concurrency * 2)
    sdk = openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0)
    pooled = openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0,
                                http_client=httpx.AsyncClient(limits=limits, timeout=60))
    plain = httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60,
                              headers={"Authorization": "Bearer k"})

    def via(client: Any) -> Call:
        async def call() -> str:
            reply = await client.chat.completions.create(model="m", messages=MESSAGES, max_tokens=16,
                                                         temperature=0)
            return str(reply.choices[0].message.content)
        return call

    async def raw() -> str:
        reply = await plain.post("/chat/completions", json={"model": "m", "messages": MESSAGES, "max_tokens": 16,
                                                            "temperature": 0})
        reply.raise_for_status()
        return str(reply.json()["choices"][0]["message"]["content"])

    import json

    from benchmarks.raw_http import Pool

    lean = Pool(base_url, {"Authorization": "Bearer k", "Accept": "application/json"}, timeout=60,
                keep=concurrency * 2)

    async def http1() -> str:
        body = json.dumps({"model": "m", "messages": MESSAGES, "max_tokens": 16, "temperature": 0}).encode()
        reply = await lean.post("/chat/completions", body)
        assert reply.status == 200
        return str(json.loads(await reply.read())["choices"][0]["message"]["content"])

    return {"sdk": (via(sdk), sdk.close), "sdk+pool": (via(pooled), pooled.close), "httpx": (raw, plain.aclose),
            "http1": (http1, lean.aclose)}


async def measure(call: Call, calls: int, concurrency: int) -> tuple[float, float]:
    """(CPU ms per call, calls per second)."""
    left = [calls]

    async def worker() -> None:
        while left[0] > 0:
            left[0] -= 1
            assert await call() == "SUPPORTS"

    cpu, started = time.process_time(), time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return 1000 * (time.process_time() - cpu) / calls, calls / (time.perf_counter() - started)


async def run(base_url: str, args: argparse.Namespace) -> None:
    made = clients(base_url, args.concurrency)
    cpu: dict[str, list[float]] = {name: [] for name in made}
    rate: dict[str, list[float]] = {name: [] for name in made}
    for call, _ in made.values():  # warm: connections open, code paths compiled
        await measure(call, 50, args.concurrency)
    for number in range(args.rounds):
        order = list(made) if number % 2 == 0 else list(reversed(made))
        for name in order:
            ms, per_s = await measure(made[name][0], args.calls, args.concurrency)
            cpu[name].append(ms)
            rate[name].append(per_s)
    for name in made:
        print(f"{name:9} cpu_ms_per_call={statistics.median(cpu[name]):.3f} "
              f"calls_per_s={statistics.median(rate[name]):.0f} (rounds: {', '.join(f'{v:.3f}' for v in cpu[name])})")
    for _, close in made.values():
        await close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep-alive", action="store_true", help="the server keeps connections (HTTP/1.1)")
    args = parser.parse_args()
    protocol = "HTTP/1.1" if args.keep_alive else "HTTP/1.0"
    server = subprocess.Popen([sys.executable, "-c", SERVER.format(root=str(ROOT), protocol=protocol)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        asyncio.run(run(base_url, args))
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
