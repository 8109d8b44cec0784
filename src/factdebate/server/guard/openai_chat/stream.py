"""The chat guard's stream: the upstream's chunks passed on as they arrive, the answer's text fed to a
:class:`~factdebate.guard_engine.StreamingCheck` on the way (sentences are checked while the rest is written), and
after the answer one more chunk before ``data: [DONE]`` whose ``factdebate`` field holds the result.

That chunk has ``choices: []``, as a usage chunk does, so a client that knows nothing of it reads nothing
from it. With ``X-Factdebate-Verdicts: each`` every claim's verdict also comes as such a chunk
(``factdebate_claim``) as soon as it is decided. What each policy does to the stream:

- ``annotate``: every chunk passes as it arrives; the first time to token is the upstream's. (Under every
  policy the text that goes out is scrubbed across chunks, chunk_scrub.py: the end of a text that could
  still become a secret, a host or a key waits for the next chunk's text, or the end.)
- ``flag``: the same, except that the chunk that ends the answer (its ``finish_reason``, and a usage chunk
  after it) is held until the check is done, so that the footnotes come as one more piece of the text.
- ``hold``: the upstream's chunks are held; the text goes out part by part (one chunk each) as the library
  releases it (each part once its claims have their first tier's verdict, a refuted sentence replaced by a
  notice: guard_engine/hold.py), then the footnotes, then the upstream's closing chunks without their text.
- ``rewrite``, ``block``, and any policy with ``on_unchecked: block``: the answer is held back whole (keep-alive
  comments meanwhile) and what the policy leaves is sent after the check: the text as one chunk, then the
  upstream's closing chunks. Text already shown cannot be taken back, so these never stream it first.

The policy is the library's: what text goes out when (guard_engine/stream_policy.py's ``GuardedStream``, which a
Python caller uses through ``factdebate.aguard_stream``), and which of the upstream's chunks wait, where the
footnotes go, how a blocked stream ends and what passed unchecked (openai_chat/chunks.py's ``ChatChunks``). The
relay reads the upstream's events, hands each chunk there, and frames and writes what comes back.

A stream always ends, and ends everything it started: any failure on the way (the upstream's, or the relay's
own) is one more chunk in OpenAI's error shape, and the run slot is given back. At most ``RELAY_EVENTS`` of
the upstream's events wait for the caller: a caller that reads slowly, or not at all, holds the upstream's
reading back (and through TCP the upstream's writing) rather than filling the memory. A caller that leaves
ends the upstream's request and the check at once (Starlette's response notices the disconnect while the
stream waits, so this holds during a silent check too). An answer longer than ``guard.max_message_chars`` is
checked as far as a whole check of it is (guard_engine/check.py's ``checked_length``) and its rest is one unchecked
claim, as on every door, whatever the policy: the policies that hold the answer back keep its text in the
check only (the upstream's chunks wait without it), and under ``hold`` the rest goes out at the end, marked
unchecked, as ``guard_stream()`` shows it. What is kept of the text is bounded (guard_engine/stream_policy.py's
``kept_chars``, twice ``guard.max_message_chars``): past it the relay passes the text on under ``annotate`` and
``flag`` and keeps none of it; the policies that hold the answer back end it there, with a notice. The
upstream's chunks held besides the text (tool calls, the ending) are bounded by their bytes (four times that).
Whatever is held, a keep-alive comment goes out whenever nothing was written for ``stream_ping_seconds``;
when the server stops (shutdown.py's ``Stopping``) the stream ends with a ``stream_failed`` chunk.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator
from typing import Any

from prometheus_client import Histogram
from starlette.requests import Request
from starlette.responses import Response

from factdebate.engine import GuardedStream, GuardResult
from factdebate.server.admission import SlotStream
from factdebate.server.guard.host import Prepared
from factdebate.server.guard.openai_chat.answer import result_view
from factdebate.server.guard.openai_chat.chunks import AnswerTooLong, ChatChunks
from factdebate.server.guard.openai_chat.overloaded_stream import overloaded_frames
from factdebate.server.guard.prepare import STOPPING, disconnected, openai_error, upstream_error
from factdebate.server.guard.upstream import SSEEvent, UpstreamError, error_body, passed_on_error
from factdebate.util.observe import Watcher
from factdebate.util.scrub import hide_endpoints

log = logging.getLogger("factdebate.server")
VERDICTS_HEADER = "X-Factdebate-Verdicts"
DONE = b"data: [DONE]\n\n"
PING = b": checking\n\n"  # an SSE comment: clients skip it, proxies see the connection alive
RELAY_EVENTS = 64  # the upstream's events read ahead of the caller, at most


def frame(data: dict[str, Any]) -> bytes:
    # "replace": a lone surrogate from the upstream cannot fail the write (it becomes "?" in a JSON string)
    return b"data: " + json.dumps(data, ensure_ascii=False).encode("utf-8", "replace") + b"\n\n"


def failure_frame(message: str, code: str) -> bytes:
    return frame(error_body(message, "server_error", code))


async def stream_reply(prepared: Prepared, request: Request) -> Response:
    """The SSE answer, or the upstream's own error when it fails before its first chunk (nothing has been
    sent then, so the caller gets the upstream's status). One task does all the reading from the upstream,
    from the request on: ending it closes the upstream's connection, so an abandoned stream stops the
    upstream's writing too. A caller that leaves before the first chunk ends it as well."""
    each = request.headers.get(VERDICTS_HEADER, "").strip().lower() == "each"
    relay = Relay(prepared, each)
    admission = prepared.begun.admission
    body = prepared.body.upstream_body(prepared.settings.guard.max_tokens)
    reader = asyncio.create_task(relay.read(prepared.upstream.stream(body)))
    first = asyncio.ensure_future(relay.queue.get())
    gone = asyncio.ensure_future(disconnected(request))
    stop = asyncio.ensure_future(relay.stopping.wait())
    try:
        with prepared.begun.not_counted():  # the upstream's time to its first chunk is not the check's
            await asyncio.wait((first, gone, stop), return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        reader.cancel()
        admission.release()
        raise
    finally:
        gone.cancel()
        stop.cancel()
        arrived = first.done()
        if not arrived:
            first.cancel()
    if not arrived:  # the caller left, or the server stops, before the first chunk: nothing more to read
        await _stop(reader)
        admission.charge(0)
        admission.release()
        if relay.stopping.event.is_set():  # nothing sent yet: the plain request's answer
            return openai_error(503, STOPPING, "server_error", "server_shutting_down", headers={"Retry-After": "1"})
        return Response(status_code=499)
    kind, item = first.result()
    if kind != "event":
        await _stop(reader)
        admission.charge(0)
        admission.release()
        error = item if kind == "error" else UpstreamError(502, error_body("the upstream model's stream was empty"))
        return upstream_error(error)
    relay.room.release()
    return SlotStream(relay.frames(item, reader), admission.release)


async def _stop(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and wait until it has closed what it holds (the upstream's connection)."""
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


class Relay:
    """One stream's passage from the upstream to the caller."""

    def __init__(self, prepared: Prepared, each: bool) -> None:
        self.prepared, self.each = prepared, each
        self.begun = prepared.begun
        self.chunks: ChatChunks | None = None  # the policy over the upstream's chunks (chunks.py)
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()  # events (bounded by room), verdicts, ends
        self.room = asyncio.Semaphore(RELAY_EVENTS)  # taken by each upstream event queued, given back when sent
        self.decided = 0  # claims whose verdict is in: what a caller who leaves has had checked
        self.wrote_at = 0.0  # the loop's time of the last bytes written (frames)
        self.first_at = 0.0  # the loop's time the upstream's first event was read
        self.stopping = prepared.host.service.stopping  # the server's stop (shutdown.py): the stream ends, said

    async def frames(self, first: SSEEvent, reader: asyncio.Task[None]) -> AsyncGenerator[bytes, None]:
        """The stream's bytes, and when each went out (:attr:`wrote_at`: the keep-alive counts from it)."""
        loop = asyncio.get_running_loop()
        self.wrote_at = loop.time()
        frames = (self._frames(first, reader) if self.begun.admission.overloaded is None else  # no room: unchecked
                  overloaded_frames(self.begun, self.queue, self.room,
                                    self.prepared.host.service.config.stream_ping_seconds, first, reader, frame, DONE,
                                    PING))
        # the upstream's first chunk to ours (metrics.py)
        ttft: Histogram | None = self.prepared.host.service.metrics.ttft_added
        resolved = self.begun.resolved
        try:
            with Watcher.watched("guard_check", tier=resolved.tier, policy=resolved.policy):  # traces (util/observe.py)
                async for out in frames:
                    if ttft is not None and out is not PING:
                        ttft.observe(loop.time() - self.first_at)
                        ttft = None
                    yield out
                    self.wrote_at = loop.time()
        finally:
            await frames.aclose()  # closed with this one (the caller gone): its own ending runs now

    async def _frames(self, first: SSEEvent, reader: asyncio.Task[None]) -> AsyncGenerator[bytes, None]:
        """The stream's bytes. Whatever fails on the way ends it with an error chunk; however it ends (finished,
        failed, or closed because the caller left), the upstream's reading and the check stop with it. A
        keep-alive comment goes out whenever nothing was written for ``stream_ping_seconds``, whatever is held:
        under ``hold`` and ``block`` the upstream's chunks keep coming while none goes out, and a proxy's idle
        timeout would cut the answer."""
        loop = asyncio.get_running_loop()
        tasks: list[asyncio.Task[Any]] = [reader]
        stream: GuardedStream | None = None
        try:
            prepared = self.prepared
            host, begun = prepared.host, self.begun
            sinks, calls = host.sinks()
            stream = GuardedStream.of(begun, host.service.resources(begun.settings), sinks)
            self.chunks = chunks = ChatChunks(stream, begun.resolved,
                                              block_finish=begun.settings.guard.block_finish_reason,
                                              held_limit=4 * begun.kept_chars)
            tasks.append(asyncio.create_task(self._verdicts(stream)))
            tasks.append(asyncio.create_task(self._stop_on_shutdown()))
            releases = asyncio.create_task(self._releases(stream))
            tasks.append(releases)
            ping = host.service.config.stream_ping_seconds
            for out in self._pass(first):  # the event that came before the stream started
                yield out
            while True:
                quiet = loop.time() - self.wrote_at
                if quiet >= ping:  # events came and none went out (held), or nothing came: a keep-alive
                    yield PING
                    continue
                try:
                    # asyncio.timeout, not wait_for: wait_for (3.11) swallows a cancellation that comes as the
                    # queue hands an item over, and a caller gone while events kept coming was never let go.
                    async with asyncio.timeout(ping - quiet):
                        kind, item = await self.queue.get()
                except TimeoutError:
                    continue
                if kind == "event":
                    self.room.release()
                    for out in self._pass(item):
                        yield out
                elif kind == "verdict":
                    yield frame({**chunks.head, "choices": [], "factdebate_claim": item})
                elif kind == "text":
                    yield frame(chunks.text_chunk(item))
                elif kind == "error":
                    for chunk in chunks.rest():  # the text the scrub held back, then the error
                        yield frame(chunk)
                    yield frame(item.body)  # OpenAI clients raise on a chunk that is an error
                    return
                elif kind == "end":
                    finishing = asyncio.create_task(chunks.finish())
                    finishing.add_done_callback(lambda task: self.queue.put_nowait(("finished", task)))
                    tasks.append(finishing)
                elif kind == "finished":
                    finished: asyncio.Task[GuardResult] = item
                    try:
                        result = finished.result()
                    except Exception as exc:  # the check could not finish: said, never passed as checked
                        log.warning("a streamed guard check failed: %s: %s", type(exc).__name__, exc)
                        for chunk in chunks.rest():
                            yield frame(chunk)
                        yield failure_frame(f"the fact check failed: {type(exc).__name__}: "
                                            f"{hide_endpoints(str(exc))}", "check_failed")
                        return
                    self.begun.admission.charge(len(result.claims))
                    if chunks.spoke:  # (an answer without text had no check to wait for)
                        # The last verdicts and released text are queued before the result goes out.
                        await asyncio.gather(tasks[1], releases)
                        while not self.queue.empty():
                            kind, item = self.queue.get_nowait()
                            if kind == "verdict":
                                yield frame({**chunks.head, "choices": [], "factdebate_claim": item})
                            elif kind == "text":
                                yield frame(chunks.text_chunk(item))
                    result = await self.begun.finish(result, calls, True)  # hidden, kept under the header's id
                    for chunk in chunks.closing(result):
                        yield frame(chunk)
                    yield frame({**chunks.head, "choices": [], "factdebate": result_view(result)})
                    yield DONE
                    return
        except AnswerTooLong as exc:
            yield failure_frame(str(exc), "answer_too_long")
        except Exception as exc:  # a fault of the relay's own: the caller is told, the details go to the log
            log.error("a guard stream failed", exc_info=exc)
            yield failure_frame(f"the guard's stream failed ({type(exc).__name__}); see the server log",
                                "stream_failed")
        finally:
            if stream is not None:
                stream.check.cancel()  # a client gone (or an error) leaves nothing checking on; after finish() a no-op
            # left before the end: the claims decided so far are paid (after the end: its claims, charged then)
            self.begun.admission.charge(self.decided)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _stop_on_shutdown(self) -> None:
        """The server stopping ends the stream with an error chunk (``stream_failed``), not a cut."""
        await self.stopping.wait()
        self.queue.put_nowait(("error", UpstreamError(503, error_body(STOPPING, "server_error", "stream_failed"))))

    async def read(self, events: AsyncGenerator[SSEEvent, None]) -> None:
        """The upstream's events into the queue, then ``end``; ``error`` (an :class:`UpstreamError`) when it
        fails, whatever the failure. It waits for room in the queue before reading on, so a caller that does
        not read holds the upstream back. Cancelled, it closes the upstream's stream in this same task."""
        try:
            async for event in events:
                if event.data == "[DONE]":
                    break
                await self.room.acquire()
                self.first_at = self.first_at or asyncio.get_running_loop().time()
                self.queue.put_nowait(("event", event))
            self.queue.put_nowait(("end", None))
        except UpstreamError as exc:
            self.queue.put_nowait(("error", exc))
        except Exception as exc:  # the stream must end with an error, never wait for an end that cannot come
            log.error("reading the guard's upstream stream failed", exc_info=exc)
            self.queue.put_nowait(("error", UpstreamError(502, error_body(
                f"the guard could not read the upstream model's stream ({type(exc).__name__})", "server_error",
                "stream_failed"))))
        finally:
            try:
                await events.aclose()
            except Exception as exc:  # closing a stream that failed: nothing more to stop
                log.debug("closing the upstream's stream failed: %s", exc)

    async def _verdicts(self, stream: GuardedStream) -> None:
        """Counts each claim as it is decided; with ``X-Factdebate-Verdicts: each`` it goes out too."""
        async for claim in stream.check.verdicts():
            self.decided += 1
            if self.each:
                # why a claim's check failed says what failed, not where the operator's model server is
                shown = claim.model_copy(update={"reason": hide_endpoints(claim.reason)}) if claim.reason else claim
                self.queue.put_nowait(("verdict", shown.model_dump(mode="json")))

    async def _releases(self, stream: GuardedStream) -> None:
        """The text a hold lets go, as the check releases it (nothing under the other policies)."""
        async for text in stream.released():
            self.queue.put_nowait(("text", text))

    def _pass(self, event: SSEEvent) -> list[bytes]:
        """What of one upstream chunk goes out now: its raw bytes, untouched, unless the policy holds it or
        changes it or the scrub moves its text (chunks.py); an error chunk of the upstream's ends the
        stream with it. An event that is no chunk never goes out as the upstream wrote it: a comment (the
        upstream's keep-alive) becomes the relay's own (:data:`PING`) while chunks pass, and a ``data:`` that
        is not a JSON object is dropped."""
        assert self.chunks is not None
        chunk = event.json()
        if chunk is None:
            if event.data is not None:
                log.debug("the guard's upstream sent an event that is not a JSON object (%d bytes): dropped",
                          len(event.raw))
                return []
            return [PING] if self.chunks.passes_comments else []
        if isinstance(chunk.get("error"), dict):
            self.queue.put_nowait(("error", passed_on_error(502, {"error": chunk["error"]})))
            return []
        out = self.chunks.feed(chunk)
        return [event.raw] if out is None else [frame(c) for c in out]
