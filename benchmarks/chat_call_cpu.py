"""Client CPU per model call through the package's whole chat path (``OpenAIBackend.complete``: the request
built, posted on the shared aiohttp session, the answer read and its errors mapped to the LLM layer's), against
a loopback server in a process of its own that answers at once: a chat completion, the same as a stream of
``--events`` chunks, or a 429 with an OpenAI error body (the error path: what reading and mapping a failure
costs). This process's CPU (user and system) per call, medians of ``--rounds`` alternating rounds.

    .venv/bin/python benchmarks/chat_call_cpu.py --calls 500 --rounds 5 [--record]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

SERVER = r'''
import asyncio, json, sys
EVENTS = int(sys.argv[1])
reply = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "SUPPORTS"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10}}).encode()
PLAIN = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(reply)) + reply
error = json.dumps({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit"}}).encode()
LIMITED = (b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 0\r\n"
           b"Content-Length: %d\r\n\r\n" % len(error)) + error
def chunk(data):
    return b"%x\r\n%s\r\n" % (len(data), data)
events = [json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [
    {"index": 0, "delta": {"content": "word "}, "finish_reason": None}]}) for _ in range(EVENTS)]
events.append(json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [
    {"index": 0, "delta": {}, "finish_reason": "stop"}]}))
STREAM = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
          + b"".join(chunk(b"data: %s\n\n" % e.encode()) for e in events) + chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")
async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            body = await reader.readexactly(length)
            if b"/limited/" in head.split(b"\r\n", 1)[0]:
                writer.write(LIMITED)
            else:
                writer.write(STREAM if b'"stream": true' in body else PLAIN)
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()
async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()
asyncio.run(main())
'''

KINDS = ("plain", "streamed", "limited")


async def _rounds(port: int, args: argparse.Namespace) -> dict[str, float]:
    from factdebate.llm.base import GenParams, TransientLLMError
    from factdebate.llm.openai_compat import OpenAIBackend

    base = f"http://127.0.0.1:{port}"
    backends = {"plain": OpenAIBackend("m", base_url=f"{base}/v1", api_key="k", stream=False),
                "streamed": OpenAIBackend("m", base_url=f"{base}/v1", api_key="k", stream=True),
                "limited": OpenAIBackend("m", base_url=f"{base}/limited/v1", api_key="k", stream=False)}
    messages = [{"role": "user", "content": "Is the Eiffel Tower in Paris?"}]
    params = GenParams(max_tokens=16)

    async def call(kind: str) -> None:
        try:
            await backends[kind].complete(messages, params)  # type: ignore[arg-type]
        except TransientLLMError:
            if kind != "limited":
                raise

    async def measure(kind: str) -> float:
        left = [args.calls]

        async def worker() -> None:
            while left[0] > 0:
                left[0] -= 1
                await call(kind)

        cpu = time.process_time()
        await asyncio.gather(*(worker() for _ in range(args.concurrency)))
        return 1000 * (time.process_time() - cpu) / args.calls

    for kind in KINDS:  # warm: connections opened, the model's parameters learned
        await call(kind)
    samples: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for _ in range(args.rounds):
        for kind in KINDS:
            samples[kind].append(await measure(kind))
    for backend in backends.values():
        await backend.aclose()
    return {f"{kind}_ms": round(statistics.median(values), 3) for kind, values in samples.items()}


def main() -> None:
    from benchmarks.results_log import add_record_flag, record

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--label", default="", help="a word kept with the figures (the code measured)")
    add_record_flag(parser)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(args.events)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        figures: dict[str, float | str] = dict(asyncio.run(_rounds(int(server.stdout.readline()), args)))
    finally:
        server.terminate()
        server.wait()
    if args.label:
        figures["code"] = args.label
    print(" ".join(f"{name}={value}" for name, value in figures.items()))
    if args.record:
        record("chat_call_cpu", figures, load=load)


if __name__ == "__main__":
    main()
