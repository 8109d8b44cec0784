"""A slow model server that serves one request at a time (a laptop's llama.cpp or Ollama) must not fail
claims: requests in flight are limited per endpoint, for every role and every set of resources of the
process, and the wait for a slot never counts against a request's timeout; a timeout is retried; when
the retries run out, the error names the settings to change; resuming accepts a changed limit."""

from __future__ import annotations

import asyncio

import pytest

from factdebate.core.errors import EndpointUnavailableError
from factdebate.llm.in_flight import default_limit
from factdebate.run.build import build_resources
from factdebate.run.resume import settings_changes
from factdebate.settings.load import load_settings
from factdebate.settings.options import Option
from tests.fake_openai import FakeOpenAI

MSG = [{"role": "user", "content": "Is Paris in France?"}]


def settings_for(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, **llm: object) -> object:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    return load_settings(overrides={"llm": {"debater": "openai:a", "judge": "openai:b", "cache": False,
                                            "constrain": "none", **llm}}, environ={})


async def test_many_concurrent_calls_to_a_one_slot_server_all_complete(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each answer takes 0.3 s and the client waits 1.5 s for one: 8 calls queued at the server would time out
    # (the last would wait 2.4 s), while one answer on a loaded machine keeps 1.2 s of room.
    with FakeOpenAI(reply="ok", one_at_a_time=True, delay=0.3) as server:
        settings = settings_for(server, monkeypatch, timeout=1.5, retry_budget=1.5)
        # Two models, two roles each, and two sets of resources (as the service keeps per settings): one limit.
        first, second = build_resources(settings), build_resources(settings)  # type: ignore[arg-type]
        llms = [first.llm("debater"), first.llm("judge"), second.llm("debater"), second.llm("judge")]
        completions = await asyncio.gather(*(llm.complete(MSG, agent=str(i)) for i in range(2) for llm in llms))
    assert [c.text for c in completions] == ["ok"] * 8
    assert server.peak == 1 and len(server.requests) == 8  # one at a time, none retried


async def test_a_timed_out_try_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first answer comes after the timeout, which is as long as the retry budget (120 s each by default).
    # The second try must answer within that timeout too: 0.5 s was too short for a loopback answer on a
    # loaded machine (1 failure in 20 at load 16), so 2 s, the first answer held back twice as long.
    with FakeOpenAI(reply="ok", delays=[4.0]) as server:
        settings = settings_for(server, monkeypatch, timeout=2.0, retry_budget=2.0)
        completion = await build_resources(settings).llm("debater").complete(MSG)  # type: ignore[arg-type]
    assert completion.text == "ok" and len(server.requests) >= 1


async def test_when_timeouts_exhaust_the_retries_the_error_names_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(reply="ok", delay=1.0) as server:
        settings = settings_for(server, monkeypatch, timeout=0.2, retries=2)
        with pytest.raises(EndpointUnavailableError) as caught:
            await build_resources(settings).llm("debater").complete(MSG)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "after 2 attempt(s)" in message and "llm.timeout" in message and "0.2 s" in message, message
    assert "llm.max_in_flight" in message and "--llm-max-in-flight" in message, message


def test_the_default_limit_suits_a_local_server_and_a_hosted_api() -> None:
    for local in ("http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1"):
        assert default_limit(local) == 1, local
    assert default_limit("https://api.openai.com/v1") == 64
    assert default_limit("http://gpu-box.internal:8000/v1") == 64


def test_the_limit_is_a_flag_and_a_speed_only_setting() -> None:
    overrides = Option.overrides({"llm_max_in_flight": 4})
    assert overrides == {"llm": {"max_in_flight": 4}}
    before = load_settings(environ={}).model_dump(mode="json")
    after = load_settings(overrides=overrides, environ={}).model_dump(mode="json")
    assert after["llm"]["max_in_flight"] == 4
    assert settings_changes(before, after) == []  # a run may resume with another limit


# What a server on this machine says of itself (llm/server_slots.py). A llama-server's /props, as it answers
# (the fields around total_slots trimmed): asked at the server's root, not under /v1.
LLAMA_SERVER_PROPS = {"default_generation_settings": {"n_ctx": 4096, "temperature": 0.8}, "total_slots": 3,
                      "model_path": "/models/qwen2.5-0.5b-instruct-q4_k_m.gguf", "chat_template": "{{ x }}",
                      "build_info": "b4200-abc1234"}


@pytest.fixture(autouse=True)
def nothing_learned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no server asked: what a server said is kept per process, by its address, and a
    port is reused between tests."""
    from factdebate.llm import in_flight

    monkeypatch.setattr(in_flight, "_learned", {})


async def eight_calls(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, **llm: object) -> None:
    settings = settings_for(server, monkeypatch, **llm)
    first, second = build_resources(settings), build_resources(settings)  # type: ignore[arg-type]
    llms = [first.llm("debater"), first.llm("judge"), second.llm("debater"), second.llm("judge")]
    completions = await asyncio.gather(*(llm.complete(MSG, agent=str(i)) for i in range(2) for llm in llms))
    assert [c.text for c in completions] == ["ok"] * 8


async def test_a_llama_server_is_sent_as_many_at_once_as_its_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(reply="ok", delay=0.3, owner="llamacpp", props=LLAMA_SERVER_PROPS) as server:
        await eight_calls(server, monkeypatch)
    assert server.peak == 3 and len(server.requests) == 8
    # asked once for the process, for both models and both sets of resources
    assert server.gets == ["/v1/models", "/props"]


async def test_a_batching_server_gets_every_call_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(reply="ok", delay=0.8, owner="vllm") as server:
        await eight_calls(server, monkeypatch)
    assert server.peak == 8 and server.gets == ["/v1/models"]  # vLLM's owned_by says it: no /props asked


async def test_what_the_operator_sets_wins_and_nothing_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(reply="ok", delay=0.2, owner="llamacpp", props=LLAMA_SERVER_PROPS) as server:
        await eight_calls(server, monkeypatch, max_in_flight=2)
    assert server.peak == 2 and server.gets == []


@pytest.mark.parametrize(("owner", "props"), [
    ("me", LLAMA_SERVER_PROPS),  # llama-cpp-python's serves one at a time: /props is not asked
    ("library", None),  # a server of another kind without /props (404)
    ("llamacpp", {**LLAMA_SERVER_PROPS, "total_slots": "3"}),  # not a whole number: says nothing
])
async def test_a_server_that_says_nothing_usable_keeps_one_at_a_time(owner: str, props: dict[str, object] | None,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(reply="ok", delay=0.05, owner=owner, props=props, one_at_a_time=True) as server:
        await eight_calls(server, monkeypatch, timeout=5.0)
    assert server.peak == 1
    assert server.gets == (["/v1/models"] if owner == "me" else ["/v1/models", "/props"])


async def test_a_server_that_did_not_answer_is_asked_again_and_one_that_said_nothing_is_not() -> None:
    from factdebate.llm.in_flight import default_limit, learn, learned
    from factdebate.llm.server_slots import Slots

    asked: list[str] = []

    async def down() -> Slots | None:
        asked.append("down")
        raise ConnectionRefusedError("nothing listens")

    async def says(count: int | None) -> Slots | None:
        asked.append("says")
        return None if count is None else Slots(count, "test")

    endpoint = "http://127.0.0.1:9/v1"
    await learn(endpoint, down)  # not started yet: the default stands, nothing kept
    assert learned(endpoint) is None and default_limit(endpoint) == 1
    await asyncio.gather(*(learn(endpoint, lambda: says(4)) for _ in range(5)))  # asked once for all five
    assert asked == ["down", "says"] and default_limit(endpoint) == 4 and default_limit(endpoint + "/") == 4
    other = "http://localhost:10/v1"
    await learn(other, lambda: says(None))
    await learn(other, lambda: says(6))  # it answered and said nothing: not asked again in this process
    assert asked == ["down", "says", "says"] and default_limit(other) == 1


def test_what_a_server_says_is_read_strictly() -> None:
    from factdebate.llm.server_slots import MOST, from_owner, from_props, props_url

    assert props_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/props"
    assert props_url("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080/props"
    assert props_url("http://127.0.0.1:8080") == "http://127.0.0.1:8080/props"
    assert props_url("http://127.0.0.1:8080/llama/v1") == "http://127.0.0.1:8080/llama/props"
    slots = from_props({"total_slots": 4})
    assert slots is not None and slots.count == 4 and "total_slots 4" in slots.said_by
    for nothing in ({"total_slots": True}, {"total_slots": 0}, {"total_slots": -2}, {"total_slots": 2.0},
                    {"total_slots": None}, {}, [4], "4", None):
        assert from_props(nothing) is None, nothing
    huge = from_props({"total_slots": 10_000})
    assert huge is not None and huge.count == MOST  # never more than a remote server gets
    assert from_owner("vLLM ") is not None and from_owner("sglang") is not None
    me = from_owner("me")
    assert me is not None and me.count == 1 and from_owner("openai") is None and from_owner("") is None


async def test_a_call_queue_says_what_admission_reads_its_calls_in_flight_waiting_and_their_seconds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What the guard's admission reads of a server (server/ops/checker_slots.py), on a clock the test moves."""
    from factdebate.llm import in_flight

    now = [100.0]
    monkeypatch.setattr(in_flight.time, "perf_counter", lambda: now[0])
    go = asyncio.Event()

    async def call() -> None:
        async with in_flight.slot("http://127.0.0.1:9/v1", 2):
            await go.wait()

    calls = [asyncio.create_task(call()) for _ in range(5)]
    await asyncio.sleep(0)
    [queue] = in_flight.CallQueue.on_this_loop()
    assert (queue.slots, queue.running, queue.waiting, queue.call_s) == (2, 2, 3, None)
    now[0] += 1.5
    assert queue.held_s() == 1.5  # none ended: a call takes at least as long as the oldest has held its slot
    assert queue.wait_s() == pytest.approx(4 * 1.5 / 2)  # four calls ahead of one asking now, two at a time
    go.set()
    await asyncio.gather(*calls)
    assert (queue.running, queue.waiting, queue.wait_s()) == (0, 0, 0.0)
    assert queue.busy_s == pytest.approx(2 * 1.5) and queue.call_s is not None and queue.call_s <= 1.5
