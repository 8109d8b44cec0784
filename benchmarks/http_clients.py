"""Client CPU per chat completion, plain and streamed, by HTTP client, against one loopback server in a process
of its own (a raw asyncio server answering at once: a JSON body with Content-Length, or a chunked event
stream of ``--events`` chunks and ``[DONE]``, connections kept alive). ``--calls`` calls with
``--concurrency`` in flight; this process's CPU (user and system, all threads) per call, in alternating
rounds (``--rounds``), medians. The clients:

- ``raw``: benchmarks/raw_http.py, a hand-written HTTP/1.1 client on asyncio streams (the package's client
  before aiohttp: the floor);
- ``aiohttp``: util/http_client.py's ``Client``, the package's client (the shared session, ``trust_env``,
  answers held to their limits, the stream's lines split);
- ``aiohttp-bare``: an ``aiohttp.ClientSession`` and nothing of the package's around it (what the limits and
  the line splitting cost, by difference);
- ``aiohttp-trust-env``: the same session with ``trust_env``, which looks the environment's proxy and
  ``~/.netrc`` up again on every call, in worker threads (what util/http_client.py saves by looking the proxy up
  once a client);
- ``chat``: llm/openai_http.py's ``ChatTransport`` over ``aiohttp``, the reply parsed as the backends read it;
- ``httpx``: one ``httpx.AsyncClient`` (``--all``), and ``sdk``: ``openai.AsyncOpenAI`` (``--all``; plain only).

    .venv/bin/python benchmarks/http_clients.py --calls 2000 --concurrency 8 --rounds 5 --all
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

BODY = json.dumps({"model": "m", "messages": [{"role": "user", "content": "Is the Eiffel Tower in Paris?"}],
                   "max_tokens": 16}).encode()
STREAM_BODY = json.dumps({**json.loads(BODY), "stream": True}).encode()

# The server: one write per answer, the stream's events in one chunk each (written at once, as a fast model's).
SERVER = r'''
import asyncio, json, sys
EVENTS = int(sys.argv[1])
reply = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "SUPPORTS"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10}}).encode()
PLAIN = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(reply)) + reply
def chunk(data):
    return b"%x\r\n%s\r\n" % (len(data), data)
events = [json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [
    {"index": 0, "delta": {"content": "word "}, "finish_reason": None}]}) for _ in range(EVENTS)]
STREAM = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
          + b"".join(chunk(b"data: %s\n\n" % e.encode()) for e in events) + chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")
async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            body = await reader.readexactly(length)
            writer.write(STREAM if b'"stream": true' in body else PLAIN)
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()
async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()
asyncio.run(main())
'''

Call = Callable[[bool], Awaitable[None]]


def clients(url: str, wanted: list[str]) -> dict[str, tuple[Call, Callable[[], Awaitable[None]]]]:
    made: dict[str, tuple[Call, Callable[[], Awaitable[None]]]] = {}
    headers = {"Authorization": "Bearer k", "Accept": "application/json"}
    if "raw" in wanted:
        from benchmarks.raw_http import Pool

        pool = Pool(url, {**headers, "Accept-Encoding": "identity"}, timeout=60, keep=64)

        async def raw(streamed: bool) -> None:
            reply = await pool.post("/chat/completions", STREAM_BODY if streamed else BODY)
            if streamed:
                async for line in reply.lines():
                    if line.startswith("data: [DONE]"):
                        break
                await reply.drain(1.0)
            else:
                json.loads(await reply.read())

        made["raw"] = (raw, pool.aclose)
    if "aiohttp" in wanted:
        from factdebate.util.http_client import Client

        client = Client(url, headers, timeout=60)

        async def lean(streamed: bool) -> None:
            reply = await client.post("/chat/completions", STREAM_BODY if streamed else BODY)
            if streamed:
                async for line in reply.lines():
                    if line.startswith("data: [DONE]"):
                        break
                await reply.drain(1.0)
            else:
                json.loads(await reply.read())

        made["aiohttp"] = (lean, client.aclose)
    for name in ("aiohttp-bare", "aiohttp-trust-env"):
        if name in wanted:
            made[name] = _bare_aiohttp(url, headers, trust_env=name == "aiohttp-trust-env")
    if "chat" in wanted:
        import openai

        from factdebate.llm.openai_http import ChatTransport, ChunkStream

        transport = ChatTransport(url, "k", 60, openai)
        body = json.loads(BODY)

        async def chat(streamed: bool) -> None:
            reply = await transport.create({**body, "stream": True} if streamed else body, streamed)
            if isinstance(reply, ChunkStream):
                async with reply:
                    async for _ in reply:
                        pass
            else:
                assert reply.choices[0].message.content == "SUPPORTS"

        made["chat"] = (chat, transport.aclose)
    if "httpx" in wanted:
        import httpx

        plain = httpx.AsyncClient(base_url=url, headers=headers, timeout=60,
                                  limits=httpx.Limits(max_connections=256, max_keepalive_connections=256))

        async def via_httpx(streamed: bool) -> None:
            if streamed:
                async with plain.stream("POST", "/chat/completions", content=STREAM_BODY) as response:
                    async for _ in response.aiter_lines():  # to the body's end, [DONE] included
                        pass
            else:
                json.loads((await plain.post("/chat/completions", content=BODY)).content)

        made["httpx"] = (via_httpx, plain.aclose)
    if "sdk" in wanted:
        import openai

        sdk = openai.AsyncOpenAI(base_url=url, api_key="k", max_retries=0)

        async def via_sdk(streamed: bool) -> None:
            if streamed:
                stream = await sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}],
                                                           max_tokens=16, stream=True)
                async for _ in stream:
                    pass
            else:
                await sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}],
                                                  max_tokens=16)

        made["sdk"] = (via_sdk, sdk.close)
    return made


def _bare_aiohttp(url: str, headers: dict[str, str],
                  trust_env: bool) -> tuple[Call, Callable[[], Awaitable[None]]]:
    import aiohttp

    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), auto_decompress=False,
                                    trust_env=trust_env)
    sent = {**headers, "Content-Type": "application/json", "Accept-Encoding": "identity"}

    async def bare(streamed: bool) -> None:
        async with session.post(f"{url}/chat/completions", data=STREAM_BODY if streamed else BODY,
                                headers=sent) as response:
            if streamed:
                async for line in response.content:
                    if line.startswith(b"data: [DONE]"):
                        break
                await response.read()
            else:
                json.loads(await response.read())

    return bare, session.close


async def measure(call: Call, streamed: bool, calls: int, concurrency: int) -> float:
    """CPU milliseconds per call."""
    left = [calls]

    async def worker() -> None:
        while left[0] > 0:
            left[0] -= 1
            await call(streamed)

    cpu = time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return 1000 * (time.process_time() - cpu) / calls


async def run(url: str, args: argparse.Namespace) -> list[str]:
    wanted = args.clients.split(",") if args.clients else \
        ["raw", "aiohttp", "aiohttp-bare", "chat"] + (["httpx", "sdk"] if args.all else [])
    made = clients(url, wanted)
    try:
        return await _rounds(made, args)
    finally:
        for _, close in made.values():
            await close()


async def _rounds(made: dict[str, tuple[Call, Callable[[], Awaitable[None]]]], args: argparse.Namespace) -> list[str]:
    lines = []
    for streamed in (False, True):
        cpu: dict[str, list[float]] = {name: [] for name in made}
        for call, _ in made.values():  # warm: connections open, code paths run once
            await measure(call, streamed, 100, args.concurrency)
        for number in range(args.rounds):
            for name in (list(made) if number % 2 == 0 else list(reversed(made))):
                cpu[name].append(await measure(made[name][0], streamed, args.calls, args.concurrency))
        kind = f"streamed ({args.events} events)" if streamed else "plain"
        for name in made:
            lines.append(f"{kind:20} {name:17} cpu_ms_per_call={statistics.median(cpu[name]):.3f} "
                         f"(rounds: {', '.join(f'{v:.3f}' for v in cpu[name])})")
            print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--events", type=int, default=20, help="chunks in a streamed answer, besides [DONE]")
    parser.add_argument("--all", action="store_true", help="httpx and the OpenAI SDK too")
    parser.add_argument("--clients", default="", help="these clients only, by name, comma-separated "
                        "(raw, aiohttp, aiohttp-bare, aiohttp-trust-env, chat, httpx, sdk)")
    args = parser.parse_args()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(args.events)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = f"http://127.0.0.1:{server.stdout.readline().strip()}/v1"
        print(f"python {sys.version.split()[0]}, {args.calls} calls x {args.rounds} rounds, "
              f"{args.concurrency} in flight, client CPU per call (medians):", flush=True)
        asyncio.run(run(url, args))
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
