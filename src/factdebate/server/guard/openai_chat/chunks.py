"""What a policy does to an OpenAI chat stream, chunk by chunk: the chat proxy's relay
(server/guard/openai_chat/stream.py) reads the upstream's events, hands each chunk here as a dict, and frames and writes
what comes back; which chunks wait for the check, where the footnotes go, how a blocked stream ends and what
passed unchecked are decided here, with the text's policy in
:class:`~factdebate.guard_engine.stream_policy.GuardedStream`.

- ``annotate``: every chunk goes out as it came (``feed`` answers None: its bytes untouched).
- ``flag``: the same, except that the chunk that ends the answer (its ``finish_reason``, and a usage chunk after
  it) waits for the check, so that the footnotes come as one more piece of the text before it.
- ``hold``: the chunks wait; the text goes out part by part as the check releases it (:meth:`text_chunk`), then
  the footnotes, then the upstream's closing chunks without their text (:meth:`closing`).
- ``rewrite``, ``block``, and any policy with ``on_unchecked: block``: the answer waits whole; after the check
  the text the policy leaves goes out as one chunk, then the closing chunks (a blocked reply's without its tool
  calls, ending as ``guard.block_finish_reason`` says). A refused JSON answer's chunk carries the refusal's
  words in ``refusal`` beside its JSON error object, as the whole answer's message does (answer.py).

What waits besides the text is bounded by its bytes (``held_limit``); past it :class:`AnswerTooLong`.

Every chunk that goes out, whatever the policy, passes chunk_scrub.py's scrub in the order it goes out: a
secret the upstream writes a few characters a chunk reaches the caller masked (its texts are scrubbed over a
window that spans the chunks; what the window holds goes out before the chunk that ends the answer)."""

from __future__ import annotations

import json
from typing import Any, Protocol

from factdebate.engine import GuardedStream, GuardResult
from factdebate.server.guard.openai_chat.chunk_scrub import ChunkScrub
from factdebate.server.guard.result_view import json_refusal

MAX_TOOL_NAMES = 64  # tool call names kept to say what passed unchecked (they are counted all the same)
_HEAD = ("id", "object", "created", "model", "system_fingerprint", "service_tier")


class AnswerTooLong(Exception):
    """An answer a holding policy cannot hold: more besides its text than the stream keeps."""


class Policy(Protocol):
    """What a stream's chunks read of the check's resolved options: the policy an answer is held under."""

    @property
    def policy(self) -> str: ...

    @property
    def on_unchecked(self) -> str: ...


class ChatChunks:
    """One streamed chat answer's chunks under its policy (the streaming check's ``stream``, the options it was
    resolved with). ``feed`` each upstream chunk: None when it goes out as it came, else the chunks to send now
    (none: it waits); :meth:`text_chunk` frames text the policy shows; :meth:`finish` after the last chunk gives
    the result and the text to show last; :meth:`closing` the chunks that end the stream before the result."""

    def __init__(self, stream: GuardedStream, resolved: Policy, *, block_finish: str,
                 held_limit: int) -> None:
        self.stream, self.resolved, self.block_finish, self.held_limit = stream, resolved, block_finish, held_limit
        mode = stream.mode
        self.buffer = mode == "whole"
        self.hold_end = mode == "footnote"  # the footnotes go before the chunk that ends the answer
        self.hold_back = mode == "hold_back"  # the text goes out as the check releases it
        self.last = ""  # the text the policy shows after the answer (footnotes, the revision, the refusal)
        self.role_sent = not (self.buffer or self.hold_back)  # else the upstream's role went out with its text
        self.holding = False  # past the end of the first choice under flag: chunks wait for the check
        self.held: list[dict[str, Any]] = []
        self.held_bytes = 0
        self.head: dict[str, Any] = {}
        self.spoke = False  # the answer has some text (which the check keeps, up to kept_chars: not kept here)
        self.tools: list[str] = []  # the names of the reply's tool calls (the first MAX_TOOL_NAMES)
        self.tool_calls = 0
        self.passed: set[str] = set()
        self.choices = 1
        self.scrub = ChunkScrub()  # what goes out, scrubbed across chunks in the order it goes out

    @property
    def passes_comments(self) -> bool:
        """Whether the upstream's comments (its keep-alives) go out, as the relay's own: not while chunks wait."""
        return not (self.buffer or self.holding or self.hold_back)

    def _scrubbed(self, chunks: list[dict[str, Any]], *, ends: bool = False) -> list[dict[str, Any]]:
        """``chunks`` as they go out, scrubbed (``ends``: the answer's text ends with them)."""
        out: list[dict[str, Any]] = []
        for chunk in chunks:
            scrubbed = self.scrub.chunk(chunk, ends=ends)
            out += [chunk] if scrubbed is None else scrubbed
        return out

    def rest(self) -> list[dict[str, Any]]:
        """The text the scrub's windows still hold, as a chunk to send (none when they hold nothing): before the
        chunks that end the stream, an error's included."""
        rest = self.scrub.rest()
        if not rest:
            return []
        delta = rest if self.role_sent else {"role": "assistant", **rest}
        self.role_sent = True
        return [{**self.head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}]

    def feed(self, chunk: dict[str, Any]) -> list[dict[str, Any]] | None:
        """What of one upstream chunk goes out now: None, the chunk untouched; else the chunks to send (each
        scrubbed on its way: :attr:`scrub`)."""
        if not self.head:
            self.head = {key: chunk[key] for key in _HEAD if key in chunk}
            self.head["object"] = "chat.completion.chunk"
        changed = False
        if others := [c for c in chunk.get("choices") or [] if not _first_choice(c)]:
            # A stream is checked as one answer (n > 1 is refused for streams): another choice the upstream
            # sends anyway is left out, never passed on unchecked.
            self.choices = max([self.choices, *(max(2, c["index"] + 1) if isinstance(c, dict)
                                                and isinstance(c.get("index"), int) else 2 for c in others)])
            chunk = {**chunk, "choices": [c for c in chunk["choices"] if _first_choice(c)]}
            if not chunk["choices"] and not chunk.get("usage"):
                return []
            changed = True
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
                self._hold(chunk)
                return []
            now, later = split
            self._hold(later)
            return self._scrubbed([now], ends=True)  # the answer's last text: with what the scrub held
        if not changed:
            return self.scrub.chunk(chunk)
        return self._scrubbed([chunk])

    def _hold(self, chunk: dict[str, Any]) -> None:
        """Keep ``chunk`` (no text of the answer in it, or past the answer's end under flag) until the check is
        done; what is held is bounded by its bytes (:attr:`held_limit`), whatever the chunks' count."""
        self.held.append(chunk)
        self.held_bytes += len(json.dumps(chunk, ensure_ascii=False))
        if self.held_bytes > self.held_limit:
            raise AnswerTooLong(f"the upstream model's answer sent more than {self.held_limit} bytes besides its "
                                f"text (four times what the guard keeps of a streamed answer's text: "
                                f"guard.max_message_chars), which policy {self.resolved.policy!r} (on_unchecked "
                                f"{self.resolved.on_unchecked!r}) keeps until the end")

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

    def text_chunk(self, text: str) -> dict[str, Any]:
        """A chunk of text the policy shows (released under hold, the footnotes, the policy's whole text), scrubbed
        whole with what the content's window held before it."""
        text = self.scrub.text(text)
        delta = {"content": text} if self.role_sent else {"role": "assistant", "content": text}
        self.role_sent = True
        return {**self.head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}

    async def finish(self) -> GuardResult:
        """The check's result after the last chunk, with what passed unchecked; :attr:`last` the text to show
        after everything released. An answer without text had nothing to check (a tool call alone passes)."""
        passed = sorted(self.passed)
        if self.tool_calls:
            passed.insert(0, f"{self.tool_calls} tool call(s) in the reply, not checked: {', '.join(self.tools)[:300]}")
        if self.choices > 1:
            passed.append(f"choices 2 to {self.choices}: the upstream model streamed more answers than asked for "
                          "(n = 1); they were left out, unchecked")
        if not self.spoke:
            called = bool(self.tool_calls) or "a function call in the reply, not checked" in self.passed
            result = self.stream.without_text(passed, called=called)  # nothing to check, nothing held to release
            self.last = result.text if self.buffer else ""
            return result
        self.last, result = await self.stream.finish()
        return result.model_copy(update={"passed_through": [*result.passed_through, *passed]})

    def closing(self, result: GuardResult) -> list[dict[str, Any]]:
        """The chunks that end the stream, before the one with the result: the policy's closing text (the
        footnotes, or the reply it leaves when held back whole), then the chunks that waited (without their
        text where it went out as the policy left it; a blocked reply's without its tool calls)."""
        out = self.rest()  # the answer's end the scrub held back, before the footnotes
        if self.last:
            out.append(self.text_chunk(self.last))
            if (refusal := json_refusal(result)) is not None:  # beside the JSON error object, as a plain answer's
                out[-1]["choices"][0]["delta"]["refusal"] = self.scrub.text(refusal, "refusal")
        if self.buffer or self.hold_back:
            blocked = self.block_finish if result.action_taken == "blocked" else None
            held = [chunk for chunk in (_without_text(c, blocked) for c in self.held) if chunk is not None]
        else:
            held = self.held
        return out + self._scrubbed(held)


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
