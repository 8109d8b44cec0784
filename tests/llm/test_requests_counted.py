"""Every request sent is counted: a retry and a try the caller cancelled are requests
the server saw, so ``llm_calls`` counts them as they are sent, not only the calls that were answered."""

from __future__ import annotations

import asyncio

import pytest

from factdebate.core.errors import EndpointSlowError, EndpointUnavailableError
from factdebate.core.runtime import RunRecorder, recording
from factdebate.llm.base import Completion, GenParams, Message, TransientLLMError
from factdebate.llm.model import LLM, RetryPolicy
from factdebate.llm.scripted import ScriptedBackend

MSG: list[Message] = [{"role": "user", "content": "Is Paris in France?"}]


class Flaky(ScriptedBackend):
    """Fails its first ``failures`` tries (timed out or refused), then answers; or holds every try until
    ``release`` is set."""

    def __init__(self, failures: int, *, timed_out: bool = False, release: asyncio.Event | None = None) -> None:
        super().__init__(lambda call, messages, params: "yes")
        self.failures, self.timed_out, self.release, self.tries = failures, timed_out, release, 0
        self.started = asyncio.Event()

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        self.tries += 1
        self.started.set()
        if self.release is not None:
            await self.release.wait()
        if self.tries <= self.failures:
            raise TransientLLMError("no answer within 1 s" if self.timed_out else "connection refused",
                                    timed_out=self.timed_out)
        return await super().complete(messages, params)


def _llm(backend: Flaky, attempts: int = 16) -> LLM:
    return LLM(backend, "debater", retry=RetryPolicy(attempts=attempts, base_delay=0.0, max_delay=0.0, jitter=0.0))


async def test_retries_are_counted_as_the_requests_they_are() -> None:
    backend, run = Flaky(2), RunRecorder([])
    with recording(run):
        await _llm(backend).complete(MSG)
    assert backend.tries == 3 and run.role_usage("debater").llm_calls == 3


async def test_a_cancelled_request_is_counted() -> None:
    backend, run = Flaky(0, release=asyncio.Event()), RunRecorder([])
    with recording(run):
        call = asyncio.ensure_future(_llm(backend).complete(MSG))
        await backend.started.wait()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
    assert run.role_usage("debater").llm_calls == 1


async def test_a_server_that_times_out_is_called_slow_and_one_that_refuses_unreachable() -> None:
    with pytest.raises(EndpointSlowError, match="slow or busy, not unreachable"):
        await _llm(Flaky(5, timed_out=True), attempts=2).complete(MSG)
    with pytest.raises(EndpointUnavailableError, match="could not reach") as refused:
        await _llm(Flaky(5), attempts=2).complete(MSG)
    assert not isinstance(refused.value, EndpointSlowError)
