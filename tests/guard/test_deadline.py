"""The guard's default deadline fits where its checker runs: 20 s for a hosted checker, and
``guard.max_deadline_s`` (120 s) for one on this machine, which at 20 s left every claim of a CPU model's reply
unchecked. An operator's ``guard.deadline_s`` always wins; a request's own deadline is still capped."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.guard_engine import GuardOptions
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings
from tests.guard.support import run_check, script

LOCAL: dict[str, dict[str, Any]] = {
    "embedded": {"debater": "llama-cpp:builtin"},
    "a gguf file": {"debater": "llama-cpp:/models/smollm2.gguf"},
    "localhost": {"debater": "openai:smollm2", "base_urls": ["http://localhost:8080/v1"]},
    "127.0.0.0/8": {"debater": "openai:smollm2", "base_urls": ["http://127.0.0.2:8080/v1"]},
    "::1": {"debater": "openai:smollm2", "base_urls": ["http://[::1]:8080/v1"]},
    "one of the servers": {"debater": "openai:m", "base_urls": ["https://gpu.example/v1", "http://127.0.0.1/v1"]},
    "the extractor alone": {"debater": "openai:gpt-4o-mini", "roles": {"extractor": "llama-cpp:builtin"}},
}
HOSTED: dict[str, dict[str, Any]] = {
    "OpenAI": {"debater": "openai:gpt-4o-mini"},
    "a gateway": {"debater": "openai:m", "base_urls": ["https://gateway.example/v1"]},
    "another host of the network": {"debater": "openai:m", "base_urls": ["http://10.0.0.5:8000/v1"]},
    "a name that only starts with localhost": {"debater": "openai:m", "base_urls": ["http://localhost.example/v1"]},
}


def _settings(llm: dict[str, Any], **guard: Any) -> Settings:
    return load_settings(overrides={"llm": llm, "guard": guard}, environ={})


@pytest.fixture(autouse=True)
def _no_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)  # OpenAI's own server: hosted


@pytest.mark.parametrize("llm", LOCAL.values(), ids=LOCAL.keys())
def test_a_checker_on_this_machine_gets_the_longest_deadline_by_default(llm: dict[str, Any]) -> None:
    assert GuardOptions().resolve(_settings(llm)).deadline_s == 120
    assert GuardOptions().resolve(_settings(llm, max_deadline_s=300)).deadline_s == 300


@pytest.mark.parametrize("llm", HOSTED.values(), ids=HOSTED.keys())
def test_a_hosted_checker_gets_20_seconds_by_default(llm: dict[str, Any]) -> None:
    assert GuardOptions().resolve(_settings(llm)).deadline_s == 20
    assert GuardOptions().resolve(_settings(llm, max_deadline_s=10)).deadline_s == 10  # never past the cap


def test_openai_base_url_on_loopback_is_a_checker_on_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = _settings(HOSTED["OpenAI"])
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    assert GuardOptions().resolve(settings).deadline_s == 120
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example/v1")
    assert GuardOptions().resolve(settings).deadline_s == 20


@pytest.mark.parametrize("llm", [*LOCAL.values(), *HOSTED.values()], ids=[*LOCAL, *HOSTED])
def test_the_operators_deadline_wins_and_a_requests_is_still_capped(llm: dict[str, Any]) -> None:
    settings = _settings(llm, deadline_s=30, max_deadline_s=90)
    assert GuardOptions().resolve(settings).deadline_s == 30
    assert GuardOptions(deadline_s=5).resolve(settings).deadline_s == 5
    assert GuardOptions(deadline_s=500).resolve(settings).deadline_s == 90
    assert (GuardOptions().deadline_within(settings), GuardOptions(deadline_s=500).deadline_within(settings)) == \
        (30, 90)  # the deadline admission reckons with is the one the check runs under
    unset = _settings(llm)
    assert GuardOptions(deadline_s=500).resolve(unset).deadline_s == 120


def test_an_operators_deadline_above_the_cap_is_still_refused() -> None:
    from factdebate.util.errors import ConfigError

    with pytest.raises(ConfigError, match=r"guard\.deadline_s is above guard\.max_deadline_s"):
        _settings(HOSTED["OpenAI"], deadline_s=200)


async def test_the_result_says_the_deadline_the_check_ran_under() -> None:
    """What a caller reads: the check's ``deadline_s``. The test's settings keep the default model,
    ``llama-cpp:builtin`` (the calls go to a scripted backend), so the default is the local one."""
    result, _ = await run_check(script(), tier="fast")
    assert result.deadline_s == 120 and result.claims
    result, _ = await run_check(script(), tier="fast", guard={"deadline_s": 15})
    assert result.deadline_s == 15


@pytest.mark.parametrize("debater", ["llama-cpp:qwen2.5-coder-1.5b", "llama-cpp:/models/mine.gguf"])
def test_an_in_process_checker_starts_at_the_fast_tier_and_climbs_only_when_asked(debater: str) -> None:
    """The offline model's debate round did not end within the deadline after its fast call, and read the
    evidence worse than the fast tier's quoted verdict: it decides at the tier asked."""
    settings = _settings({"debater": debater})
    resolved = GuardOptions().resolve(settings)
    assert (resolved.tier, resolved.max_tier) == ("fast", "fast")
    assert GuardOptions(tier="standard").resolve(settings).max_tier == "standard"
    assert GuardOptions(max_tier="deep").resolve(settings).max_tier == "deep"  # the caller asks to climb
    operator = _settings({"debater": debater}, tier="standard", max_tier="deep")
    assert (GuardOptions().resolve(operator).tier, GuardOptions().resolve(operator).max_tier) == \
        ("standard", "deep")  # the operator's tiers, where set


@pytest.mark.parametrize("debater", ["llama-cpp:builtin", "openai:gpt-4o-mini"])
def test_other_checkers_keep_the_operators_tiers(debater: str) -> None:
    resolved = GuardOptions().resolve(_settings({"debater": debater}))
    assert (resolved.tier, resolved.max_tier) == ("standard", "deep")
