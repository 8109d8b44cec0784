"""The LLM wrapper: retries against a real local server returning 429/500, cache keyed on the caller,
usage per role, bounded concurrency."""

from __future__ import annotations

import asyncio

import pytest

from factdebate.core.errors import EndpointUnavailableError, MissingKeyError
from factdebate.core.runtime import RunRecorder, recording
from factdebate.llm import make_backend
from factdebate.llm.base import GenParams
from factdebate.llm.cache import ResponseCache, cache_key
from factdebate.llm.calls import CallInfo, evaluating
from factdebate.llm.model import LLM, RetryPolicy
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.llm.scripted import ScriptedBackend
from factdebate.util.errors import FactDebateError
from tests.fake_openai import GARBAGE, FakeOpenAI

FAST = RetryPolicy(attempts=4, base_delay=0.01, max_delay=0.05, jitter=0.0)
MSG = [{"role": "user", "content": "Is Paris in France?"}]


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    recorded: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(delay: float, *args: object) -> None:
        recorded.append(delay)
        await real_sleep(0)

    monkeypatch.setattr("factdebate.llm.model.asyncio.sleep", fake_sleep)
    return recorded


async def test_retries_429_and_500_then_succeeds_honouring_retry_after(sleeps: list[float]) -> None:
    with FakeOpenAI([(429, "0.3"), (500, None)], reply="Yes.\nSUPPORTS") as server:
        llm = LLM(OpenAIBackend("m", base_url=server.base_url, api_key="sk-test"), "debater",
                  retry=RetryPolicy(attempts=4, base_delay=0.01, jitter=0.0))
        recorder = RunRecorder()
        with recording(recorder):
            completion = await llm.complete(MSG, GenParams(max_tokens=5))
    assert completion.text.endswith("SUPPORTS") and completion.prompt_tokens == 11
    assert len(server.requests) == 3
    assert sleeps == [0.3, 0.02]  # Retry-After honoured, then exponential backoff (2nd attempt)
    assert server.requests[0]["auth"] == "Bearer sk-test"
    assert server.requests[0]["body"]["max_tokens"] == 5
    usage = recorder.usage_by_role["debater"]
    # Three requests sent, each counted (the wire and the usage agree); the answer's tokens once.
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (3, 11, 3)


async def test_persistent_500_gives_up_after_the_cap_naming_the_url(sleeps: list[float]) -> None:
    with FakeOpenAI([(500, None)] * 10) as server:
        llm = LLM(OpenAIBackend("m", base_url=server.base_url, api_key="k"), "debater", retry=FAST)
        with pytest.raises(EndpointUnavailableError) as info:
            await llm.complete(MSG)
    assert len(server.requests) == 4 and len(sleeps) == 3
    assert server.base_url in str(info.value) and "4 attempt" in str(info.value)


async def test_unreachable_endpoint_is_retried_then_reported(sleeps: list[float]) -> None:
    llm = LLM(OpenAIBackend("m", base_url="http://127.0.0.1:9/v1", api_key="k", timeout=2), "judge", retry=FAST)
    with pytest.raises(EndpointUnavailableError, match=r"127\.0\.0\.1:9"):
        await llm.complete(MSG)


async def test_client_errors_are_not_retried(sleeps: list[float]) -> None:
    with FakeOpenAI([(400, None)]) as server:
        llm = LLM(OpenAIBackend("m", base_url=server.base_url, api_key="k"), "debater", retry=FAST)
        with pytest.raises(FactDebateError, match="HTTP 400"):
            await llm.complete(MSG)
    assert len(server.requests) == 1 and sleeps == []


def test_openai_key_required_only_for_openai_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(MissingKeyError, match="OPENAI_API_KEY"):
        make_backend("openai:gpt-4o-mini")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    backend = make_backend("openai:llama3")  # local servers need no key
    assert backend.endpoint == "http://127.0.0.1:8000/v1"


async def test_cache_is_keyed_on_who_asks(tmp_path) -> None:
    counter = {"n": 0}

    def respond(call, messages, params) -> str:
        counter["n"] += 1
        return f"answer {counter['n']}"

    cache = ResponseCache(tmp_path / "cache.sqlite")
    llm = LLM(ScriptedBackend(respond), "debater", cache=cache)
    first = await llm.complete(MSG, agent="rag", round=1)
    again = await llm.complete(MSG, agent="rag", round=1)
    other_agent = await llm.complete(MSG, agent="search", round=1)
    other_params = await llm.complete(MSG, GenParams(temperature=0.7), agent="rag", round=1)
    assert first.text == again.text == "answer 1"
    assert other_agent.text == "answer 2" and other_params.text == "answer 3"
    recorder = RunRecorder()
    with recording(recorder):
        await llm.complete(MSG, agent="rag", round=1)
    assert recorder.usage_by_role["debater"].cached_calls == 1
    # a different model name never reuses the entry
    other_model = LLM(ScriptedBackend(respond, name="scripted-2"), "debater", cache=cache)
    assert (await other_model.complete(MSG, agent="rag", round=1)).text == "answer 4"


async def test_identical_calls_in_flight_get_one_answer_and_a_replay_gets_it_too(tmp_path) -> None:
    """A model that answers one prompt two ways (llama.cpp resuming a remembered prefix is not batch-
    invariant) gave two concurrent claims' identical calls different answers, and a replay from the cache
    the one stored last. Now the second waits for the first: one call, one answer, the cache holds it."""
    counter = {"n": 0}

    def respond(call, messages, params) -> str:
        counter["n"] += 1
        return f"answer {counter['n']}"

    cache = ResponseCache(tmp_path / "cache.sqlite")
    llm = LLM(ScriptedBackend(respond, latency=0.05), "debater", cache=cache)
    recorder = RunRecorder()
    with recording(recorder):
        both = await asyncio.gather(*(llm.complete(MSG, agent="claim-2", round=1) for _ in range(3)))
    assert [c.text for c in both] == ["answer 1"] * 3 and counter["n"] == 1
    assert recorder.usage_by_role["debater"].cached_calls == 2  # answered without the model
    assert (await llm.complete(MSG, agent="claim-2", round=1)).text == "answer 1"
    # Without a cache every call asks the model (repeated samples are meant to differ then).
    uncached = LLM(ScriptedBackend(respond, latency=0.05), "debater")
    texts = {c.text for c in await asyncio.gather(*(uncached.complete(MSG) for _ in range(2)))}
    assert len(texts) == 2


async def test_independent_draws_of_one_call_are_not_one_cached_answer(tmp_path) -> None:
    """DPD's summarizer draws k statements from one prompt and keeps the medoid; with the cache on, the k
    draws must reach the model k times (the evaluation sample, unlike the draw, is not part of the key)."""
    counter = {"n": 0}

    def respond(call, messages, params) -> str:
        counter["n"] += 1
        return f"answer {counter['n']}"

    llm = LLM(ScriptedBackend(respond, latency=0.05), "debater", cache=ResponseCache(tmp_path / "c.sqlite"))
    draws = await asyncio.gather(*(llm.complete(MSG, agent="summarizer", draw=str(i)) for i in (1, 2, 3)))
    assert sorted(c.text for c in draws) == ["answer 1", "answer 2", "answer 3"] and counter["n"] == 3
    # Asked again, each draw is its own stored answer; for another evaluation sample too.
    with evaluating("claim-2"):
        again = [(await llm.complete(MSG, agent="summarizer", draw=str(i))).text for i in (1, 2, 3)]
    assert again == [c.text for c in draws] and counter["n"] == 3
    who = CallInfo(agent="summarizer", sample="claim-2")
    assert cache_key("b", GenParams(), MSG, who) == cache_key("b", GenParams(), MSG, CallInfo(agent="summarizer"))
    assert cache_key("b", GenParams(), MSG, CallInfo(agent="summarizer", draw="1")) != cache_key(
        "b", GenParams(), MSG, CallInfo(agent="summarizer"))


async def test_a_failed_call_in_flight_leaves_the_waiting_one_to_ask_itself(tmp_path) -> None:
    calls = {"n": 0}

    def respond(call, messages, params) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise FactDebateError("the first call breaks")
        return "answer"

    llm = LLM(ScriptedBackend(respond, latency=0.05), "debater", cache=ResponseCache(tmp_path / "c.sqlite"))
    first, second = await asyncio.gather(llm.complete(MSG), llm.complete(MSG), return_exceptions=True)
    assert isinstance(first, FactDebateError) and getattr(second, "text", None) == "answer" and calls["n"] == 2


async def test_concurrency_is_bounded() -> None:
    state = {"now": 0, "peak": 0}

    class Tracking(ScriptedBackend):
        async def complete(self, messages, params):  # type: ignore[no-untyped-def]
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
            try:
                return await super().complete(messages, params)
            finally:
                state["now"] -= 1

    llm = LLM(Tracking(lambda c, m, p: "ok", latency=0.01), "debater", concurrency=3)
    await asyncio.gather(*(llm.complete(MSG, agent=str(i)) for i in range(12)))
    assert state["peak"] == 3


def test_unknown_provider_is_a_clear_error() -> None:
    with pytest.raises(FactDebateError, match="unknown LLM provider"):
        make_backend("bard:x")
    with pytest.raises(FactDebateError, match="provider:model"):
        make_backend("gpt-4o")


async def test_a_200_with_an_unusable_body_is_retried(sleeps: list[float]) -> None:
    with FakeOpenAI([(GARBAGE, None), (GARBAGE, None)], reply="Fine.\nREFUTES") as server:
        llm = LLM(OpenAIBackend("m", base_url=server.base_url, api_key="k"), "debater", retry=FAST)
        completion = await llm.complete(MSG)
    assert completion.text.endswith("REFUTES") and len(server.requests) == 3 and len(sleeps) == 2


async def test_retry_after_is_honoured_beyond_the_backoff_cap(sleeps: list[float]) -> None:
    with FakeOpenAI([(429, "3")]) as server:
        llm = LLM(OpenAIBackend("m", base_url=server.base_url, api_key="k"), "debater", retry=FAST)
        await llm.complete(MSG)
    assert sleeps == [3.0]  # FAST caps backoff at 0.05 s; the server's word wins


async def test_a_call_gives_up_when_its_time_budget_is_spent(sleeps: list[float]) -> None:
    policy = RetryPolicy(attempts=50, budget=5.0, base_delay=0.01, jitter=0.0)
    with FakeOpenAI([(503, "2")] * 50) as server:
        llm = LLM(OpenAIBackend("m", base_url=server.base_url, api_key="k"), "debater", retry=policy)
        with pytest.raises(EndpointUnavailableError, match="retry budget"):
            await llm.complete(MSG)
    # The waits are faked (no time passes), so the budget stops the third wait: 2 + 2 + 2 > 5.
    assert sleeps == [2.0, 2.0] and len(server.requests) == 3
