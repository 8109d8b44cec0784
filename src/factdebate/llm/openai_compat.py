"""Any OpenAI-compatible chat endpoint: OpenAI, vLLM, Ollama, llama.cpp server... The chat completions go
through llm/openai_http.py, not the OpenAI SDK; their failures are mapped to the LLM layer's errors here, once.

``OPENAI_BASE_URL`` picks the server and ``OPENAI_API_KEY`` the key, required only for OpenAI's own URL (local
servers rarely check keys). Constraints are sent the way the server understands them
(:mod:`factdebate.llm.constraints`); a server that rejects one is asked again with the next weaker form, down
to none, traced. Length cap and temperature are sent as the model takes them (:mod:`factdebate.llm.model_params`)."""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Any

from factdebate.core.errors import MissingKeyError
from factdebate.core.runtime import emit
from factdebate.llm.base import (
    BrokenAnswer,
    Completion,
    FatalLLMError,
    GenParams,
    Message,
    ToolCall,
    TransientLLMError,
)
from factdebate.llm.constraints import (
    CONSTRAIN_MODES,
    FALLBACK,
    Request,
    mode_from_owner,
    openai_request,
    render_json,
)
from factdebate.llm.json_reply import loads
from factdebate.llm.model_params import REASONING_TOKENS, ModelParams, model_params
from factdebate.llm.openai_http import (
    ChatTransport,
    ChunkStream,
    StatusError,
    StreamBroken,
    StreamErrorEvent,
    Unanswered,
    UnreadableAnswer,
)
from factdebate.llm.openai_stream import (
    StreamInterrupted,
    StreamSetting,
    asked_plainly,
    checked_setting,
    read_stream,
    refuses_streams,
    streams,
)
from factdebate.llm.server_slots import Slots
from factdebate.llm.server_slots import ask as ask_slots
from factdebate.util.bounded_body import MIB, AnswerTooLarge
from factdebate.util.errors import ConfigError
from factdebate.util.http_client import CannotConnect, ConnectTimeout
from factdebate.util.scrub import redact_url, remember_endpoints, remember_secrets

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
UNREACHED_TRIES = 3  # tries against a server that has never answered before giving up
MODEL_LIST_BYTES = 4 * MIB  # a hosted router's list of a few hundred models with their descriptions fits
MODEL_LIST_S = 10.0  # the model list is asked once, before the first call: a server that takes longer is broken


class RefusedParameter(FatalLLMError):
    """A 400 naming one parameter the model does not take (``code``: unsupported_parameter/_value)."""

    def __init__(self, message: str, reason: str, param: str | None, code: str | None,
                 sent: dict[str, Any]) -> None:
        super().__init__(message)
        self.reason, self.param, self.code, self.sent = reason, param, code, sent


class OpenAIBackend:
    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 120.0, max_parallel: int = 16, constrain: str = "auto",
                 reasoning_tokens: int = REASONING_TOKENS, stream: StreamSetting = "auto") -> None:
        if constrain not in CONSTRAIN_MODES:
            raise ConfigError(f"llm.constrain must be one of {', '.join(CONSTRAIN_MODES)}, got '{constrain}'")
        self.model = model
        self.endpoint = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_URL).rstrip("/")
        key = api_key or os.environ.get("OPENAI_API_KEY")
        remember_endpoints([self.endpoint])  # what no caller may read of the checker (util/scrub/)
        remember_secrets([key] if key else [])
        if not key:
            if self.endpoint == OPENAI_DEFAULT_URL:
                raise MissingKeyError("OPENAI_API_KEY", f"the model openai:{model}")
            key = "not-needed"
        # The name shows in traces, errors and cache keys: never with the URL's credentials.
        self.name = f"openai:{model}@{redact_url(self.endpoint)}"
        self.max_parallel = max_parallel
        self.timeout = timeout  # seconds per request, once it is sent (llm/in_flight.py: not while it waits)
        self._answered = False  # has the server ever answered (any HTTP status)?
        # "auto" is resolved on the first constrained call; OpenAI's own API needs no probe.
        self.constrain: str = "json_schema" if constrain == "auto" and self.endpoint == OPENAI_DEFAULT_URL \
            else constrain
        # Why the mode was lowered, if it was: shown by `factdebate doctor` and in traces.
        self.constraint_notes: list[str] = []
        # What this model takes (token field, refused parameters), shared by the process's backends of it.
        self.params: ModelParams = model_params(self.endpoint, model)
        self.reasoning_tokens = reasoning_tokens
        # Streams, so that a call cut short stops at the server (llm/openai_stream.py); a call offering tools is
        # asked plainly (its calls arrive in pieces a stream would have to join).
        self.stream: StreamSetting = checked_setting(stream)
        self._owner: str | None = None  # GET /models' owned_by, once asked ("" if it said nothing)
        # No retries below this: the LLM wrapper owns retrying, so attempts are capped once.
        self._key = key
        self._chat = self._new_chat()

    async def aclose(self) -> None:
        """Let go of the HTTP session on its loop (left to the collector, each connection warns at exit)."""
        chat, self._chat = self._chat, self._new_chat()
        await chat.aclose()

    def _new_chat(self) -> ChatTransport:
        """The client the chat completions go through (llm/openai_http.py)."""
        return ChatTransport(self.endpoint, self._key, self.timeout)

    async def server_owner(self) -> str:
        """``GET /models``' ``owned_by``, which names the server's kind, asked once ("": it said nothing)."""
        if self._owner is None:
            owner = ""
            with contextlib.suppress(OSError):  # no model list: a server of unknown kind
                owner = await self._listed_owner()
            self._owner = owner
        return self._owner

    async def _listed_owner(self) -> str:
        """The first ``owned_by`` of ``GET /models``, its answer held to a size and the call's timeout."""
        from factdebate.util.http_client import fetch

        status, body = await fetch(f"{self.endpoint}/models", {"Authorization": f"Bearer {self._key}"},
                                   limit=MODEL_LIST_BYTES, seconds=min(self.timeout, MODEL_LIST_S),
                                   what="the model list")
        try:
            data = json.loads(body).get("data") if status == 200 else None
        except (ValueError, AttributeError, RecursionError):  # not JSON, not an object, nested past the parser
            return ""
        owners = {str(m.get("owned_by") or "") for m in data if isinstance(m, dict)} \
            if isinstance(data, list) else set()
        return sorted(owners)[0] if owners else ""

    async def server_slots(self) -> Slots | None:
        """What a server on this machine says of the requests it serves at once (llm/server_slots.py)."""
        return await ask_slots(self.endpoint, await self.server_owner(), self._key)

    async def resolve_constrain(self) -> str:
        """The server's kind from ``GET /models``; the standard ``response_format`` if that says nothing."""
        if self.constrain == "auto":
            mode = mode_from_owner(await self.server_owner())
            if self.constrain == "auto":  # a concurrent call may have resolved it meanwhile
                self.constrain = mode
        return self.constrain

    def streamed(self, params: GenParams) -> bool:
        """Whether this call is asked as a stream (``llm.stream``; auto: llm/openai_stream.streams)."""
        return not params.tools and streams(self.stream, self.endpoint)

    def _plainly_from_now_on(self, exc: Exception, cut: bool) -> TransientLLMError:
        """Under ``llm.stream: auto``, the server took no stream: noted once, and the request retried plainly."""
        note = asked_plainly(self.endpoint, cut)
        self.constraint_notes.append(note)
        emit("streams_off", model=self.name, note=note)
        return TransientLLMError(f"{exc}; {note}", 0.0, self.endpoint)

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        try:
            return await self._complete(messages, params)
        finally:
            self.params.report(self.name)  # what the model is sent otherwise than asked: traced, logged once

    async def _complete(self, messages: list[Message], params: GenParams) -> Completion:
        mode = await self.resolve_constrain() if params.has_constraint else "none"
        while True:
            req = openai_request(params, mode)
            try:
                return await self._create(messages, params, req)
            except (FatalLLMError, TransientLLMError) as exc:
                if isinstance(exc, RefusedParameter) and self.params.learn(exc.param, exc.code, exc.reason,
                                                                             exc.sent):
                    continue  # the same request again, without what the model refused
                if not (req.constrained and mode in FALLBACK and _rejects_constraint(exc)):
                    raise
                weaker = FALLBACK[mode]
                note = (f"{redact_url(self.endpoint)} rejected a '{mode}' constraint ({exc}); "
                        f"using '{weaker}' from now on")
                self.constraint_notes.append(note)
                emit("constraint_rejected", model=self.name, mode=mode, fallback=weaker, error=str(exc)[:300])
                if self.constrain == mode:
                    self.constrain = weaker
                mode = weaker

    async def _create(self, messages: list[Message], params: GenParams, req: Request) -> Completion:
        # The request's JSON as the SDK would send it: its top-level arguments, its extra_body merged in.
        extra: dict[str, Any] = {**req.kwargs, **req.extra_body}
        if params.tools:
            extra["tools"] = [{"type": "function", "function": t.as_dict()} for t in params.tools]
        sent = self.params.arguments(params, self.reasoning_tokens)
        streamed = self.streamed(params)
        if streamed:
            extra.update(stream=True, stream_options={"include_usage": True})
        sent_at = time.monotonic()
        try:
            response = await self._chat.create({"model": self.model, "messages": messages, **sent, **extra},
                                               streamed)
            if isinstance(response, ChunkStream):  # a server may answer a stream request with one reply
                self._answered = True  # the server answered (a status line): what follows is its answer
                try:
                    completion = await read_stream(response, self.endpoint, self.timeout, sent_at)
                except StreamInterrupted as exc:
                    if self.stream != "auto":
                        raise
                    raise self._plainly_from_now_on(exc, cut=True) from exc
                completion.constrained = req.constrained
                return _checked(completion, req)
        except StatusError as exc:
            self._answered = True
            raise self._status_failure(exc, streamed, sent) from exc
        except Unanswered as exc:
            # Until the server has answered once, a refused connection is likely a wrong URL: a few tries only.
            refused = never_connected(exc)
            timed_out = exc.timed_out and not refused
            text = f"timeout: no answer within {self.timeout:g} s" if timed_out else \
                f"connection error: {exc.__cause__ or exc}"
            raise TransientLLMError(text, None, self.endpoint,
                                    give_up_after=None if self._answered else UNREACHED_TRIES,
                                    timed_out=timed_out, refused=refused) from exc
        except StreamBroken as exc:  # a stream cut while it was read
            raise TransientLLMError(f"the streamed answer broke off: {exc}", None, self.endpoint,
                                    timed_out=exc.timed_out) from exc
        except StreamErrorEvent as exc:  # the next try may go through
            raise TransientLLMError(f"the streamed answer reported an error: {exc}", None, self.endpoint) from exc
        except AnswerTooLarge as exc:  # a server sending without end: trying again would only cost as much again
            self._answered = True
            raise BrokenAnswer(f"{exc} (from {self.endpoint}): the server may be broken") from exc
        except UnreadableAnswer as exc:  # the same bytes at every try: a broken server or an encoding it garbles
            self._answered = True
            raise BrokenAnswer(f"unusable response body: {exc.msg} (from {self.endpoint})") from exc
        except json.JSONDecodeError as exc:
            # A 200 whose body is no chat completion (a proxy's error page): the next try usually gets one.
            raise TransientLLMError(f"unusable response body: {type(exc).__name__}", None, self.endpoint) from exc
        self._answered = True
        completion = _completion(response, self.endpoint)
        if not completion.text and completion.reasoning_tokens and _finish_reason(response) == "length":
            self.params.budget_spent(self.name, completion.reasoning_tokens)
        completion.constrained = req.constrained
        completion.tool_calls = _tool_calls(response.choices[0].message)
        return _checked(completion, req)


    def _status_failure(self, exc: StatusError, streamed: bool, sent: dict[str, Any]) -> Exception:
        """An error status as the LLM layer's error: 429, 5xx, 408 and 409 are retried, a 400 naming a
        parameter is learnt from, anything else is fatal."""
        if exc.status == 429:
            return TransientLLMError(f"429 rate limited: {exc.message}", exc.retry_after, self.endpoint)
        if exc.status == 400:
            if streamed and self.stream == "auto" and refuses_streams(exc.param, exc.message):
                return self._plainly_from_now_on(exc, cut=False)
            return RefusedParameter(f"HTTP 400 from {self.endpoint}: {exc.message}", (exc.said or exc.message)[:300],
                                    exc.param, exc.code, sent)
        if exc.status >= 500 or exc.status in (408, 409):
            return TransientLLMError(f"HTTP {exc.status}: {exc.message}", exc.retry_after, self.endpoint)
        return FatalLLMError(f"HTTP {exc.status} from {self.endpoint}: {exc.message}")


def never_connected(exc: BaseException) -> bool:
    """Whether ``exc`` (or its cause) is a connection never opened: refused, no such host, no handshake."""
    seen: BaseException | None = exc
    for _ in range(8):  # the transport's error, the client's, aiohttp's, the socket's: a short chain
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError | CannotConnect | ConnectTimeout):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _completion(response: Any, endpoint: str) -> Completion:
    """The text and usage of a response, or a TransientLLMError when it has no usable choice."""
    try:
        choice = response.choices[0]
        text = choice.message.content
        usage = response.usage
        prompt_tokens = int(usage.prompt_tokens) if usage else 0
        completion_tokens = int(usage.completion_tokens) if usage else 0
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
        raise TransientLLMError(f"unusable response body: no choices ({type(exc).__name__})", None,
                                endpoint) from exc
    if text is not None and not isinstance(text, str):
        raise TransientLLMError("unusable response body: the message content is not text", None, endpoint)
    return Completion(text=text or "", prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                      reasoning_tokens=_reasoning_tokens(usage), finish_reason=_finish_reason(response),
                      usage_known=usage is not None)  # a reply without usage: its counts are unknown, not 0


def _reasoning_tokens(usage: Any) -> int:
    """``usage.completion_tokens_details.reasoning_tokens`` (reasoning models; absent elsewhere)."""
    details = getattr(usage, "completion_tokens_details", None)
    try:
        return int(getattr(details, "reasoning_tokens", None) or 0)
    except (TypeError, ValueError):
        return 0


def _finish_reason(response: Any) -> str:
    try:
        return str(response.choices[0].finish_reason or "")
    except (AttributeError, IndexError):
        return ""


_CONSTRAINT_WORDS = ("response_format", "json_schema", "grammar", "guided", "schema")


def _rejects_constraint(exc: Exception) -> bool:
    """An error naming a constraint field (llama-cpp-python answers an unknown one with a 500 naming it)."""
    return any(word in str(exc).lower() for word in _CONSTRAINT_WORDS)


def _checked(completion: Completion, req: Request) -> Completion:
    """A JSON answer put back into text form; one that breaks its constraint is reported unconstrained."""
    if not completion.constrained:
        return completion
    if req.template is not None:
        rendered = render_json(completion.text, req.template)
        if rendered is None:
            completion.constrained = False
        else:
            completion.extra["json"] = completion.text
            completion.text = rendered
    if req.choices and completion.text.strip() not in req.choices:
        completion.constrained = False
    return completion


def _tool_calls(message: Any) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for call in (getattr(message, "tool_calls", None) or []):
        function = getattr(call, "function", None)
        if function is None:
            continue
        try:
            arguments = loads(function.arguments or "{}")
        except ValueError:
            arguments = {"_unparsed": function.arguments}
        calls.append(ToolCall(name=function.name, arguments=arguments if isinstance(arguments, dict) else
                              {"value": arguments}, id=getattr(call, "id", "") or ""))
    return calls
