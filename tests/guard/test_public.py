"""The Python faces: factdebate.guard / aguard on a reply or a conversation, and check_response's new
arguments (old behaviour without them)."""

from __future__ import annotations

from typing import Any

import pytest

import factdebate as fd
from factdebate.core.types import ResponseVerdict
from factdebate.guard_engine import GuardResult
from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import CLAIMS, REPLY, script

OFFLINE = {"llm": "scripted:agree", "search": "local", "cache": False}
PASSAGE = {"title": "Guide", "text": "Paris is the capital of France. The Eiffel Tower is in Paris."}


def _backends() -> tuple[dict[str, Any], ScriptedBackend]:
    backend = ScriptedBackend(script())
    return {"debater": backend}, backend


async def test_aguard_checks_a_conversation_with_its_tool_results_as_evidence() -> None:
    backends, backend = _backends()
    messages = [{"role": "user", "content": "Tell me about Paris."},
                {"role": "tool", "name": "kb", "content": "The Eiffel Tower is on the Champ de Mars in Paris."},
                {"role": "assistant", "content": REPLY, "tool_calls": [{"id": "t1"}]}]
    result = await fd.aguard(messages, tier="fast", evidence_mode="given", backends=backends, method="single",
                             **OFFLINE)
    assert isinstance(result, GuardResult) and [c.claim for c in result.claims] == CLAIMS
    assert result.passed_through == ["1 tool call(s) in the reply, not checked: ?"]  # as every door says it
    prompts = [m[0]["content"] for info, m in backend.calls if info.prompt == "guard_window"]
    assert prompts and all("Champ de Mars" in p for p in prompts)
    extract = prompts[0]
    assert "Tell me about Paris." in extract  # the user's message is the question


def test_the_package_name_is_also_the_function() -> None:
    import factdebate.guard_engine

    assert callable(factdebate.guard) and callable(fd.aguard)


async def test_check_response_without_the_new_arguments_is_as_before_with_spans() -> None:
    backends, _ = _backends()
    verdict = await fd.acheck_response(REPLY, backends=backends, method="single", **OFFLINE)
    assert isinstance(verdict, ResponseVerdict) and [c.claim for c in verdict.claims] == CLAIMS
    for check in verdict.claims:
        assert check.span is not None and verdict.response[check.span.start:check.span.end] == check.claim


async def test_check_response_with_evidence_lets_the_agents_read_it() -> None:
    backends, backend = _backends()
    verdict = await fd.acheck_response(REPLY, backends=backends, method="single", evidence_mode="given",
                                       evidence=[{"title": "Guide", "text": "The tower is on the Champ de Mars."}],
                                       **OFFLINE)
    assert isinstance(verdict, ResponseVerdict)
    prompts = [m[0]["content"] for info, m in backend.calls if info.prompt == "single"]
    assert prompts and all("Champ de Mars" in p for p in prompts)


async def test_the_named_scripted_behaviours_answer_the_guards_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_GUARD__TIER", "fast")  # the operator's settings, here from the environment
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_TIER", "fast")
    agree = await fd.aguard(REPLY, tier="fast", deadline_s=30, method="single", evidence=[PASSAGE],
                            evidence_mode="given", **{**OFFLINE, "llm": "scripted:agree"})
    assert [c.label for c in agree.claims] and all(c.label == "SUPPORTS" for c in agree.claims)
    disagree = await fd.aguard(REPLY, tier="fast", deadline_s=30, method="single", evidence=[PASSAGE],
                               evidence_mode="given", **{**OFFLINE, "llm": "scripted:disagree"})
    refuted = [c for c in disagree.claims if c.label == "REFUTES"]
    assert refuted
    for claim in refuted:  # the double refutes by the passage's own words: a correction of the claim into itself
        restated = claim.correction_note is not None and "it repeats the refuted claim" in claim.correction_note
        assert (claim.correction is not None and claim.correction.quote_source) or restated, claim
