"""An OpenAI Chat Completions request as the guard reads it (the chat proxy's body, the conversation that
``/v1/guard/check`` and LiteLLM's guardrail send): a wire format, so the service's (the library's
guard never sees it). Every field is checked before anything is sent on.

Messages are typed (role, content as text or content parts, tool calls...); any number of them (an agent
session grows without end), each but a tool's result bounded by the operator's ``guard.max_message_chars``
(:func:`check_messages`); every other field is clean text of bounded size, and the fields that multiply the
upstream's work (``n``) are capped (:func:`check_choices`). Fields the guard does not know are passed on as the
caller sent them (a newer client's options reach the upstream), after the same text check. The ``factdebate``
object is the caller's :class:`~factdebate.guard_engine.types.GuardOptions` and is never sent on."""

from __future__ import annotations

import asyncio
import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    StrictBool,
    StrictInt,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import InitErrorDetails, core_schema

from factdebate.engine import GuardOptions, Settings
from factdebate.util.errors import InputError
from factdebate.util.textsafe import checked_tree

MAX_FIELD_CHARS = 100_000  # the longest text in a field other than a message (a tool's schema, a stop word)
MAX_CHOICES = 8  # n, whatever the operator allows: each answer is checked (guard.max_choices caps it lower)
MAX_TOOL_RESULT_CHARS = 10**9  # a tool result's text: bounded by the body limit alone (see check_messages)
MAX_TOOLS = 128  # tools (or functions) one request may offer the model: OpenAI's own limit
OFF_LOOP_MESSAGES = 200  # a longer conversation is checked in a worker thread and sent on alike
JSON_FORMATS = ("json_object", "json_schema")  # the response_format types whose answer is JSON

Role = Literal["system", "developer", "user", "assistant", "tool", "function"]
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def lone_surrogate(value: Any) -> str | None:
    """The first text in ``value`` (strings in lists and mappings, keys too) holding a lone surrogate, which no
    UTF-8 reply can carry, or None. Walked without recursion: the nesting is bounded later, not yet."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if match := _LONE_SURROGATE.search(item):
                return f"U+{ord(match.group()):04X} at character {match.start()}"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class ChatMessage(BaseModel):
    """One message of the conversation. Text that is not valid Unicode is refused here, before anything reads
    the message (its tool results became evidence first, and a lone surrogate there was a 500)."""

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str | list[dict[str, Any]] | None = None
    name: str | None = Field(default=None, max_length=256)
    tool_calls: list[dict[str, Any]] | None = Field(default=None, max_length=128)
    tool_call_id: str | None = Field(default=None, max_length=256)
    function_call: dict[str, Any] | None = None
    refusal: str | None = None
    audio: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _valid_unicode(cls, data: Any) -> Any:
        if (where := lone_surrogate(data)) is not None:
            raise ValueError(f"the message holds text that is not valid Unicode (a lone surrogate {where}); "
                             "send it as UTF-8")
        return data


class _ChatMessagesSchema:
    """The JSON schema of a list of :class:`ChatMessage`, for a field that holds the messages as plain objects."""

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return handler(core_schema.list_schema(ChatMessage.__pydantic_core_schema__, min_length=1))  # as the field


# The messages as plain objects, each checked as a ChatMessage (OpenAPI shows them so).
PlainMessages = Annotated[list[dict[str, Any]], _ChatMessagesSchema()]


class ChatRequest(BaseModel):
    """What ``POST /v1/chat/completions`` takes: OpenAI's body, plus the optional ``factdebate`` object."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=256, description="The upstream model's name, passed on.")
    messages: PlainMessages = Field(min_length=1, description="The conversation; its last assistant reply "
                                    "is what the upstream answers, its `tool` messages are given evidence.")
    stream: StrictBool = Field(default=False, description="Stream the upstream's answer as it comes, checking "
                               "it sentence by sentence; the verdicts come in the last chunk before [DONE].")
    n: int | None = Field(default=None, ge=1, le=MAX_CHOICES, description="Answers to write; every one is "
                          "checked, each choice carrying its own `factdebate` object. At most the operator's "
                          "guard.max_choices; a stream takes n = 1 only.")
    max_tokens: StrictInt | None = Field(default=None, ge=1, description="The most tokens the answer may have; "
                                         "above the operator's guard.max_tokens it is lowered to it.")
    max_completion_tokens: StrictInt | None = Field(default=None, ge=1, description="The same, as OpenAI's "
                                                    "reasoning models take it; capped alike.")
    tools: list[dict[str, Any]] | None = Field(default=None, max_length=MAX_TOOLS, description="Tools the model "
                                                 "may call, passed on; their calls in the reply pass unchecked.")
    functions: list[dict[str, Any]] | None = Field(default=None, max_length=MAX_TOOLS, description="The older "
                                                   "form of tools, passed on alike.")
    factdebate: GuardOptions | None = Field(default=None, description="The check's options (never sent on).")

    @field_validator("messages", mode="wrap")
    @classmethod
    def _plain_messages(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> list[dict[str, Any]]:
        """Each message checked as a :class:`ChatMessage` and kept as the plain object it dumps to, the model
        let go at once: 50,000 models kept alive made the garbage collector's full passes hold the interpreter
        lock for 0.2-0.4 s each while they were made (GET /v1/health waited), where a plain object of text is
        not even tracked by it."""
        if not isinstance(value, list) or not value:
            return handler(value)  # not a list, or empty: the field's own error
        plain: list[dict[str, Any]] = []
        for number, item in enumerate(value):
            try:
                message = item if isinstance(item, ChatMessage) else ChatMessage.model_validate(item)
            except ValidationError as exc:  # said at its place in the list, as a list of models says it
                raise ValidationError.from_exception_data("ChatMessage", [
                    InitErrorDetails(type=error["type"], loc=(number, *error["loc"]), input=error["input"],
                                     **({"ctx": error["ctx"]} if "ctx" in error else {}))  # type: ignore[typeddict-item]
                    for error in exc.errors()]) from None
            plain.append(message.model_dump(exclude_none=True))
        return plain

    @model_validator(mode="before")
    @classmethod
    def _clean_fields(cls, data: Any) -> Any:
        """Every field but the messages (checked against the operator's limits later) and the guard's own
        options (typed) holds clean, bounded text and nests no deeper than any input may."""
        if isinstance(data, dict):
            for name in ("tools", "functions"):  # said before any walk over them: thousands take seconds
                if isinstance(data.get(name), list) and len(data[name]) > MAX_TOOLS:
                    raise ValueError(f"{len(data[name])} {name} sent; the limit is {MAX_TOOLS}")
            try:
                checked_tree(list(data), what="field name", limit=256)
                for name, value in data.items():
                    if name not in ("messages", "factdebate"):
                        checked_tree(value, what=f"field '{name}'", limit=MAX_FIELD_CHARS)
            except InputError as exc:
                raise ValueError(str(exc)) from None
        return data

    def upstream_body(self, max_tokens: int | None = None) -> dict[str, Any]:
        """What the upstream gets: the request without ``factdebate``, unset fields left out, and the answer's
        length asked for (``max_tokens``, ``max_completion_tokens``) no more than the operator's ``max_tokens``.
        A request that asks for no length is left to the upstream's own default."""
        body = self.model_dump(exclude={"factdebate", "messages"}, exclude_none=True)
        body["messages"] = list(self.plain_messages())
        if max_tokens is not None:
            for name in ("max_tokens", "max_completion_tokens"):
                if name in body:
                    body[name] = min(body[name], max_tokens)
        return body

    def plain_messages(self) -> list[dict[str, Any]]:
        """The messages as plain objects (made while the request was read: a long conversation's in the worker
        thread that reads it, :func:`read_chat_request`). Read only: the upstream's body shares them."""
        return self.messages

    @property
    def answer_format(self) -> Literal["text", "json"]:
        """"json" when ``response_format`` (passed on as sent, unread otherwise) asks for a JSON answer
        (``json_object``, or ``json_schema``, structured outputs), which no policy may leave text that is not
        JSON (guard_engine/policy.py); else "text"."""
        asked = (self.model_extra or {}).get("response_format")
        return "json" if isinstance(asked, dict) and asked.get("type") in JSON_FORMATS else "text"

    @property
    def long(self) -> bool:
        """Whether its per-message work (reading, checking, writing it on) is done off the event loop."""
        return len(self.messages) > OFF_LOOP_MESSAGES


def chat_of(messages: list[ChatMessage] | None, model: str) -> ChatRequest | None:
    """The conversation of a route that checks a reply it is given, as a chat request (held to the same
    bounds as the chat route's), its plain messages made now (in the reading thread when it is long)."""
    if not messages:
        return None
    return ChatRequest.model_validate({"model": model, "messages": messages})


def check_choices(request: ChatRequest, settings: Settings) -> None:
    """Every answer is checked, so ``n`` is the operator's to bound (``guard.max_choices``). A stream carries one
    answer: its choices would each need a check of their own while they stream, so ``n`` above 1 is refused
    there rather than passed on with only the first checked."""
    n = request.n or 1
    if n > settings.guard.max_choices:
        raise InputError(f"n = {n} asks for more answers than this guard checks; the limit is "
                         f"{settings.guard.max_choices} (guard.max_choices)")
    if n > 1 and request.stream:
        raise InputError(f"n = {n} cannot be streamed through the guard: each answer is checked, and a stream "
                         "is checked as one answer; send stream: false (every choice is checked) or n: 1")


def check_messages(request: ChatRequest, settings: Settings) -> None:
    """The operator's bounds on a conversation (``InputError`` naming the setting) and clean text in each, and
    on the answers asked for (:func:`check_choices`)."""
    check_choices(request, settings)
    guard = settings.guard
    # No bound on how many messages: an agent session grows by one tool result per step, and refusing it past
    # a count broke the session for every later turn. The body limit bounds the whole; tool results past the
    # evidence limits are ranked per claim and the rest left out, said (guard_engine/session.py).
    for number, data in enumerate(request.plain_messages(), 1):
        # Its nesting first (a deeper one would fail every recursive walk) and clean text: no single text
        # reaches MAX_TOOL_RESULT_CHARS within the body limit, so its size is the operator's setting to name.
        checked_tree(data, what=f"message {number}", limit=MAX_TOOL_RESULT_CHARS)
        # A tool's result is the bot's own history, not the caller's words: however long, it is passed on as
        # sent (clean text still); as evidence it is held to the evidence limits like every other result.
        own = data.get("role") in ("tool", "function")
        size = _chars(data)
        if size > guard.max_message_chars and not own:
            raise InputError(f"message {number} holds {size} characters; the limit is {guard.max_message_chars} "
                             "(guard.max_message_chars)")


async def checked_conversation(request: ChatRequest, settings: Settings) -> None:
    """:func:`check_messages`, in a worker thread for a long conversation (checking 50,000 messages on the
    event loop held every other request, /v1/health too)."""
    if request.long:
        await asyncio.to_thread(check_messages, request, settings)
    else:
        check_messages(request, settings)


def _chars(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        return sum(_chars(item) for item in value)
    if isinstance(value, dict):
        return sum(_chars(item) for item in value.values())
    return 0
