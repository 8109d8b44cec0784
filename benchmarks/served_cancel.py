"""Does a cancelled call stop at the server? Measured against llama-cpp-python's own
OpenAI-compatible server on the shipped SmolLM2 weights, started here with ``--interrupt_requests False``.

For each way of asking (``plain``: one JSON reply, ``llm.stream: false``; ``stream``: ``llm.stream: true``;
``default``: ``llm.stream`` as by default, ``auto``, which streams to this server), a long answer is asked
for (``--max-tokens``, default 1024), cancelled ``--after`` seconds later (default 3) as a guard deadline or
a given-up try cancels it, and a one-token probe is sent at once. The server answers one request at a time,
so the probe's wait says how long the cancelled answer went on generating: ``idle after`` is the probe's
time less the same probe's time on an idle server. ``--nameless`` asks through a proxy that answers
``GET /models`` 404, as a gateway that names no server does (OpenAI's API, Ollama and most gateways name none
that stops). Run it under ``nice`` on a shared machine.

    nice -n 10 .venv/bin/python benchmarks/served_cancel.py
    nice -n 10 .venv/bin/python benchmarks/served_cancel.py --modes default --nameless --max-tokens 256 --after 2
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from served import Proxy, start_server

from factdebate.llm.base import GenParams, Message
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.llm.openai_stream import StreamSetting

LONG: list[Message] = [{"role": "user",
                         "content": "Write a long story about a lighthouse keeper and a storm, chapter by chapter."}]
PROBE: list[Message] = [{"role": "user", "content": "Say OK."}]


async def probe_seconds(model: OpenAIBackend) -> float:
    started = time.perf_counter()
    await model.complete(PROBE, GenParams(max_tokens=1))
    return time.perf_counter() - started


STREAM_SETTING: dict[str, StreamSetting] = {"plain": False, "stream": True, "default": "auto"}


async def measure(url: str, mode: str, args: argparse.Namespace) -> dict[str, float]:
    model = OpenAIBackend("smollm2", base_url=f"{url}/v1", timeout=600, constrain="none",
                          stream=STREAM_SETTING[mode])
    alone = await probe_seconds(model)
    call = asyncio.create_task(model.complete(LONG, GenParams(max_tokens=args.max_tokens, temperature=0.7)))
    await asyncio.sleep(args.after)
    if call.done():
        raise SystemExit(f"the long answer ended within {args.after} s: ask for more tokens (--max-tokens)")
    call.cancel()
    waited = await probe_seconds(model)
    await model.aclose()
    return {"probe_alone": round(alone, 2), "probe_after_cancel": round(waited, 2),
            "idle_after": round(max(0.0, waited - alone), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2, help="the server's threads")
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument("--after", type=float, default=3.0, help="seconds before the long answer is cancelled")
    parser.add_argument("--modes", default="plain,stream,default",
                        help="which ways of asking to measure, in order (plain, stream, default)")
    parser.add_argument("--nameless", action="store_true", help="ask through a proxy whose GET /models is 404")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        process, url = start_server(Path(work), args.threads, ["--interrupt_requests", "False"])
        proxy = Proxy(url, names_server=False) if args.nameless else None
        url = proxy.url if proxy is not None else url
        try:
            for mode in args.modes.split(","):
                result = asyncio.run(measure(url, mode, args))
                print(f"{mode:<7} probe alone {result['probe_alone']:>6.2f} s, after the cancel "
                      f"{result['probe_after_cancel']:>6.2f} s: the server was idle {result['idle_after']:.2f} s "
                      "after the call was cancelled", flush=True)
        finally:
            process.terminate()  # it may still be writing an answer nobody reads: that is what is measured
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if proxy is not None:
                proxy.server.shutdown()


if __name__ == "__main__":
    main()
