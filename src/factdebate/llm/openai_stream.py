"""A chat completion asked as a stream and read whole, so that a call cut short stops at the server.

A request that is not streamed runs to its end at the server whatever the client does, holding its slot
(docs/robustness.md has the figures). Asked as a stream, closing the connection (a deadline, a given-up try,
a client that left) tells the server, which stops generating between tokens.

The answer is still used whole, read as a plain reply is; without usage in the stream, completion tokens are
counted one a chunk and ``usage_known`` is False. A stream that ends without a ``finish_reason`` was cut by
the server (llama-cpp-python's ``--interrupt_requests``): a transient error, never a short answer.

``llm.stream: auto`` (the default) asks every server for streams. A server that cuts a stream or answers 400
naming ``stream`` or ``stream_options`` is asked plainly for the rest of the process (a ``streams_off`` trace
event and a backend note say why), and the request is tried again at once."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any, Literal

from factdebate.llm.base import Completion, TransientLLMError
from factdebate.util.errors import ConfigError

StreamSetting = bool | Literal["auto"]
INTERRUPTED = ("the server ended the streamed answer before it finished (llama-cpp-python does so when another "
               "request arrives: start it with --interrupt_requests False, or set llm.stream: false)")
# Endpoints that cut a stream or refused the stream parameters: asked plainly for the rest of the process.
_plain_only: set[str] = set()
# An HTTP 400 about these parameters says the server takes no streams (or not their usage option).
_STREAM_PARAMETER = re.compile(r"\bstream(_options)?\b", re.IGNORECASE)


class StreamInterrupted(TransientLLMError):
    """A stream the server ended without a ``finish_reason``: cut, not finished."""


def checked_setting(stream: object) -> StreamSetting:
    if stream is True or stream is False or stream == "auto":
        return stream
    raise ConfigError(f"llm.stream must be true, false or auto, got '{stream}'")


def streams(setting: StreamSetting, endpoint: str) -> bool:
    """Whether to ask ``endpoint`` for streams (auto: unless it showed it takes none, :func:`asked_plainly`)."""
    if setting != "auto":
        return setting
    return endpoint not in _plain_only


def refuses_streams(param: str | None, message: str) -> bool:
    """Whether an HTTP 400 refused the stream parameters (its ``param``, or its message naming them)."""
    return param in ("stream", "stream_options") or bool(_STREAM_PARAMETER.search(message))


def asked_plainly(endpoint: str, cut: bool) -> str:
    """Remember that ``endpoint`` takes no streams (it cut one, or refused the parameters); the note."""
    _plain_only.add(endpoint)
    if cut:
        return ("the server ended a streamed answer before it finished (llama-cpp-python does so when another "
                "request arrives, its default --interrupt_requests): asking it plainly from now on, so a call cut "
                "short runs on at the server; start llama-cpp-python with --interrupt_requests False to have "
                "such calls stop there")
    return ("the server refused a streamed request (HTTP 400 on stream or stream_options): asking it plainly "
            "from now on, so a call cut short may run on at the server")


async def read_stream(stream: Any, endpoint: str, timeout: float, sent_at: float) -> Completion:
    """The whole answer of ``stream`` within ``timeout`` seconds of ``sent_at``; the stream closed after."""
    parts: list[str] = []
    finish, usage, chunks_with_text = "", None, 0
    left = max(0.001, timeout - (time.monotonic() - sent_at))
    try:
        async with asyncio.timeout(left), stream:  # leaving it closes the connection: the server stops
            async for chunk in stream:
                usage = getattr(chunk, "usage", None) or usage
                for choice in getattr(chunk, "choices", None) or []:
                    if getattr(choice, "index", 0) != 0:
                        continue
                    text = getattr(getattr(choice, "delta", None), "content", None)
                    if isinstance(text, str) and text:
                        parts.append(text)
                        chunks_with_text += 1
                    finish = str(getattr(choice, "finish_reason", None) or finish)
    except TimeoutError as exc:  # the whole answer, not each chunk, is held to the request's timeout
        raise TransientLLMError(f"timeout: no answer within {timeout:g} s", None, endpoint,
                                timed_out=True) from exc
    if not finish:
        raise StreamInterrupted(INTERRUPTED, None, endpoint)
    # usage without a prompt count (a gateway's partial object) is no better known than none
    known = isinstance(getattr(usage, "prompt_tokens", None), int)
    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0) if known else 0
    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0) if known else chunks_with_text
    return Completion(text="".join(parts), prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                      finish_reason=finish, usage_known=known)
