"""The backend protocol every LLM provider implements."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, runtime_checkable


class Message(TypedDict):
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True)
class ToolSchema:
    """A tool the model may call: ``parameters`` is the JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


@dataclass(frozen=True)
class GenParams:
    """Sampling settings and an optional constraint (enforced where ``Completion.constrained`` says so)."""

    temperature: float = 0.0
    max_tokens: int = 512
    # The answer must be exactly one of these strings.
    choices: tuple[str, ...] | None = None
    # With ``choices``: also the model's probability of each choice, where the backend can read it
    # (``Completion.choice_probs``). A separate cache entry: an answer kept without them is not reused.
    choice_scores: bool = False
    # A GBNF grammar the answer must follow, e.g. a bracketed query on a re-ask.
    grammar: str | None = None
    # A JSON schema. With ``grammar`` and ``json_template``: the grammar's text format spelled as JSON, for
    # servers without grammars, turned back into text with ``json_template.format(**obj)``.
    json_schema: dict[str, Any] | None = None
    json_template: str | None = None
    # Tools the model may call instead of answering (see ``Completion.tool_calls``).
    tools: tuple[ToolSchema, ...] = ()
    # Where a reply may end before the model ends it: given the text so far (each time it closes a "}"), the
    # whole reply to keep instead, or None to go on. Backends that write a token at a time on this machine
    # (llama.cpp in process) ask it; others write the whole reply, which the caller reads the same way.
    ended: Callable[[str], str | None] | None = field(default=None, compare=False)

    def key(self) -> dict[str, object]:
        key: dict[str, object] = {"temperature": self.temperature, "max_tokens": self.max_tokens,
                                  "choices": self.choices, "grammar": self.grammar}
        # Added only when set, so cache entries written before these fields existed still match.
        if self.json_schema is not None:
            key["json_schema"] = self.json_schema
            key["json_template"] = self.json_template
        if self.tools:
            key["tools"] = [t.as_dict() for t in self.tools]
        if self.choice_scores:
            key["choice_scores"] = True
        if self.ended is not None:  # a reply ended early is not the whole reply another backend cached
            key["ended"] = getattr(self.ended, "__qualname__", "ended")
        return key

    @property
    def has_constraint(self) -> bool:
        return bool(self.choices or self.grammar or self.json_schema is not None)


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str = ""


@dataclass
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0  # of completion_tokens: a reasoning model's hidden reasoning
    # False: the server reported no usage, so prompt_tokens is 0 and completion_tokens an estimate
    # (llm/openai_stream.py); what shows counts as measured (a span, an llm_call event) leaves them out.
    usage_known: bool = True
    # True when the backend held the answer to the request's constraint (grammar, schema or choices).
    constrained: bool = False
    tool_calls: list[ToolCall] = field(default_factory=list)
    # Why generation stopped, as the backend says it ("length": cut at the token limit); "": not known.
    finish_reason: str = ""
    # Asked with ``GenParams.choice_scores``: each choice's probability as the first step of the constrained
    # answer gives it (summed over the tokens that begin only that choice, normalised over the choices); None
    # where the backend cannot read probabilities.
    choice_probs: dict[str, float] | None = None
    extra: dict[str, object] = field(default_factory=dict)


class TransientLLMError(Exception):
    """Worth retrying: rate limit, 5xx, timeout, dropped connection."""

    def __init__(self, message: str, retry_after: float | None = None, url: str = "",
                 give_up_after: int | None = None, timed_out: bool = False, refused: bool = False) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.url = url
        self.timed_out = timed_out  # no answer within the request timeout
        self.refused = refused  # no connection could be opened: the server is not running (llm/breaker.py)
        # Tries after which this kind of failure is not worth the rest of the time budget (a server that
        # has never answered is more likely a wrong URL than a hiccup).
        self.give_up_after = give_up_after


class FatalLLMError(Exception):
    """Not worth retrying: bad request, authentication, unknown model."""


class BrokenAnswer(FatalLLMError):
    """The model server's answer can never be used (too large, not text): a 502, the server's failure."""


@runtime_checkable
class Backend(Protocol):
    """``name`` identifies provider and model (it is part of the cache key)."""

    name: str
    # Where the calls go (for error messages); "" for in-process backends.
    endpoint: str
    # How many calls the backend can usefully serve at once (1 for an in-process model).
    max_parallel: int

    async def complete(self, messages: list[Message], params: GenParams) -> Completion: ...
