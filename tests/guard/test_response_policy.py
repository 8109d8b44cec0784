"""Check-response is a policy of the guard's one check: the check's result is the guard's
``GuardResult`` (each claim decided by the deep tier, the configured method), what check-response's readers get
beyond it is a record never sent with the guard's answer, and check-response's ``ResponseVerdict`` is that
result read by the one view."""

from __future__ import annotations

import json

from factdebate.core.types import Label
from factdebate.guard_engine.response_check import RecheckedClaim, check_response_text
from factdebate.guard_engine.response_view import response_verdict
from tests.helpers import resources_for
from tests.response_level.test_check_response import CLAIMS, RESPONSE, script


async def test_the_check_is_the_guards_and_the_verdict_its_view() -> None:
    resources, backend, _ = resources_for(script(), method="single")
    async with resources:
        result = await check_response_text(RESPONSE, resources.settings, resources)
    assert [(c.claim, c.label, c.tier, c.status) for c in result.claims] == [
        (CLAIMS[0], Label.SUPPORTS, "deep", "checked"), (CLAIMS[1], Label.REFUTES, "deep", "checked")]
    assert result.label == Label.REFUTES and result.tier == "deep" and result.method == "single"
    assert result.claims[1].correction is None  # check-response asks no correction of a refuted claim
    # One extraction and one verdict per claim: nothing more was asked of the model.
    assert result.usage.model_calls == 3 == len(backend.calls)
    # The opinion the gate passed and no claim covers is in skipped with check-response's reason.
    assert [(s.text.strip(), s.reason) for s in result.skipped] == [("I think Paris is lovely in spring.", "opinion")]
    sent = json.loads(result.model_dump_json())
    assert "record" not in sent and "_record" not in sent and "verdict" not in json.dumps(sent["claims"])

    verdict = response_verdict(result)
    assert [(c.claim, c.label, c.span) for c in verdict.claims] == [(c.claim, c.label, c.span) for c in result.claims]
    assert verdict.label == result.label and verdict.decided_by == "any-false"
    assert [c.verdict.method for c in verdict.claims if c.verdict] == ["single", "single"]
    assert [u.reason for u in verdict.unchecked] == ["opinion"]
    assert verdict.usage.llm_calls == 3 and "extractor" in verdict.usage_by_role


async def test_a_claim_checked_again_is_one_claim_of_the_same_check() -> None:
    resources, _, _ = resources_for(script(), method="single")
    async with resources:
        check = await RecheckedClaim.check(RESPONSE, 1, CLAIMS[1], resources.settings, resources)
    assert (check.index, check.label, check.error) == (1, Label.REFUTES, None)
    assert check.verdict is not None and check.verdict.method == "single" and check.verdict.config == {}
    assert check.span is not None and RESPONSE[check.span.start:check.span.end].startswith("The Eiffel Tower")
