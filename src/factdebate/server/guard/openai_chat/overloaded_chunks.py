"""What a policy does to a streamed chat answer the service had no room to check (``guard.on_overload: pass``,
guard_engine/overload.py), chunk by chunk: the chat proxy's relay (overloaded_stream.py) hands each
upstream chunk here and writes what it is told, as it does a checked stream's with chunks.py.

Under ``annotate`` and ``flag`` the upstream's chunks pass as they arrive (a flag's footnote, "not
fact-checked", comes as one more piece of text before the result); the policies that never stream unchecked
text (``hold``, ``rewrite``, ``block``, or ``on_unchecked: block``) wait, and get the policy's text whole at the
end, as they would after a check: the reply itself, or the refusal. What waits is bounded by its bytes as a
checked stream's is: past four times what the guard keeps of a streamed answer,
:class:`~factdebate.server.guard.openai_chat.chunks.AnswerTooLong`;
of an answer that streams, what is kept for the result
stops at what the guard keeps. What goes out is scrubbed across chunks as a checked stream's is
(chunk_scrub.py): :meth:`OverloadedChunks.out` for each chunk sent as it comes,
:meth:`OverloadedChunks.closing` for the end."""

from __future__ import annotations

from typing import Any, Literal

from factdebate.engine import GuardResult
from factdebate.server.guard.openai_chat.chunk_scrub import ChunkScrub
from factdebate.server.guard.openai_chat.chunks import AnswerTooLong, Policy

Fate = Literal["send", "end", "wait"]  # goes out now as it came; goes out at the end; its text is in the result
_HEAD = ("id", "created", "model", "system_fingerprint")


class OverloadedChunks:
    """One unchecked streamed answer under its policy (``keep``: the characters the guard keeps of a streamed
    answer's text). :meth:`feed` each upstream chunk with its size in bytes; :attr:`answer` is the text kept for
    the result; :meth:`shown` the text to show last, once the result is made."""

    def __init__(self, resolved: Policy, keep: int) -> None:
        self.resolved, self.keep, self.limit = resolved, keep, 4 * keep
        self.streams = resolved.policy in ("annotate", "flag") and resolved.on_unchecked != "block"
        self.head: dict[str, Any] = {}
        self.text: list[str] = []
        self.kept = 0  # characters of the text kept for the result
        self.held = 0  # bytes of the chunks waiting
        self.scrub = ChunkScrub()

    def feed(self, chunk: dict[str, Any], size: int) -> Fate:
        """Where the chunk goes: out now, out at the end (the upstream's closing chunks, after the footnote or the
        whole text), or nowhere but the result's text. :class:`AnswerTooLong` past the bytes bound."""
        self.head = self.head or {key: chunk[key] for key in _HEAD if key in chunk}
        piece = _text_of(chunk)
        piece = piece if not self.streams else piece[:max(0, self.keep - self.kept)]  # it went out whole
        self.text.append(piece)
        self.kept += len(piece)
        ends = any(isinstance(c, dict) and c.get("finish_reason") for c in chunk.get("choices") or [])
        fate: Fate = "end" if ends or not chunk.get("choices") else "send" if self.streams else "wait"
        if fate != "send":
            self.held += size
        if self.held > self.limit:
            raise AnswerTooLong(f"the upstream model's answer sent more than {self.limit} bytes, which policy "
                                f"{self.resolved.policy!r} (on_unchecked {self.resolved.on_unchecked!r}) keeps "
                                "until the end (four times what the guard keeps of a streamed answer's text: "
                                "guard.max_message_chars)")
        return fate

    def out(self, chunk: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The chunks to send for one whose fate is ``send``: None, the chunk as it came (the scrub changed
        nothing in it)."""
        return self.scrub.chunk(chunk)

    def rest(self) -> list[dict[str, Any]]:
        """What the scrub still holds, as a chunk to send before the stream ends (an error's included)."""
        rest = self.scrub.rest()
        return [self._chunk(rest)] if rest else []

    def closing(self, result: GuardResult, ended: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The chunks that end the stream before the result: what the scrub held, the text to show last
        (:meth:`shown`), then the upstream's closing chunks (``ended``: those whose fate was ``end``)."""
        out = self.rest()
        if shown := self.shown(result):
            out.append(self._chunk({"content": self.scrub.text(shown)}))
        for chunk in ended:
            scrubbed = self.scrub.chunk(chunk)
            out += [chunk] if scrubbed is None else scrubbed
        return out

    def _chunk(self, delta: dict[str, Any]) -> dict[str, Any]:
        return {**self.head, "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}

    @property
    def answer(self) -> str:
        return "".join(self.text)

    def shown(self, result: GuardResult) -> str:
        """The text to show after the answer: under a streaming policy what the policy added (a footnote), else
        the policy's whole text."""
        if not self.streams:
            return result.text
        answer = self.answer
        return result.text[len(answer):] if result.text.startswith(answer) else ""


def _text_of(chunk: dict[str, Any]) -> str:
    choices = chunk.get("choices") or []
    first = choices[0] if choices and isinstance(choices[0], dict) else {}
    delta = first.get("delta") if isinstance(first.get("delta"), dict) else {}
    content = delta.get("content") if delta else None
    return content if isinstance(content, str) else ""
