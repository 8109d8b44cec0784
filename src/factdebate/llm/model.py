"""One wrapper over any backend: bounded concurrency, retries with jittered backoff under a time budget per
call, an on-disk cache, usage accounting per role and trace events."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import random
import time
from dataclasses import dataclass

import factdebate.llm.breaker as breaker  # the modules, not the package (whose __init__ imports this one)
import factdebate.llm.hung_calls as hung_calls
from factdebate.core.errors import EndpointSlowError, EndpointUnavailableError, ModelAnswerUnusable
from factdebate.core.runtime import current_run
from factdebate.llm.base import (
    Backend,
    BrokenAnswer,
    Completion,
    FatalLLMError,
    GenParams,
    Message,
    TransientLLMError,
)
from factdebate.llm.cache import ResponseCache, cache_key
from factdebate.llm.calls import CallInfo, count_call, current_sample, reset_call, set_call
from factdebate.llm.failure_budget import current_budget
from factdebate.llm.in_flight import learn, limit_for, slot, wants_asking
from factdebate.llm.transcript import DEFAULT_CALL_CHARS, call_text, transcript_call_chars, transcript_chars
from factdebate.util.errors import FactDebateError
from factdebate.util.observe import watched
from factdebate.util.scrub import redact_text
from factdebate.util.textsafe import safe_text


@dataclass(frozen=True)
class RetryPolicy:
    """Transient failures are retried until the retries have spent ``budget`` seconds or the call has made
    ``attempts`` tries: a time budget rides out a few faulty responses among a claim's dozens of calls, and
    still ends a call against a dead server (benchmarks/faults.py)."""

    attempts: int = 16  # hard cap on tries, first one included
    budget: float = 120.0  # seconds one call may spend on tries and waits together
    base_delay: float = 0.25
    max_delay: float = 10.0
    jitter: float = 0.5  # the share of each backoff step drawn at random, so failed callers spread out

    def stop_reason(self, attempt: int, give_up_after: int | None, spent_by_next: float,
                    shared_failures: int | None) -> str | None:
        """Why no try follows try ``attempt`` ("" when no more need saying), or None to try again: attempts,
        the time budget (``spent_by_next``) or the work's shared failure budget (``shared_failures``) spent."""
        if shared_failures is not None:
            return f" ({shared_failures} tries of this work's model calls failed: no more tries)"
        if attempt >= self.attempts or (give_up_after and attempt >= give_up_after):
            return ""
        if spent_by_next > self.budget:
            return f" (the next try would pass the call's {self.budget:g} s retry budget)"
        return None

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """The wait before try ``attempt + 1``: the server's ``Retry-After``, else jittered backoff."""
        if retry_after is not None and retry_after >= 0:
            return retry_after
        step = min(self.base_delay * 2 ** (attempt - 1), self.max_delay)
        return step * (1 - self.jitter) + random.uniform(0, step * self.jitter)


@dataclass
class _Tries:
    """One call's tries so far: how many, the retries' seconds, and how many were given up as hung."""

    attempt: int = 0
    spent: float = 0.0
    given_up: int = 0


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
        max_in_flight: int | None = None,
        model: str | None = None,
    ) -> None:
        self.backend = backend
        self.role = role
        # The settings' name of the model (what ``--price`` names and usage is kept under), without the endpoint.
        self.model = model or backend.name
        self.one_call_verdict = one_call_verdict
        self.retry = retry or RetryPolicy()
        self.cache = cache
        limit = concurrency or backend.max_parallel
        # Roles that share one backend should share its semaphore; the factory passes it in.
        self._semaphore = semaphore or asyncio.Semaphore(limit)
        self.max_in_flight = limit_for(backend.endpoint, max_in_flight)
        self._set_in_flight = max_in_flight  # the operator's; unset, a local server is asked first (below)
        self._slots_asked = False
        # Give up early on a try that hangs while others wait for its in-flight slot (hung_calls.py).
        self.cut_hung_calls = True

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
        draw: str = "",
    ) -> Completion:
        params = params or GenParams()
        who = CallInfo(role=self.role, agent=agent, round=round, prompt=prompt, sample=sample or current_sample(),
                       draw=draw)
        key = cache_key(self.backend.name, params, messages, who) if self.cache else ""
        cached = self.cache.get(key) if self.cache else None
        if cached is None and self.cache and (flight := self.cache.in_flight(key)) is not None:
            # The same call is being asked now: its answer, as the cache would give it once stored
            # (shielded: this caller's cancellation must not cancel the answer the others wait for).
            answer = await asyncio.shield(flight)
            cached = copy.copy(answer) if answer is not None else None
        attempts, seconds = 0, 0.0
        if cached is not None:
            completion = cached
            count_call(cached=True)
        elif self.cache:
            future = self.cache.take_off(key)
            answer = None
            try:
                completion, attempts, seconds = await self._ask(messages, params, who)
                self.cache.put(key, completion)
                answer = copy.copy(completion)
            finally:
                self.cache.land(key, future, answer)
        else:
            completion, attempts, seconds = await self._ask(messages, params, who)
        self._account(who, completion, seconds, cached=cached is not None, attempts=attempts,
                      messages=messages)
        return completion

    async def _ask(self, messages: list[Message], params: GenParams,
                   who: CallInfo) -> tuple[Completion, int, float]:
        completion, attempts, seconds = await self._call_with_retries(messages, params, who)
        completion.text = safe_text(completion.text)  # model replies enter the system here
        return completion, attempts, seconds

    async def _call_with_retries(
        self, messages: list[Message], params: GenParams, who: CallInfo
    ) -> tuple[Completion, int, float]:
        """The completion, its attempts and the backend's seconds (not the time queued behind the limits)."""
        if not self._slots_asked:
            await self._ask_server_slots()
        shared = current_budget()
        if shared is not None and shared.spent:
            raise EndpointUnavailableError(self.backend.endpoint or self.backend.name, 0, f"{shared.failed} tries "
                                           "of this work's model calls failed already: not called again")
        tries = _Tries()
        while True:
            tries.attempt += 1
            try:
                return await self._one_try(messages, params, who, tries)
            except TransientLLMError as exc:
                error = redact_text(str(exc))
                if shared is not None:
                    shared.failed += 1
                delay = self.retry.delay(tries.attempt, exc.retry_after)
                why = self.retry.stop_reason(tries.attempt, exc.give_up_after, tries.spent + delay,
                                             None if shared is None or not shared.spent else shared.failed)
                if why is not None:
                    raise self._given_up(tries.attempt, error + why, exc.timed_out) from None
            if (run := current_run()) is not None:
                run.emit("llm_retry", role=who.role, agent=who.agent, attempt=tries.attempt, error=error,
                         delay=round(delay, 3))
            tries.spent += delay
            await asyncio.sleep(delay)

    def _given_up(self, attempts: int, error: str, timed_out: bool) -> FactDebateError:
        """The call's failure once no try is left: a server that kept timing out is slow, else unavailable."""
        where = self.backend.endpoint or self.backend.name
        if timed_out:
            return EndpointSlowError(where, attempts, error + self._slow_server_hint())
        return EndpointUnavailableError(where, attempts, error)

    async def _one_try(self, messages: list[Message], params: GenParams, who: CallInfo,
                       tries: _Tries) -> tuple[Completion, int, float]:
        """One request past the concurrency limits, its outcome told to the circuit breaker."""
        endpoint = self.backend.endpoint
        breaker.before_call(endpoint, self.model)  # a server that is down: no call, no wait (llm/breaker.py)
        token = set_call(who)
        try:
            completion, seconds = await self._sent(messages, params, who, tries)
        except TransientLLMError as exc:
            if not exc.refused:
                breaker.answered(endpoint)  # a server that answers late or with an error runs
            elif breaker.refused(endpoint):
                breaker.before_call(endpoint, self.model)  # down now: said at once, not retried
            tries.given_up += isinstance(exc, hung_calls.HungCall)
            raise
        except FatalLLMError as exc:
            breaker.answered(endpoint)
            unusable = isinstance(exc, BrokenAnswer)
            raise (ModelAnswerUnusable if unusable else FactDebateError)(f"{self.backend.name}: {exc}") from exc
        finally:
            reset_call(token)
        breaker.answered(endpoint)
        return completion, tries.attempt, seconds

    async def _sent(self, messages: list[Message], params: GenParams, who: CallInfo,
                    tries: _Tries) -> tuple[Completion, float]:
        """The backend's answer and the seconds it took, once a slot is free."""
        limited = self.cut_hung_calls and self.max_in_flight is not None
        state = hung_calls.endpoint(self.backend.endpoint) if limited else None
        in_flight = slot(self.backend.endpoint, self.max_in_flight)
        async with self._semaphore, (hung_calls.queued(state, in_flight) if state else in_flight):
            if tries.attempt == 1 and (run := current_run()) is not None and run.wants("llm_started"):
                # Sent now: a live view shows the call as running until its llm_call arrives.
                run.emit("llm_started", model=self.backend.name, **who.as_dict())
            started = time.perf_counter()
            count_call(cached=False)  # sent: counted even when the deadline cuts it before its answer
            self._count_sent(who)
            try:
                # each try sent, for the service's metrics and traces (util/observe.py)
                with watched("model_call", model=self.model, role=who.role) as learnt:
                    answer = self.backend.complete(messages, params)
                    completion = await (hung_calls.watched(state, answer, tries.given_up, self._timeout)
                                        if state else answer)
                    if completion.usage_known:  # a count the server did not report is no 0 to show
                        learnt.update(input_tokens=str(completion.prompt_tokens),
                                      output_tokens=str(completion.completion_tokens))
            except asyncio.CancelledError:
                if (run := current_run()) is not None:
                    run.call_cancelled(who.role, self.model)
                raise
            finally:
                if tries.attempt > 1:
                    tries.spent += time.perf_counter() - started
            return completion, time.perf_counter() - started

    async def _ask_server_slots(self) -> None:
        """Before the first request, what a local server says it serves at once (llm/server_slots.py)."""
        endpoint = self.backend.endpoint
        ask = getattr(self.backend, "server_slots", None)
        if ask is not None and wants_asking(endpoint, self._set_in_flight):
            await learn(endpoint, ask)
        self.max_in_flight = limit_for(endpoint, self._set_in_flight)
        self._slots_asked = True

    def _slow_server_hint(self) -> str:
        """What to change when the server kept timing out: a longer timeout, or fewer requests in flight."""
        shown = f"{self.max_in_flight} at a time" if self.max_in_flight else "no limit"
        lower = ("" if self.max_in_flight == 1 else
                 ", or lower llm.max_in_flight (--llm-max-in-flight) if it serves fewer at once")
        return (f"; the server was sent requests {shown} (llm.max_in_flight, --llm-max-in-flight) and did not "
                f"answer in time: raise llm.timeout (FACTDEBATE_LLM__TIMEOUT){lower}")

    @property
    def _timeout(self) -> float | None:
        """The backend's own request timeout, if it has one: no try is given up as hung before it."""
        timeout = getattr(self.backend, "timeout", None)
        return float(timeout) if isinstance(timeout, int | float) and timeout > 0 else None

    def _count_sent(self, who: CallInfo) -> None:
        """One request counted as it is sent: retries and tries given up or cut are requests the server saw."""
        run = current_run()
        if run is not None:
            run.role_usage(who.role).llm_calls += 1
            run.model_usage(self.model).llm_calls += 1

    def _account(self, who: CallInfo, completion: Completion, seconds: float, *, cached: bool,
                 attempts: int, messages: list[Message]) -> None:
        run = current_run()
        if run is None:
            return
        usage = run.role_usage(who.role)
        usage.llm_calls += int(cached)  # a sent request was counted when it was sent (_count_sent)
        usage.prompt_tokens += completion.prompt_tokens
        usage.completion_tokens += completion.completion_tokens
        usage.reasoning_tokens += completion.reasoning_tokens
        usage.seconds += seconds
        usage.cached_calls += int(cached)
        by_model = run.model_usage(self.model)
        by_model.llm_calls += int(cached)
        by_model.prompt_tokens += completion.prompt_tokens
        by_model.completion_tokens += completion.completion_tokens
        by_model.reasoning_tokens += completion.reasoning_tokens
        by_model.cached_calls += int(cached)
        if not run.wants("llm_call"):
            return  # nobody reads it: skip hashing the prompt
        prompt_hash = hashlib.sha256("".join(m["content"] for m in messages).encode()).hexdigest()[:12]
        # The call's text when the caller asked for a transcript; a cached answer's text as much as a fresh one's.
        chars = transcript_chars() or run.transcript()  # asked of the whole process (the CLI's), or by a sink
        text = call_text(messages, completion, chars, transcript_call_chars() or max(chars, DEFAULT_CALL_CHARS)) \
            if chars else {}
        run.emit("llm_call", model=self.backend.name, prompt_hash=prompt_hash, cached=cached,
                 attempts=attempts, seconds=round(seconds, 4), prompt_tokens=completion.prompt_tokens,
                 completion_tokens=completion.completion_tokens, reasoning_tokens=completion.reasoning_tokens,
                 **({} if completion.usage_known else {"usage_known": False}), **who.as_dict(), **text)
