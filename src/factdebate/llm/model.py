"""One wrapper over any backend: bounded concurrency, retries with jittered backoff under a time budget per
call, an on-disk cache, usage accounting per role and trace events."""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from dataclasses import dataclass

from factdebate.core.errors import EndpointUnavailableError, FactDebateError
from factdebate.core.runtime import current_run
from factdebate.core.textsafe import safe_text
from factdebate.llm.base import Backend, Completion, FatalLLMError, GenParams, Message, TransientLLMError
from factdebate.llm.cache import ResponseCache, cache_key
from factdebate.llm.calls import CallInfo, reset_call, set_call
from factdebate.util.redact import redact_text


@dataclass(frozen=True)
class RetryPolicy:
    """Transient failures (5xx, 429, timeouts, a 200 with an unusable body) are retried until the call has
    spent ``budget`` seconds or made ``attempts`` tries. A claim makes dozens of calls, so a small attempt
    count turns a few percent of faulty responses into many failed claims; a time budget rides them out
    and still ends a call against a dead server (benchmarks/faults.py)."""

    attempts: int = 16  # hard cap on tries, first one included
    budget: float = 120.0  # seconds one call may spend on tries and waits together
    base_delay: float = 0.25
    max_delay: float = 10.0
    jitter: float = 0.5  # the share of each backoff step drawn at random, so failed callers spread out

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """The wait before try ``attempt + 1``: the server's ``Retry-After`` when it gives one (it knows
        best), else exponential backoff with jitter."""
        if retry_after is not None and retry_after >= 0:
            return retry_after
        step = min(self.base_delay * 2 ** (attempt - 1), self.max_delay)
        return step * (1 - self.jitter) + random.uniform(0, step * self.jitter)


class LLM:
    """A backend bound to a role (``debater``, ``judge``, ``scorer``...)."""

    def __init__(
        self,
        backend: Backend,
        role: str,
        *,
        concurrency: int | None = None,
        retry: RetryPolicy | None = None,
        cache: ResponseCache | None = None,
        semaphore: asyncio.Semaphore | None = None,
        one_call_verdict: bool = True,
    ) -> None:
        self.backend = backend
        self.role = role
        # Ask for reasoning and verdict in one constrained generation (settings.llm.one_call_verdict).
        self.one_call_verdict = one_call_verdict
        self.retry = retry or RetryPolicy()
        self.cache = cache
        limit = concurrency or backend.max_parallel
        # Roles that share one backend should share its semaphore; the factory passes it in.
        self._semaphore = semaphore or asyncio.Semaphore(limit)

    @property
    def name(self) -> str:
        return self.backend.name

    async def complete(
        self,
        messages: list[Message],
        params: GenParams | None = None,
        *,
        agent: str = "",
        round: int = 0,
        prompt: str = "",
        sample: str = "",
    ) -> Completion:
        params = params or GenParams()
        who = CallInfo(role=self.role, agent=agent, round=round, prompt=prompt, sample=sample)
        key = cache_key(self.backend.name, params, messages, who) if self.cache else ""
        cached = self.cache.get(key) if self.cache else None
        attempts, seconds = 0, 0.0
        if cached is not None:
            completion = cached
        else:
            completion, attempts, seconds = await self._call_with_retries(messages, params, who)
            completion.text = safe_text(completion.text)  # model replies enter the system here
            if self.cache:
                self.cache.put(key, completion)
        self._account(who, completion, seconds, cached=cached is not None, attempts=attempts,
                      messages=messages)
        return completion

    async def _call_with_retries(
        self, messages: list[Message], params: GenParams, who: CallInfo
    ) -> tuple[Completion, int, float]:
        """Returns the completion, the attempts it took and the seconds the backend spent on it (time
        queued behind the concurrency limit is not counted)."""
        last_error = ""
        spent = 0.0  # seconds of tries and waits so far (time queued for the semaphore is not counted)
        attempt = 0
        for attempt in range(1, self.retry.attempts + 1):
            token = set_call(who)
            try:
                async with self._semaphore:
                    started = time.perf_counter()
                    try:
                        completion = await self.backend.complete(messages, params)
                    except asyncio.CancelledError:
                        run = current_run()
                        if run is not None:
                            run.call_cancelled(who.role)
                        raise
                    finally:
                        spent += time.perf_counter() - started
                    return completion, attempt, time.perf_counter() - started
            except TransientLLMError as exc:
                last_error = redact_text(str(exc))
                if attempt == self.retry.attempts or (exc.give_up_after and attempt >= exc.give_up_after):
                    break
                delay = self.retry.delay(attempt, exc.retry_after)
                if spent + delay > self.retry.budget:
                    last_error += f" (the next try would pass the call's {self.retry.budget:g} s retry budget)"
                    break
                run = current_run()
                if run:
                    run.emit("llm_retry", role=who.role, agent=who.agent, attempt=attempt,
                             error=last_error, delay=round(delay, 3))
                await asyncio.sleep(delay)
                spent += delay
            except FatalLLMError as exc:
                raise FactDebateError(f"{self.backend.name}: {exc}") from exc
            finally:
                reset_call(token)
        raise EndpointUnavailableError(self.backend.endpoint or self.backend.name, attempt, last_error)

    def _account(self, who: CallInfo, completion: Completion, seconds: float, *, cached: bool,
                 attempts: int, messages: list[Message]) -> None:
        run = current_run()
        if run is None:
            return
        usage = run.role_usage(who.role)
        usage.llm_calls += 1
        usage.prompt_tokens += completion.prompt_tokens
        usage.completion_tokens += completion.completion_tokens
        usage.seconds += seconds
        usage.cached_calls += int(cached)
        if not run.listening():
            return  # nobody listens: skip hashing the prompt
        prompt_hash = hashlib.sha256("".join(m["content"] for m in messages).encode()).hexdigest()[:12]
        run.emit("llm_call", model=self.backend.name, prompt_hash=prompt_hash, cached=cached,
                 attempts=attempts, seconds=round(seconds, 4), prompt_tokens=completion.prompt_tokens,
                 completion_tokens=completion.completion_tokens, **who.as_dict())
