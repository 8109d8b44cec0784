"""A model server that answers badly on purpose (tests/hostile_server.py), met by the backend every paper
method's model call goes through (llm/openai_compat.py over util/http_client.py's aiohttp session): each answer
is read to a size and a deadline, whatever the server sends, and the error says which.
The server counts what it sent before the client hung up: a client that stopped at its limit has been sent
its limit and the sockets' buffers, not the flood."""

from __future__ import annotations

import time

import pytest

from factdebate.llm.base import BrokenAnswer, FatalLLMError, GenParams, TransientLLMError
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.util.http_client import MAX_BODY_BYTES
from tests.hostile_server import BUFFERS, UNREADABLE, HostileServer

MESSAGES = [{"role": "user", "content": "Is the sky blue?"}]


def backend(server: HostileServer, stream: bool, timeout: float = 1.5) -> OpenAIBackend:
    return OpenAIBackend("m", base_url=server.url, api_key="sk-test-hostile-0000", timeout=timeout,
                         constrain="none", stream=stream)


async def call(model: OpenAIBackend) -> Exception:
    try:
        await model._create(MESSAGES, GenParams(), _plain_request())  # one try: the wrapper's retries apart
    except (FatalLLMError, TransientLLMError) as exc:
        return exc
    finally:
        await model.aclose()
    raise AssertionError("a hostile answer was taken as a completion")


def _plain_request() -> object:
    from factdebate.llm.constraints import openai_request

    return openai_request(GenParams(), "none")


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", ["flood", "lying_length", "gzip_bomb"])
async def test_an_answer_without_end_stops_at_the_limit_and_says_so(kind: str, stream: bool) -> None:
    with HostileServer(kind) as server:
        exc = await call(backend(server, stream))
        assert isinstance(exc, FatalLLMError), exc  # trying again would cost as much again
        assert "the model's answer is larger than 16 MiB" in str(exc) or "a line of the model's answer" in str(exc)
        time.sleep(0.2)
        assert server.sent <= MAX_BODY_BYTES + BUFFERS


async def test_one_stream_line_without_end_stops_at_the_line_limit() -> None:
    with HostileServer("long_line") as server:
        exc = await call(backend(server, stream=True))
        assert isinstance(exc, FatalLLMError) and "a line of the model's answer is larger than 4 MiB" in str(exc)
        time.sleep(0.2)
        assert server.sent <= (4 << 20) + BUFFERS


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", ["trickle", "trickle_head"])
async def test_an_answer_that_trickles_ends_at_the_calls_timeout(kind: str, stream: bool) -> None:
    with HostileServer(kind, pause=0.1) as server:
        model = backend(server, stream, timeout=1.0)  # made first: the SDK's import is not the call's time
        started = time.monotonic()
        exc = await call(model)
        assert isinstance(exc, TransientLLMError) and exc.timed_out, exc
        # The 1 s timeout, not the 120 s default; the margin is for a loaded machine, the trickle has no end.
        assert time.monotonic() - started < 10.0


@pytest.mark.parametrize("kind", ["negative_length", "negative_chunk"])
async def test_a_negative_length_is_a_broken_answer_not_a_crash(kind: str) -> None:
    with HostileServer(kind) as server:
        exc = await call(backend(server, stream=False))
        assert isinstance(exc, TransientLLMError) and "connection error" in str(exc)


async def test_a_model_list_that_floods_or_trickles_says_nothing_within_its_limits() -> None:
    for kind in ("flood", "trickle"):
        with HostileServer(kind, pause=0.1) as server:
            started = time.monotonic()
            assert await backend(server, stream=False, timeout=1.0).server_owner() == ""
            assert time.monotonic() - started < 10.0  # the 1 s timeout, not the 120 s default


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", UNREADABLE)
async def test_an_answer_that_cannot_be_read_is_a_broken_answer_at_once(kind: str, stream: bool) -> None:
    """Bytes gzipped twice, bytes that are not UTF-8, JSON nested past the parser: the same at every try, so
    none is made, and the error says what was wrong (never a bare UnicodeDecodeError or RecursionError)."""
    with HostileServer(kind) as server:
        exc = await call(backend(server, stream))
        assert isinstance(exc, BrokenAnswer), exc
        assert "unusable response body: the answer" in str(exc)
        assert server.requests == 1
