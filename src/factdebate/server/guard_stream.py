"""The chat guard's stream: the upstream's chunks passed on as they arrive, the answer's text fed to a
:class:`~factdebate.guard.StreamingCheck` on the way (sentences are checked while the rest is written), and
after the answer one more chunk before ``data: [DONE]`` whose ``factdebate`` field holds the result.

That chunk has ``choices: []``, as a usage chunk does, so a client that knows nothing of it reads nothing
from it. With ``X-Factdebate-Verdicts: each`` every claim's verdict also comes as such a chunk
(``factdebate_claim``) as soon as it is decided. What each policy does to the stream:

- ``annotate``: every chunk passes as it arrives; the first time to token is the upstream's.
- ``flag``: the same, except that the chunk that ends the answer (its ``finish_reason``, and a usage chunk
  after it) is held until the check is done, so that the footnotes come as one more piece of the text.
- ``rewrite``, ``block``, and any policy with ``on_unchecked: block``: the answer is held back whole (keep-alive
  comments meanwhile) and what the policy leaves is sent after the check: the text as one chunk, then the
  upstream's closing chunks. Text already shown cannot be taken back, so these never stream it first.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator
from typing import Any

from starlette.datastructures import Headers

from factdebate.guard import GuardResult, StreamingCheck
from factdebate.server.check_routes import call_keeper
from factdebate.server.guard_prepare import (
    Prepared,
    hidden_claim,
    keep_guard,
    public_result,
    reviser_for,
    unchecked_result,
    upstream_error,
)
from factdebate.server.guard_upstream import SSEEvent, UpstreamError, error_body, passed_on_error
from factdebate.server.routes import _SlotStream
from factdebate.server.service import Service
from factdebate.util.redact import hide_endpoints

log = logging.getLogger("factdebate.server")
VERDICTS_HEADER = "X-Factdebate-Verdicts"
DONE = b"data: [DONE]\n\n"
_HEAD = ("id", "object", "created", "model", "system_fingerprint", "service_tier")


def frame(data: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"


async def stream_reply(prepared: Prepared, service: Service, who: str, headers: Headers) -> Any:
    """The SSE answer, or the upstream's own error when it fails before its first chunk (nothing has been
    sent then, so the caller gets the upstream's status). One task does all the reading from the upstream,
    from the request on: ending it closes the upstream's connection, so an abandoned stream stops the
    upstream's writing too."""
    each = headers.get(VERDICTS_HEADER, "").strip().lower() == "each"
    relay = Relay(prepared, service, who, each)
    reader = asyncio.create_task(relay.read(prepared.upstream.stream(prepared.body.upstream_body())))
    try:
        kind, item = await relay.queue.get()
    except BaseException:
        reader.cancel()
        prepared.slot.release()
        raise
    if kind != "event":
        reader.cancel()
        prepared.charge.claims = 0
        prepared.slot.release()
        error = item if kind == "error" else UpstreamError(502, error_body("the upstream model's stream was empty"))
        return upstream_error(error)
    return _SlotStream(relay.frames(item, reader), prepared.slot.release)


class Relay:
    """One stream's passage from the upstream to the caller."""

    def __init__(self, prepared: Prepared, service: Service, who: str, each: bool) -> None:
        self.prepared, self.service, self.who, self.each = prepared, service, who, each
        resolved = prepared.resolved
        self.buffer = resolved.policy in ("rewrite", "block") or resolved.on_unchecked == "block"
        self.hold_end = resolved.policy == "flag"  # the footnotes go before the chunk that ends the answer
        self.holding = False  # past the end of the first choice under flag: chunks wait for the check
        self.held: list[dict[str, Any]] = []
        self.head: dict[str, Any] = {}
        self.text = ""
        self.tools: list[str] = []
        self.passed: set[str] = set()
        self.choices = 1
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    async def frames(self, first: SSEEvent, reader: asyncio.Task[None]) -> AsyncGenerator[bytes, None]:
        prepared = self.prepared
        calls = call_keeper(self.service)
        check = StreamingCheck(prepared.settings, self.service.resources(prepared.settings), options=prepared.options,
                               question=prepared.question, sinks=[calls.sink] if calls else None,
                               reviser=reviser_for(prepared), caller=self.who)
        tasks: list[asyncio.Task[Any]] = [reader]
        if self.each:
            tasks.append(asyncio.create_task(self._verdicts(check)))
        ping = self.service.config.stream_ping_seconds
        try:
            for out in self._pass(first, check):  # the event that came before the stream started
                yield out
            while True:
                try:
                    kind, item = await asyncio.wait_for(self.queue.get(), ping)
                except TimeoutError:
                    yield b": checking\n\n"
                    continue
                if kind == "event":
                    for out in self._pass(item, check):
                        yield out
                elif kind == "verdict":
                    yield frame({**self.head, "choices": [], "factdebate_claim": item})
                elif kind == "error":
                    yield frame(item.body)  # OpenAI clients raise on a chunk that is an error
                    return
                elif kind == "end":
                    finishing = asyncio.create_task(self._finish(check))
                    finishing.add_done_callback(lambda task: self.queue.put_nowait(("finished", task)))
                    tasks.append(finishing)
                elif kind == "finished":
                    finished: asyncio.Task[GuardResult] = item
                    try:
                        result = finished.result()
                    except Exception as exc:  # the check could not finish: said, never passed as checked
                        log.warning("a streamed guard check failed: %s: %s", type(exc).__name__, exc)
                        yield frame(error_body(f"the fact check failed: {type(exc).__name__}: "
                                               f"{hide_endpoints(str(exc))}", "server_error", "check_failed"))
                        return
                    if self.each and self.text.strip():  # (an answer without text had no check to wait for)
                        await tasks[1]  # the last verdicts are queued before the result goes out
                        while not self.queue.empty():
                            kind, claim = self.queue.get_nowait()
                            if kind == "verdict":
                                yield frame({**self.head, "choices": [], "factdebate_claim": claim})
                    result = await keep_guard(self.service, self.who, result, calls)
                    for out in self._closing(result):
                        yield out
                    yield DONE
                    return
        finally:
            check.cancel()  # a client gone (or an error) leaves nothing checking on; after finish() a no-op
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def read(self, events: AsyncGenerator[SSEEvent, None]) -> None:
        """The upstream's events into the queue, then ``end``; ``error`` (an :class:`UpstreamError`) when it
        fails. Cancelled, it closes the upstream's stream in this same task."""
        try:
            async for event in events:
                if event.data == "[DONE]":
                    break
                await self.queue.put(("event", event))
            await self.queue.put(("end", None))
        except UpstreamError as exc:
            await self.queue.put(("error", exc))
        finally:
            await events.aclose()

    async def _verdicts(self, check: StreamingCheck) -> None:
        async for claim in check.verdicts():
            await self.queue.put(("verdict", hidden_claim(claim).model_dump(mode="json")))

    async def _finish(self, check: StreamingCheck) -> GuardResult:
        passed = sorted(self.passed)
        if self.tools:
            passed.insert(0, f"{len(self.tools)} tool call(s) in the reply, not checked: {', '.join(self.tools)[:300]}")
        if self.choices > 1:
            passed.append(f"choices 2 to {self.choices}: only the first choice is checked")
        if not self.text.strip():
            result = unchecked_result(self.prepared.resolved, passed)
        else:
            result = await check.finish()
            result = result.model_copy(update={"passed_through": [*result.passed_through, *passed]})
        self.prepared.charge.claims = len(result.claims)
        return result

    def _pass(self, event: SSEEvent, check: StreamingCheck) -> list[bytes]:
        """What of one upstream event goes out now (its raw bytes, untouched, unless the policy holds it)."""
        chunk = event.json()
        if chunk is None:
            return [] if self.buffer or self.holding else [event.raw]
        if isinstance(chunk.get("error"), dict):
            self.queue.put_nowait(("error", passed_on_error(502, {"error": chunk["error"]})))
            return []
        if not self.head:
            self.head = {key: chunk[key] for key in _HEAD if key in chunk}
            self.head["object"] = "chat.completion.chunk"
        ending = False
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            index = choice.get("index", 0)
            self.choices = max(self.choices, int(index) + 1 if isinstance(index, int) else 1)
            if index != 0:
                continue
            delta = choice.get("delta") or {}
            content = delta.get("content")
            if isinstance(content, str) and content:
                self.text += content
                check.feed(content)
            self._note(delta)
            ending = ending or bool(choice.get("finish_reason"))
        if self.buffer or self.holding:
            self.held.append(chunk)
            return []
        if ending and self.hold_end:
            self.holding = True
            split = _split_end(chunk)
            if split is None:
                self.held.append(chunk)
                return []
            now, later = split
            self.held.append(later)
            return [frame(now)]
        return [event.raw]

    def _note(self, delta: dict[str, Any]) -> None:
        for call in delta.get("tool_calls") or []:
            name = (call.get("function") or {}).get("name") if isinstance(call, dict) else None
            if name:
                self.tools.append(str(name))
        if delta.get("refusal"):
            self.passed.add("the model's refusal message, not checked")
        if delta.get("audio"):
            self.passed.add("audio in the reply, not checked")
        if delta.get("function_call"):
            self.passed.add("a function call in the reply, not checked")

    def _closing(self, result: GuardResult) -> list[bytes]:
        out: list[bytes] = []
        if self.buffer:
            if result.text:
                out.append(frame({**self.head, "choices": [{"index": 0, "delta": {"role": "assistant",
                                                                                  "content": result.text},
                                                             "finish_reason": None}]}))
            blocked = result.action_taken == "blocked"
            out += [frame(chunk) for chunk in (_without_text(c, blocked) for c in self.held) if chunk is not None]
        else:
            if result.action_taken == "flagged" and result.text.startswith(result.original_text):
                extra = result.text[len(result.original_text):]
                if extra:
                    out.append(frame({**self.head, "choices": [{"index": 0, "delta": {"content": extra},
                                                                 "finish_reason": None}]}))
            out += [frame(chunk) for chunk in self.held]
        out.append(frame({**self.head, "choices": [], "factdebate": public_result(result)}))
        return out


def _split_end(chunk: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A chunk that ends the first choice and still carries some of its text: (that text now, the ending
    later). None when it carries nothing to show now."""
    choices = chunk.get("choices") or []
    first = next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None)
    delta = (first or {}).get("delta") or {}
    if first is None or not any(delta.get(k) for k in ("content", "tool_calls", "refusal")):
        return None
    now = {**{k: v for k, v in chunk.items() if k != "usage"}, "choices": [{**first, "finish_reason": None}]}
    later = {**chunk, "choices": [{**c, "delta": {}} if c is first else c for c in choices]}
    return now, later


def _without_text(chunk: dict[str, Any], blocked: bool) -> dict[str, Any] | None:
    """A held chunk with the first choice's text taken out (it went out whole, as the policy left it); a
    blocked reply loses its tool calls too and ends as ``content_filter``. None when nothing is left."""
    choices = []
    for choice in chunk.get("choices") or []:
        if not isinstance(choice, dict) or choice.get("index", 0) != 0:
            choices.append(choice)
            continue
        delta = {k: v for k, v in (choice.get("delta") or {}).items() if k not in ("content", "role")}
        if blocked:
            delta = {k: v for k, v in delta.items() if k not in ("tool_calls", "function_call")}
        finish = choice.get("finish_reason")
        if finish and blocked:
            finish = "content_filter"
        if delta or finish:
            choices.append({**choice, "delta": delta, "finish_reason": finish})
    if not choices and not chunk.get("usage"):
        return None
    return {**chunk, "choices": choices}
