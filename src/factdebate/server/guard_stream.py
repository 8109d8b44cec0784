"""The chat guard's stream: the upstream's chunks passed on as they arrive, the answer's text fed to a
:class:`~factdebate.guard.StreamingCheck` on the way (sentences are checked while the rest is written), and
after the answer one more chunk before ``data: [DONE]`` whose ``factdebate`` field holds the result.

That chunk has ``choices: []``, as a usage chunk does, so a client that knows nothing of it reads nothing
from it. With ``X-Factdebate-Verdicts: each`` every claim's verdict also comes as such a chunk
(``factdebate_claim``) as soon as it is decided. What each policy does to the stream:

- ``annotate``: every chunk passes as it arrives; the first time to token is the upstream's.
- ``flag``: the same, except that the chunk that ends the answer (its ``finish_reason``, and a usage chunk
  after it) is held until the check is done, so that the footnotes come as one more piece of the text.
- ``hold``: the upstream's chunks are held; the text goes out part by part (one chunk each) as the library
  releases it (each part once its claims have their first tier's verdict, a refuted sentence replaced by a
  notice: guard/hold.py), then the footnotes, then the upstream's closing chunks without their text.
- ``rewrite``, ``block``, and any policy with ``on_unchecked: block``: the answer is held back whole (keep-alive
  comments meanwhile) and what the policy leaves is sent after the check: the text as one chunk, then the
  upstream's closing chunks. Text already shown cannot be taken back, so these never stream it first.

What text goes out when is the library's (guard/stream_policy.py's ``GuardedStream``, which a Python caller
uses through ``guard_stream``); the relay keeps the upstream's chunks, their order and their ends.

A stream always ends, and ends everything it started: any failure on the way (the upstream's, or the relay's
own) is one more chunk in OpenAI's error shape, and the run slot is given back. At most ``RELAY_EVENTS`` of
the upstream's events wait for the caller: a caller that reads slowly, or not at all, holds the upstream's
reading back (and through TCP the upstream's writing) rather than filling the memory. A caller that leaves
ends the upstream's request and the check at once (Starlette's response notices the disconnect while the
stream waits, so this holds during a silent check too). An answer longer than ``guard.max_message_chars`` is
checked as far as a whole check of it is (guard/check.py's ``checked_length``) and its rest is one unchecked
claim, as on every door, whatever the policy: the policies that hold the answer back keep its text in the
check only (the upstream's chunks wait without it), and under ``hold`` the rest goes out at the end, marked
unchecked, as ``guard_stream()`` shows it. What is kept of the text is bounded (guard/stream_policy.py's
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

from starlette.requests import Request
from starlette.responses import Response

from factdebate.guard.call import finish, hidden_claim
from factdebate.guard.policy import no_text_result, stream_mode
from factdebate.guard.stream import StreamingCheck
from factdebate.guard.stream_policy import GuardedStream, kept_chars
from factdebate.guard.types import GuardResult
from factdebate.server.guard_host import Prepared
from factdebate.server.guard_prepare import STOPPING, disconnected, openai_error, public_result, upstream_error
from factdebate.server.guard_upstream import SSEEvent, UpstreamError, error_body, passed_on_error
from factdebate.server.routes import _SlotStream
from factdebate.util.redact import hide_endpoints

log = logging.getLogger("factdebate.server")
VERDICTS_HEADER = "X-Factdebate-Verdicts"
DONE = b"data: [DONE]\n\n"
PING = b": checking\n\n"  # an SSE comment: clients skip it, proxies see the connection alive
_HEAD = ("id", "object", "created", "model", "system_fingerprint", "service_tier")
RELAY_EVENTS = 64  # the upstream's events read ahead of the caller, at most
MAX_TOOL_NAMES = 64  # tool call names kept to say what passed unchecked (they are counted all the same)


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
    return _SlotStream(relay.frames(item, reader), admission.release)


async def _stop(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and wait until it has closed what it holds (the upstream's connection)."""
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


class AnswerTooLong(Exception):
    """An answer a holding policy cannot hold: longer than the check reads."""


class Relay:
    """One stream's passage from the upstream to the caller."""

    def __init__(self, prepared: Prepared, each: bool) -> None:
        self.prepared, self.each = prepared, each
        self.begun = prepared.begun
        resolved = prepared.resolved
        mode = stream_mode(resolved.policy, resolved.on_unchecked)
        self.buffer = mode == "whole"
        self.hold_end = mode == "footnote"  # the footnotes go before the chunk that ends the answer
        self.hold_back = mode == "hold_back"  # the text goes out as the check releases it
        self.stream: GuardedStream | None = None
        self.last = ""  # the text the policy shows after the answer (footnotes, the revision, the refusal)
        self.role_sent = not (self.buffer or self.hold_back)  # else the upstream's role went out with its text
        self.holding = False  # past the end of the first choice under flag: chunks wait for the check
        self.held: list[dict[str, Any]] = []
        self.head: dict[str, Any] = {}
        self.spoke = False  # the answer has some text (which the check keeps, up to kept_chars: not kept here)
        self.tools: list[str] = []  # the names of the reply's tool calls (the first MAX_TOOL_NAMES)
        self.tool_calls = 0
        self.passed: set[str] = set()
        self.choices = 1
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()  # events (bounded by room), verdicts, ends
        self.room = asyncio.Semaphore(RELAY_EVENTS)  # taken by each upstream event queued, given back when sent
        self.held_limit = 4 * kept_chars(prepared.settings)  # bytes of chunks held besides the answer's text
        self.held_bytes = 0
        self.decided = 0  # claims whose verdict is in: what a caller who leaves has had checked
        self.wrote_at = 0.0  # the loop's time of the last bytes written (frames)
        self.stopping = prepared.host.service.stopping  # the server's stop (shutdown.py): the stream ends, said

    async def frames(self, first: SSEEvent, reader: asyncio.Task[None]) -> AsyncGenerator[bytes, None]:
        """The stream's bytes, and when each went out (:attr:`wrote_at`: the keep-alive counts from it)."""
        loop = asyncio.get_running_loop()
        self.wrote_at = loop.time()
        frames = self._frames(first, reader)
        try:
            async for out in frames:
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
        check: StreamingCheck | None = None
        try:
            prepared = self.prepared
            host, begun = prepared.host, self.begun
            sinks, calls = host.sinks()
            check = StreamingCheck(begun.settings, host.service.resources(begun.settings), options=begun.options,
                                   question=begun.question, sinks=sinks or None,
                                   reviser=begun.reviser, caller=host.caller,
                                   messages=begun.messages)
            self.stream = GuardedStream(check, keep=kept_chars(prepared.settings))
            tasks.append(asyncio.create_task(self._verdicts(check)))
            tasks.append(asyncio.create_task(self._stop_on_shutdown()))
            releases = asyncio.create_task(self._releases(self.stream))
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
                    yield frame({**self.head, "choices": [], "factdebate_claim": item})
                elif kind == "text":
                    yield self._text_frame(item)
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
                        yield failure_frame(f"the fact check failed: {type(exc).__name__}: "
                                            f"{hide_endpoints(str(exc))}", "check_failed")
                        return
                    if self.spoke:  # (an answer without text had no check to wait for)
                        # The last verdicts and released text are queued before the result goes out.
                        await asyncio.gather(tasks[1], releases)
                        while not self.queue.empty():
                            kind, item = self.queue.get_nowait()
                            if kind == "verdict":
                                yield frame({**self.head, "choices": [], "factdebate_claim": item})
                            elif kind == "text":
                                yield self._text_frame(item)
                    result = await finish(self.begun, result, calls, True)  # hidden, kept under the header's id
                    for out in self._closing(result):
                        yield out
                    yield DONE
                    return
        except AnswerTooLong as exc:
            yield failure_frame(str(exc), "answer_too_long")
        except Exception as exc:  # a fault of the relay's own: the caller is told, the details go to the log
            log.error("a guard stream failed", exc_info=exc)
            yield failure_frame(f"the guard's stream failed ({type(exc).__name__}); see the server log",
                                "stream_failed")
        finally:
            if check is not None:
                check.cancel()  # a client gone (or an error) leaves nothing checking on; after finish() a no-op
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

    async def _verdicts(self, check: StreamingCheck) -> None:
        """Counts each claim as it is decided; with ``X-Factdebate-Verdicts: each`` it goes out too."""
        async for claim in check.verdicts():
            self.decided += 1
            if self.each:
                self.queue.put_nowait(("verdict", hidden_claim(claim).model_dump(mode="json")))

    async def _releases(self, stream: GuardedStream) -> None:
        """The text a hold lets go, as the check releases it (nothing under the other policies)."""
        async for text in stream.released():
            self.queue.put_nowait(("text", text))

    def _text_frame(self, text: str) -> bytes:
        delta = {"content": text} if self.role_sent else {"role": "assistant", "content": text}
        self.role_sent = True
        return frame({**self.head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})

    async def _finish(self, check: StreamingCheck) -> GuardResult:
        passed = sorted(self.passed)
        if self.tool_calls:
            passed.insert(0, f"{self.tool_calls} tool call(s) in the reply, not checked: {', '.join(self.tools)[:300]}")
        if self.choices > 1:
            passed.append(f"choices 2 to {self.choices}: the upstream model streamed more answers than asked for "
                          "(n = 1); they were left out, unchecked")
        if not self.spoke:
            check.cancel()  # nothing to check, and nothing held to release
            result = no_text_result(self.begun.resolved, passed, called=bool(self.tool_calls or any(
                p.startswith("a function call in the reply") for p in passed)))
            self.last = result.text if self.buffer else ""
        else:
            assert self.stream is not None
            self.last, result = await self.stream.finish()
            result = result.model_copy(update={"passed_through": [*result.passed_through, *passed]})
        self.begun.admission.charge(len(result.claims))
        return result

    def _pass(self, event: SSEEvent) -> list[bytes]:
        """What of one upstream event goes out now (its raw bytes, untouched, unless the policy holds it)."""
        chunk = event.json()
        if chunk is None:
            return [] if self.buffer or self.holding or self.hold_back else [event.raw]
        if isinstance(chunk.get("error"), dict):
            self.queue.put_nowait(("error", passed_on_error(502, {"error": chunk["error"]})))
            return []
        if not self.head:
            self.head = {key: chunk[key] for key in _HEAD if key in chunk}
            self.head["object"] = "chat.completion.chunk"
        raw = event.raw
        if others := [c for c in chunk.get("choices") or [] if not _first_choice(c)]:
            # A stream is checked as one answer (n > 1 is refused for streams): another choice the upstream
            # sends anyway is left out, never passed on unchecked.
            self.choices = max([self.choices, *(max(2, c["index"] + 1) if isinstance(c, dict)
                                                and isinstance(c.get("index"), int) else 2 for c in others)])
            chunk = {**chunk, "choices": [c for c in chunk["choices"] if _first_choice(c)]}
            if not chunk["choices"] and not chunk.get("usage"):
                return []
            raw = frame(chunk)
        ending = False
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta")
            delta = delta if isinstance(delta, dict) else {}
            content = delta.get("content")
            if isinstance(content, str) and content:
                # Past guard.max_message_chars the check reads no more, yet keeps the rest (up to kept_chars), as a
                # whole check holds its whole reply: its unchecked claim marks that rest, the same on every door.
                self.spoke = self.spoke or not content.isspace()
                assert self.stream is not None
                self.stream.feed(content)  # what it gives back is this chunk's text: the chunk passes whole
            self._note(delta)
            ending = ending or bool(choice.get("finish_reason"))
        if self.buffer or self.hold_back:
            # Their text goes out as the check leaves it (the policy's text, or released as checked under hold),
            # an answer past guard.max_message_chars too (checked as far as a whole check is, the rest unchecked,
            # as on every door): the check keeps the text, and only the rest of a chunk waits here.
            if (rest := _without_text(chunk, blocked=None)) is not None:
                self._hold(rest)
            return []
        if self.holding:
            self._hold(chunk)
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
        return [raw]

    def _hold(self, chunk: dict[str, Any]) -> None:
        """Keep ``chunk`` (no text of the answer in it, or past the answer's end under flag) until the check is
        done; what is held is bounded by its bytes (:attr:`held_limit`), whatever the chunks' count."""
        self.held.append(chunk)
        self.held_bytes += len(json.dumps(chunk, ensure_ascii=False))
        if self.held_bytes > self.held_limit:
            resolved = self.prepared.resolved
            raise AnswerTooLong(f"the upstream model's answer sent more than {self.held_limit} bytes besides its "
                                f"text (four times what the guard keeps of a streamed answer's text: "
                                f"guard.max_message_chars), which policy {resolved.policy!r} (on_unchecked "
                                f"{resolved.on_unchecked!r}) keeps until the end")

    def _note(self, delta: dict[str, Any]) -> None:
        calls = delta.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            if name:
                self.tool_calls += 1
                if len(self.tools) < MAX_TOOL_NAMES:
                    self.tools.append(str(name)[:256])
        if delta.get("refusal"):
            self.passed.add("the model's refusal message, not checked")
        if delta.get("audio"):
            self.passed.add("audio in the reply, not checked")
        if delta.get("function_call"):
            self.passed.add("a function call in the reply, not checked")

    def _closing(self, result: GuardResult) -> list[bytes]:
        out: list[bytes] = []
        if self.last:  # the policy's closing text: the footnotes, or (held back whole) the reply it leaves
            out.append(self._text_frame(self.last))
        if self.buffer or self.hold_back:  # their text went out as the policy left it: the rest without it
            block_finish = self.prepared.settings.guard.block_finish_reason
            blocked = block_finish if result.action_taken == "blocked" else None
            out += [frame(chunk) for chunk in (_without_text(c, blocked) for c in self.held) if chunk is not None]
        else:
            out += [frame(chunk) for chunk in self.held]
        out.append(frame({**self.head, "choices": [], "factdebate": public_result(result)}))
        return out


def _first_choice(choice: Any) -> bool:
    """Whether a streamed choice is the answer's: an object whose ``index`` is 0 or left out. Anything else
    (another index, a null one, a choice that is not an object) is not what the check reads."""
    return isinstance(choice, dict) and choice.get("index", 0) == 0


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


def _without_text(chunk: dict[str, Any], blocked: str | None) -> dict[str, Any] | None:
    """A held chunk with the first choice's text taken out (it went out whole, as the policy left it); a
    blocked reply loses its tool calls too and ends as ``blocked`` says (``guard.block_finish_reason``). None
    when nothing is left."""
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
            finish = blocked
        if delta or finish:
            choices.append({**choice, "delta": delta, "finish_reason": finish})
    if not choices and not chunk.get("usage"):
        return None
    return {**chunk, "choices": choices}
