"""The backend protocol every LLM provider implements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, TypedDict, runtime_checkable


class Message(TypedDict):
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True)
class GenParams:
    temperature: float = 0.0
    max_tokens: int = 512
    # When set, the answer must be exactly one of these strings. Backends that support constrained
    # decoding (llama.cpp grammars) enforce it; the others ignore it and the caller parses the text.
    choices: tuple[str, ...] | None = None
    # A GBNF grammar the answer must follow (llama.cpp only), e.g. a bracketed query on a re-ask.
    grammar: str | None = None

    def key(self) -> dict[str, object]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "choices": self.choices,
                "grammar": self.grammar}


@dataclass
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    constrained: bool = False
    extra: dict[str, object] = field(default_factory=dict)


class TransientLLMError(Exception):
    """Worth retrying: rate limit, 5xx, timeout, dropped connection."""

    def __init__(self, message: str, retry_after: float | None = None, url: str = "",
                 give_up_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.url = url
        # Tries after which this kind of failure is not worth the rest of the time budget (a server that
        # has never answered is more likely a wrong URL than a hiccup).
        self.give_up_after = give_up_after


class FatalLLMError(Exception):
    """Not worth retrying: bad request, authentication, unknown model."""


@runtime_checkable
class Backend(Protocol):
    """``name`` identifies provider and model (it is part of the cache key)."""

    name: str
    # Where the calls go (for error messages); "" for in-process backends.
    endpoint: str
    # How many calls the backend can usefully serve at once (1 for an in-process model).
    max_parallel: int

    async def complete(self, messages: list[Message], params: GenParams) -> Completion: ...
