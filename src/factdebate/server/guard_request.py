"""The chat guard's request: an OpenAI Chat Completions body, every field checked before anything is sent on.

Messages are typed (role, content as text or content parts, tool calls...) and bounded by the operator's
``guard.max_messages`` and ``guard.max_message_chars``; every other field is clean text of bounded size, and
the fields that multiply the upstream's work (``n``) are capped. Fields the guard does not know are passed on
as the caller sent them (a newer client's options reach the upstream), after the same text check. The
``factdebate`` object is the caller's :class:`~factdebate.guard.types.GuardOptions` and is never sent on."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, model_validator

from factdebate.core.errors import InputError
from factdebate.core.textsafe import MAX_NESTING, checked_values, nesting_depth
from factdebate.guard import GuardEvidence, GuardOptions, evidence_from_messages
from factdebate.guard.options import text_of
from factdebate.settings.model import Settings

MAX_FIELD_CHARS = 100_000  # the longest text in a field other than a message (a tool's schema, a stop word)
MAX_CHOICES = 8  # n: answers the upstream writes for one request; only the first is checked

Role = Literal["system", "developer", "user", "assistant", "tool", "function"]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str | list[dict[str, Any]] | None = None
    name: str | None = Field(default=None, max_length=256)
    tool_calls: list[dict[str, Any]] | None = Field(default=None, max_length=128)
    tool_call_id: str | None = Field(default=None, max_length=256)
    function_call: dict[str, Any] | None = None
    refusal: str | None = None
    audio: dict[str, Any] | None = None


class ChatRequest(BaseModel):
    """What ``POST /v1/chat/completions`` takes: OpenAI's body, plus the optional ``factdebate`` object."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=256, description="The upstream model's name, passed on.")
    messages: list[ChatMessage] = Field(min_length=1, description="The conversation; its last assistant reply "
                                        "is what the upstream answers, its `tool` messages are given evidence.")
    stream: StrictBool = Field(default=False, description="Stream the upstream's answer as it comes, checking "
                               "it sentence by sentence; the verdicts come in the last chunk before [DONE].")
    n: int | None = Field(default=None, ge=1, le=MAX_CHOICES, description="Answers to write; only the first "
                          "is checked.")
    factdebate: GuardOptions | None = Field(default=None, description="The check's options (never sent on).")

    @model_validator(mode="before")
    @classmethod
    def _clean_fields(cls, data: Any) -> Any:
        """Every field but the messages (checked against the operator's limits later) and the guard's own
        options (typed) holds clean, bounded text and nests no deeper than any input may."""
        if isinstance(data, dict):
            for name, value in data.items():
                if name in ("messages", "factdebate"):
                    continue
                if nesting_depth(value) > MAX_NESTING:
                    raise ValueError(f"the field '{name}' nests more than {MAX_NESTING} levels")
                try:
                    checked_values(name, what="field name", limit=256)
                    checked_values(value, what=f"field '{name}'", limit=MAX_FIELD_CHARS)
                except InputError as exc:
                    raise ValueError(str(exc)) from None
        return data

    def upstream_body(self) -> dict[str, Any]:
        """What the upstream gets: the request without ``factdebate``, unset fields left out."""
        body = self.model_dump(exclude={"factdebate"}, exclude_none=True)
        body["messages"] = [m.model_dump(exclude_none=True) for m in self.messages]
        return body

    def plain_messages(self) -> list[dict[str, Any]]:
        return [m.model_dump(exclude_none=True) for m in self.messages]


def check_messages(request: ChatRequest, settings: Settings) -> None:
    """The operator's bounds on a conversation (``InputError`` naming the setting) and clean text in each."""
    guard = settings.guard
    if len(request.messages) > guard.max_messages:
        raise InputError(f"{len(request.messages)} messages sent; the limit is {guard.max_messages} "
                         "(guard.max_messages)")
    for number, message in enumerate(request.messages, 1):
        data = message.model_dump(exclude_none=True)
        if nesting_depth(data) > MAX_NESTING:
            raise InputError(f"message {number} nests more than {MAX_NESTING} levels")
        checked_values(data, what=f"message {number}", limit=guard.max_message_chars)
        size = _chars(data)
        if size > guard.max_message_chars:
            raise InputError(f"message {number} holds {size} characters; the limit is {guard.max_message_chars} "
                             "(guard.max_message_chars)")


def _chars(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        return sum(_chars(item) for item in value)
    if isinstance(value, dict):
        return sum(_chars(item) for item in value.values())
    return 0


def guard_options(request: ChatRequest) -> GuardOptions:
    """The caller's options, with the conversation's tool results added to the evidence it sent."""
    options = request.factdebate or GuardOptions()
    from_tools: list[GuardEvidence] = evidence_from_messages(request.plain_messages())
    if from_tools:
        options = options.model_copy(update={"evidence": [*(options.evidence or []), *from_tools]})
    return options


def question_of(request: ChatRequest) -> str | None:
    """The last user message's text: what the reply answers (the extractor's hint)."""
    for message in reversed(request.messages):
        if message.role == "user":
            return text_of(message.content) or None
    return None


def reply_text(message: dict[str, Any]) -> tuple[str, list[str]]:
    """The checked text of an upstream reply message, and what of it passes unchecked."""
    passed: list[str] = []
    calls = message.get("tool_calls") or []
    if calls:
        names = [str((call.get("function") or {}).get("name", "?")) for call in calls if isinstance(call, dict)]
        passed.append(f"{len(calls)} tool call(s) in the reply, not checked: {', '.join(names)[:300]}")
    if message.get("function_call"):
        passed.append("a function call in the reply, not checked")
    content = message.get("content")
    if isinstance(content, list):
        kinds = sorted({str(p.get("type")) for p in content if isinstance(p, dict) and p.get("type") != "text"})
        if kinds:
            passed.append(f"non-text content in the reply, not checked: {', '.join(kinds)}")
    if message.get("audio"):
        passed.append("audio in the reply, not checked")
    if message.get("refusal"):
        passed.append("the model's refusal message, not checked")
    return text_of(content), passed
