"""A chat completion asked as a stream and read whole, so that a call cut short stops at the server.

A request that is not streamed runs to its end at llama-cpp-python's server whatever the client does: a
guard check that answered at its deadline left the server generating 27-40 s more, and DPD's given-up
judges ran 152 s and 310 s more, holding the server's one slot (issue 65). Asked as a stream, the
connection carries the answer as it is written; closing it (the call's task cancelled by a deadline, a
given-up try, a failed sibling or a client that left) tells the server, which stops generating (llama.cpp,
llama-cpp-python and vLLM check for a closed connection between tokens).

The answer is still used whole: the chunks' text is joined, and the last chunk's ``finish_reason`` and the
usage (where the server sends it: ``stream_options.include_usage``) are read as from a plain reply. A
server that sends no usage in a stream (llama-cpp-python) is counted one completion token a chunk with
text, which is what llama.cpp's servers send, and no prompt tokens.

A stream that ends without a ``finish_reason`` was cut by the server, not finished: llama-cpp-python ends a
streamed answer early when another request arrives (``--interrupt_requests``, on by default), so it is a
transient error whose message says so, never a short answer read as complete.

``llm.stream: auto`` (the default) asks for streams where that is known to stop the server: the servers
whose ``GET /models`` names them (vLLM, llama.cpp's server, llama-cpp-python's), not OpenAI, gateways or
servers that say nothing. A server that cuts a stream because another request arrived (llama-cpp-python
without ``--interrupt_requests False``) is asked plainly from then on, for the rest of the process, and the
interrupted request is tried again; the change is noted once, naming the flag.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal

from factdebate.core.errors import ConfigError
from factdebate.llm.base import Completion, TransientLLMError

StreamSetting = bool | Literal["auto"]
INTERRUPTED = ("the server ended the streamed answer before it finished (llama-cpp-python does so when another "
               "request arrives: start it with --interrupt_requests False, or set llm.stream: false)")
# ``owned_by`` of the servers that stop generating when a stream's connection closes: vLLM, llama.cpp's
# server, llama-cpp-python's (which says "me").
STOPPING_SERVERS = frozenset({"vllm", "llamacpp", "llama.cpp", "me"})
# Endpoints that cut a stream when another request arrived: asked plainly for the rest of the process.
_cuts_streams: set[str] = set()


class StreamInterrupted(TransientLLMError):
    """A stream the server ended without a ``finish_reason``: cut, not finished."""


def checked_setting(stream: object) -> StreamSetting:
    if stream is True or stream is False or stream == "auto":
        return stream
    raise ConfigError(f"llm.stream must be true, false or auto, got '{stream}'")


def streams(setting: StreamSetting, owner: str | None, endpoint: str) -> bool:
    """Whether to ask ``endpoint`` (whose models are ``owned_by`` ``owner``; None: unknown) for streams."""
    if setting != "auto":
        return setting
    return (owner or "").strip().lower() in STOPPING_SERVERS and endpoint not in _cuts_streams


def cuts_streams(endpoint: str) -> str:
    """Remember that ``endpoint`` cuts streams (``auto`` asks it plainly from now on); the note saying so."""
    _cuts_streams.add(endpoint)
    return ("the server ended a streamed answer when another request arrived (llama-cpp-python's default "
            "--interrupt_requests): asking it plainly from now on, so a call cut short runs on at the server; "
            "start it with --interrupt_requests False to have such calls stop there")


async def read_stream(stream: Any, endpoint: str, timeout: float, sent_at: float) -> Completion:
    """The whole answer of ``stream`` (an ``AsyncStream`` of chat completion chunks) within ``timeout``
    seconds of ``sent_at`` (``time.monotonic()`` when the request was sent: its headers count too); the
    stream is closed on the way out, whatever ends the read (a cancellation included)."""
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
        raise TransientLLMError(f"APITimeoutError: no answer within {timeout:g} s", None, endpoint,
                                timed_out=True) from exc
    if not finish:
        raise StreamInterrupted(INTERRUPTED, None, endpoint)
    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0) if usage is not None else 0
    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0) if usage is not None else chunks_with_text
    return Completion(text="".join(parts), prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                      finish_reason=finish)
