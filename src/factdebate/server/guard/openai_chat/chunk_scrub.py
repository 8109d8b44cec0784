"""The scrub of a streamed chat answer as the caller reads it: each OpenAI ``chat.completion.chunk`` that goes
out passes :meth:`ChunkScrub.chunk` in the order it goes out, and each text the answer streams in pieces (its
content, a refusal, a reasoning model's reasoning, each tool call's arguments) is scrubbed over a window that
spans the chunks (util/scrub/window.py): a key or a host the upstream writes a few characters a chunk reaches
the caller masked, as it would in one piece.

The chunks stay the upstream's (its ids, its other fields); only their text moves: the end of a text that could
still become part of a secret waits in the window and goes out with the next chunk's text, or, at the latest,
in a chunk of its own just before the chunk that ends the answer (its ``finish_reason``, a usage chunk, or the
guard's own closing chunks: :meth:`ChunkScrub.rest`). A chunk whose only text is all held back is not sent."""

from __future__ import annotations

from typing import Any

from factdebate.util.scrub import ScrubWindow, SeenHalves

TEXT_FIELDS = ("content", "refusal", "reasoning_content", "reasoning")  # a delta's texts that stream in pieces
_CALL = "tool_calls."  # a tool call's arguments: the window's key is this and the call's index


class ChunkScrub:
    """One streamed answer's texts, each through its window (the answer's first choice: the only one the guard
    passes on)."""

    def __init__(self) -> None:
        self._windows: dict[str, ScrubWindow] = {}
        self._halves = SeenHalves()  # a key's halves may come in two of the answer's texts: one memory for all
        self._calls: dict[str, Any] = {}  # a tool call window's key: the call's index as the upstream wrote it

    def text(self, text: str, key: str = "content") -> str:
        """``text`` shown whole after what the window of ``key`` (a delta's text: :data:`TEXT_FIELDS`) holds (the
        policy's own text: the footnotes, the text a hold releases, a refusal): both scrubbed as one, nothing
        held back."""
        return self._window(key).feed(text) + self._window(key).flush()

    def chunk(self, chunk: dict[str, Any], *, ends: bool = False) -> list[dict[str, Any]] | None:
        """The chunks to send for ``chunk``: None when it goes out as it came (nothing in it changed), else the
        chunk with its texts as the windows release them, then the held text when it ends the answer (its
        ``finish_reason``, or ``ends``: the answer's last text, its ending sent later)."""
        choices = chunk.get("choices")
        first = _first(choices)
        if first is None:  # a usage chunk, or one of another choice: what is held goes out before it
            rest = self.rest()
            return None if not rest else [_with_delta(chunk, None, rest), chunk]
        delta = first.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        shown = self.delta(delta)
        ending = bool(first.get("finish_reason"))
        rest = self.rest() if ending or ends else {}
        if rest:
            shown = _joined(shown, rest)
            if shown == delta:  # its own text, whole: nothing was held before it, nothing masked
                return None
            if not ending:
                return [_with_delta(chunk, first, shown)]
            # the held text, then the ending: in two chunks, so that no text comes with or after the ending
            return [_with_delta(chunk, first, shown, finish=None, usage=False), _with_delta(chunk, first, {})]
        if shown is delta:
            return None
        if _nothing_left(shown, first, chunk):
            return []
        return [_with_delta(chunk, first, shown)]

    def delta(self, delta: dict[str, Any]) -> dict[str, Any]:
        """``delta`` with each of its texts as its window releases it; ``delta`` itself when none changed."""
        out = delta
        for name in TEXT_FIELDS:
            value = delta.get(name)
            if isinstance(value, str) and value:
                shown = self._window(name).feed(value)
                if shown != value:
                    out = {**out, name: shown}
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            scrubbed = [self._call(call) for call in calls]
            if any(a is not b for a, b in zip(scrubbed, calls, strict=True)):
                out = {**out, "tool_calls": scrubbed}
        return out

    def rest(self) -> dict[str, Any]:
        """A delta with everything the windows hold, released and scrubbed (empty when they hold nothing)."""
        delta: dict[str, Any] = {}
        calls: list[dict[str, Any]] = []
        for key, window in self._windows.items():
            if not (text := window.flush()):
                continue
            if key.startswith(_CALL):
                calls.append({"index": self._calls[key], "function": {"arguments": text}})
            else:
                delta[key] = text
        if calls:
            delta["tool_calls"] = calls
        return delta

    def _window(self, key: str) -> ScrubWindow:
        window = self._windows.get(key)
        if window is None:
            window = self._windows[key] = ScrubWindow(seen=self._halves)
        return window

    def _call(self, call: Any) -> Any:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            return call
        arguments = function.get("arguments")
        if not isinstance(arguments, str) or not arguments:
            return call
        index = call.get("index", 0)
        key = f"{_CALL}{index!r}"
        self._calls[key] = index
        shown = self._window(key).feed(arguments)
        return call if shown == arguments else {**call, "function": {**function, "arguments": shown}}


def _first(choices: Any) -> dict[str, Any] | None:
    """The answer's choice in a chunk (index 0 or none given): the one whose texts are windowed."""
    if not isinstance(choices, list):
        return None
    return next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None)


def _joined(delta: dict[str, Any], rest: dict[str, Any]) -> dict[str, Any]:
    """``delta``'s released texts followed by the rest the windows held (a tool call's after its own)."""
    out = dict(delta)
    for name, text in rest.items():
        if name == "tool_calls":
            out["tool_calls"] = [*(out.get("tool_calls") or []), *text]
        else:
            out[name] = (out.get(name) or "") + text
    return out


def _with_delta(chunk: dict[str, Any], first: dict[str, Any] | None, delta: dict[str, Any], *,
                finish: Any = ..., usage: bool = True) -> dict[str, Any]:
    """``chunk`` with its answer's choice holding ``delta`` (a new choice of its own when it had none; without
    its ``finish_reason`` and the chunk without its usage when told)."""
    if first is None:
        head = {k: v for k, v in chunk.items() if k not in ("choices", "usage")}
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    choice = {**first, "delta": delta}
    if finish is not ...:
        choice["finish_reason"] = finish
    out = {**chunk, "choices": [choice if c is first else c for c in chunk["choices"]]}
    if not usage:
        out.pop("usage", None)
    return out


def _nothing_left(delta: dict[str, Any], first: dict[str, Any], chunk: dict[str, Any]) -> bool:
    """Whether a chunk whose texts were held back says nothing more: no role, no tool call, no ending, no usage,
    no other choice. Such a chunk is not sent: an empty text says nothing."""
    if any(v for k, v in delta.items() if k not in TEXT_FIELDS) or any(delta.get(k) for k in TEXT_FIELDS):
        return False
    if any(v for k, v in first.items() if k not in ("index", "delta", "finish_reason")):
        return False  # logprobs, say
    return not chunk.get("usage") and len(chunk.get("choices") or []) == 1
