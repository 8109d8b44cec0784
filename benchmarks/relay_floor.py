"""The floor under the guard's CPU goal: what a guard written with no framework at all costs in CPU per reply.

A bare asyncio HTTP/1.1 server (no uvicorn, Starlette or middleware, no settings, keys, events, store, scrub or
check logic) that does only what any guard of a chat model must do for benchmarks/guard_vs_litellm.py's reply:

- read the caller's request and send it on to the upstream (benchmarks/raw_http.py's kept-alive pool);
- streamed: parse each of the upstream's server-sent events (its JSON, for the text), pass the event on as one
  chunk, and find the sentences' ends in the text; plain: read the upstream's JSON reply and answer it;
- make the 12 checker calls the guard makes for that reply's 6 sentences (two a sentence, as the guard's
  extraction and fast tier do: the same JSON-schema requests guard_vs_litellm.py's checker answers), each
  request's JSON built and each answer's JSON (and the content's JSON inside it) parsed;
- add one part naming each sentence's label to the reply (a last event, or a field of the plain answer).

Nothing here checks anything: the labels are whatever the checker said. So its CPU per reply is a lower bound
for the guard's on this machine and interpreter; the goal (a third of LiteLLM's pass-through) is reachable only
if this floor, plus the check's own logic (benchmarks/guard_check_cpu.py), is under it. Run by
``benchmarks/guard_vs_litellm.py --floor`` as one more target in the same run.

    .venv/bin/python benchmarks/relay_floor.py --port 8100 --upstream http://127.0.0.1:8001/v1 \\
        --checker http://127.0.0.1:8002/v1
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.raw_http import Pool

_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_EXTRACT = ("List the checkable factual claims the text below makes, each one standing alone.\nText:\n{text}\n\n"
            "Reply with JSON.")
_VERIFY = ("Decide whether the passages support the claim.\nClaim: {text}\n[1] Wikipedia: {text}\n\n"
           "Reply with JSON: a label, the passage and a quote.")
_SCHEMA_CLAIMS = {"type": "object", "properties": {"claims": {"type": "array", "items": {"type": "string"}}},
                  "required": ["claims"]}
_SCHEMA_LABEL = {"type": "object", "properties": {"label": {"type": "string"}, "passage": {"type": "integer"},
                                                  "quote": {"type": "string"}}, "required": ["label"]}


class Floor:
    def __init__(self, upstream: str, checker: str, in_flight: int = 0) -> None:
        self.upstream = Pool(upstream, {"Authorization": "Bearer sk-upstream"}, timeout=60)
        self.checker = Pool(checker, {"Authorization": "Bearer sk-checker"}, timeout=60)
        # The checker calls in flight at once, as the guard's llm.max_in_flight bounds its own (0: no bound): a
        # hundred replies' calls at once overflow a threaded checker's listen queue, and the floor does not retry.
        self.slots = asyncio.Semaphore(in_flight) if in_flight else None

    async def _call(self, prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
        body = json.dumps({"model": "checker", "temperature": 0, "messages": [{"role": "user", "content": prompt}],
                           "response_format": {"type": "json_schema",
                                               "json_schema": {"name": "answer", "schema": schema}}})
        async with self.slots or contextlib.nullcontext():
            reply = await self.checker.post("/chat/completions", body.encode())
            answer = json.loads(await reply.read())
        parsed: dict[str, Any] = json.loads(answer["choices"][0]["message"]["content"])
        return parsed

    async def _check(self, sentence: str) -> dict[str, Any]:
        """Two calls, as the guard's extraction and fast tier make for one sentence."""
        claims = (await self._call(_EXTRACT.format(text=sentence), _SCHEMA_CLAIMS)).get("claims") or [sentence]
        verdict = await self._call(_VERIFY.format(text=claims[0]), _SCHEMA_LABEL)
        return {"text": claims[0], "status": "checked", "label": verdict.get("label")}

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line, *header_lines = head.decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in
                           (line.partition(":") for line in header_lines if line)}
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                if request_line.startswith("GET"):
                    writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-type: application/json\r\n\r\n{}")
                    continue
                request = json.loads(body)
                if request.get("stream"):
                    await self._streamed(request, writer)
                else:
                    await self._plain(request, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _plain(self, request: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        reply = await self.upstream.post("/chat/completions", json.dumps(request).encode())
        answer = json.loads(await reply.read())
        text = answer["choices"][0]["message"]["content"]
        sentences = [s.strip() + "." for s in text.split(". ") if s.strip()]
        answer["factdebate"] = {"claims": await asyncio.gather(*(self._check(s.rstrip(".") + ".")
                                                                 for s in sentences))}
        out = json.dumps(answer).encode()
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(out)
                     + out)

    async def _streamed(self, request: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        reply = await self.upstream.post("/chat/completions", json.dumps(request).encode())
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        text, checked_to, checks = "", 0, []
        async for line in reply.lines():
            if not line.startswith("data: "):
                continue
            if line != "data: [DONE]":
                event = json.loads(line[6:])
                for choice in event.get("choices") or []:
                    text += (choice.get("delta") or {}).get("content") or ""
                for end in _SENTENCE_END.finditer(text, checked_to):
                    checks.append(asyncio.ensure_future(self._check(text[checked_to:end.end()].strip())))
                    checked_to = end.end()
                frame = (line + "\n\n").encode()
                writer.write(b"%x\r\n%s\r\n" % (len(frame), frame))
                continue
            if text[checked_to:].strip():
                checks.append(asyncio.ensure_future(self._check(text[checked_to:].strip())))
            last = ("data: " + json.dumps({"choices": [], "factdebate": {"claims": await asyncio.gather(*checks)}})
                    + "\n\ndata: [DONE]\n\n").encode()
            writer.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(last), last))
            await writer.drain()
            return


async def main(args: argparse.Namespace) -> None:
    floor = Floor(args.upstream, args.checker, args.in_flight)
    server = await asyncio.start_server(floor.connection, "127.0.0.1", args.port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="the model's OpenAI-compatible base URL (…/v1)")
    parser.add_argument("--checker", required=True, help="the checker's OpenAI-compatible base URL (…/v1)")
    parser.add_argument("--in-flight", type=int, default=0, help="checker calls in flight at once (0: no bound)")
    asyncio.run(main(parser.parse_args()))
