"""A streamed chat reply the service had no room to check (``guard.on_overload: pass``, server/admission.py):
relayed without a check, then the result chunk, whose one unchecked claim says why (guard/overload.py).

Under ``annotate`` and ``flag`` the upstream's chunks pass as they arrive (a flag's footnote, "not
fact-checked", comes as one more piece of text before the result); the policies that never stream unchecked
text (``hold``, ``rewrite``, ``block``, or ``on_unchecked: block``) get the policy's text whole at the end, as
they would after a check: the reply itself, or the refusal. What waits is bounded by its bytes as a checked
stream's is (guard/chat_chunks.py, issue 57 item 2): past four times what the guard keeps of a streamed answer
the stream ends with an ``answer_too_long`` error; of an answer that streams, what is kept for the result stops
at what the guard keeps."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from factdebate.guard.call import finish
from factdebate.guard.overload import overloaded_result
from factdebate.guard.stream_policy import kept_chars
from factdebate.server.guard_prepare import public_result
from factdebate.server.guard_upstream import SSEEvent, error_body

if TYPE_CHECKING:
    from factdebate.server.guard_stream import Relay

_HEAD = ("id", "created", "model", "system_fingerprint")


def _text_of(chunk: dict[str, Any]) -> str:
    choices = chunk.get("choices") or []
    first = choices[0] if choices and isinstance(choices[0], dict) else {}
    delta = first.get("delta") if isinstance(first.get("delta"), dict) else {}
    content = delta.get("content") if delta else None
    return content if isinstance(content, str) else ""


async def overloaded_frames(relay: Relay, first: SSEEvent, reader: asyncio.Task[None], frame: Any, done: bytes,
                            ping: bytes) -> AsyncGenerator[bytes, None]:
    """The stream's bytes; however it ends (the caller gone included), the upstream's reading ends with it."""
    try:
        async for out in _frames(relay, first, frame, done, ping):
            yield out
    finally:
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)


async def _frames(relay: Relay, first: SSEEvent, frame: Any, done: bytes, ping: bytes) -> AsyncGenerator[bytes, None]:
    begun = relay.begun
    why = begun.admission.overloaded
    assert why is not None
    options = begun.resolved
    streams = options.policy in ("annotate", "flag") and options.on_unchecked != "block"
    head: dict[str, Any] = {}
    text: list[str] = []
    held_end: list[bytes] = []  # the upstream's closing chunks, after the footnote or the whole text
    keep, limit = kept_chars(begun.settings), 4 * kept_chars(begun.settings)
    held = kept = 0  # bytes of the chunks waiting; characters of the text kept for the result
    quiet_s = relay.prepared.host.service.config.stream_ping_seconds
    event: SSEEvent | None = first
    while True:
        if event is not None:
            chunk = event.json()
            if chunk is not None and isinstance(chunk.get("error"), dict):
                yield frame({"error": chunk["error"]})
                return
            if chunk is not None:
                head = head or {key: chunk[key] for key in _HEAD if key in chunk}
                piece = _text_of(chunk)
                piece = piece if not streams else piece[:max(0, keep - kept)]  # it went out whole
                text.append(piece)
                kept += len(piece)
                ends = any(isinstance(c, dict) and c.get("finish_reason") for c in chunk.get("choices") or [])
                if ends or not chunk.get("choices"):
                    held_end.append(event.raw)
                    held += len(event.raw)
                elif streams:
                    yield event.raw
                else:
                    held += len(event.raw)
                if held > limit:
                    yield frame(error_body(f"the upstream model's answer sent more than {limit} bytes, which "
                                           f"policy {options.policy!r} (on_unchecked {options.on_unchecked!r}) "
                                           "keeps until the end (four times what the guard keeps of a streamed "
                                           "answer's text: guard.max_message_chars)", "server_error",
                                           "answer_too_long"))
                    return
        try:
            async with asyncio.timeout(quiet_s):
                kind, item = await relay.queue.get()
        except TimeoutError:
            yield ping
            event = None
            continue
        if kind == "event":
            relay.room.release()
            event = item
            continue
        if kind == "error":
            yield frame(item.body)
            return
        if kind != "end":
            event = None
            continue
        answer = "".join(text)
        result = overloaded_result(answer, options, why)
        begun.admission.charge(len(result.claims))
        result = await finish(begun, result, None, True)  # hidden, kept under the header's id
        base = {**head, "object": "chat.completion.chunk"}
        shown = result.text if not streams else result.text[len(answer):] if result.text.startswith(answer) else ""
        if shown:
            yield frame({**base, "choices": [{"index": 0, "delta": {"content": shown}, "finish_reason": None}]})
        for raw in held_end:
            yield raw
        yield frame({**base, "choices": [], "factdebate": public_result(result)})
        yield done
        return
