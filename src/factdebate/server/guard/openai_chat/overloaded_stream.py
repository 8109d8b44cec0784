"""A streamed chat reply the service had no room to check (``guard.on_overload: pass``, server/ops/shedding.py):
relayed without a check, then the result chunk, whose one unchecked claim says why (guard_engine/overload.py). What
each chunk's fate is under the policy is server/guard/openai_chat/overloaded_chunks.py's; this relay reads the
upstream's events, frames and writes what it is told, with the keep-alive."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from factdebate.engine import Begun
from factdebate.server.guard.openai_chat.answer import result_view
from factdebate.server.guard.openai_chat.chunks import AnswerTooLong
from factdebate.server.guard.openai_chat.overloaded_chunks import OverloadedChunks
from factdebate.server.guard.upstream import SSEEvent, error_body


async def overloaded_frames(begun: Begun, events: asyncio.Queue[tuple[str, Any]], room: asyncio.Semaphore,
                            quiet_s: float, first: SSEEvent, reader: asyncio.Task[None], frame: Any, done: bytes,
                            ping: bytes) -> AsyncGenerator[bytes, None]:
    """The stream's bytes; however it ends (the caller gone included), the upstream's reading ends with it.
    ``events`` and ``room`` are the relay's (server/guard/openai_chat/stream.py): what the upstream's reader queued, and
    the room each queued event took; ``quiet_s``: a keep-alive after that long with nothing written. Given
    these rather than the relay, so this module and the relay's do not import each other."""
    try:
        async for out in _frames(begun, events, room, quiet_s, first, frame, done, ping):
            yield out
    finally:
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)


async def _frames(begun: Begun, events: asyncio.Queue[tuple[str, Any]], room: asyncio.Semaphore, quiet_s: float,
                  first: SSEEvent, frame: Any, done: bytes, ping: bytes) -> AsyncGenerator[bytes, None]:
    chunks = OverloadedChunks(begun.resolved, begun.kept_chars)
    held_end: list[dict[str, Any]] = []  # the upstream's closing chunks, as they came
    event: SSEEvent | None = first
    while True:
        if event is not None:
            chunk = event.json()
            if chunk is not None and isinstance(chunk.get("error"), dict):
                for sent in chunks.rest():
                    yield frame(sent)
                yield frame({"error": chunk["error"]})
                return
            if chunk is not None:
                try:
                    fate = chunks.feed(chunk, len(event.raw))
                except AnswerTooLong as exc:
                    yield frame(error_body(str(exc), "server_error", "answer_too_long"))
                    return
                if fate == "send":
                    out = chunks.out(chunk)  # (its texts scrubbed across chunks: chunk_scrub.py)
                    if out is None:
                        yield event.raw
                    for sent in out or []:
                        yield frame(sent)
                elif fate == "end":
                    held_end.append(chunk)
        try:
            async with asyncio.timeout(quiet_s):
                kind, item = await events.get()
        except TimeoutError:
            yield ping
            event = None
            continue
        if kind == "event":
            room.release()
            event = item
            continue
        if kind == "error":
            for sent in chunks.rest():  # the text shown so far ends whole, then the error
                yield frame(sent)
            yield frame(item.body)
            return
        if kind != "end":
            event = None
            continue
        result = begun.overloaded_result(chunks.answer)
        begun.admission.charge(len(result.claims))
        result = await begun.finish(result, None, True)  # hidden, kept under the header's id
        for sent in chunks.closing(result, held_end):
            yield frame(sent)
        yield frame({**chunks.head, "object": "chat.completion.chunk", "choices": [],
                     "factdebate": result_view(result)})
        yield done
        return
