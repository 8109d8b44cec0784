"""One claim of a checked answer checked again (response_level/recheck.py): the answer's label follows its claims'
as they stand now, one false claim making it false."""

from __future__ import annotations

from factdebate.core.types import ClaimCheck, Label, ResponseVerdict
from factdebate.response_level.recheck import relabelled, with_claim


def test_a_claim_checked_again_relabels_the_answer_from_the_callers_labels() -> None:
    check = ClaimCheck(index=1, claim="The Eiffel Tower is in Rome.", label=Label.REFUTES)
    label, factual, decided_by = relabelled(check, [Label.SUPPORTS, None])
    assert (label, factual) == (Label.REFUTES, False) and decided_by
    assert relabelled(check.model_copy(update={"label": Label.SUPPORTS}), [Label.SUPPORTS, None])[:2] == (
        Label.SUPPORTS, True)


def test_a_kept_answer_takes_the_claim_in_its_place() -> None:
    claims = [ClaimCheck(index=0, claim="Paris is in France.", label=Label.SUPPORTS),
              ClaimCheck(index=1, claim="The Eiffel Tower is in Rome.", error="the checker could not be reached")]
    verdict = ResponseVerdict(response="Paris is in France. The Eiffel Tower is in Rome.", method="toolmad",
                              label=None, decided_by="unverified", claims=claims)
    again = ClaimCheck(index=1, claim="The Eiffel Tower is in Rome.", label=Label.REFUTES)
    updated = with_claim(verdict, again)
    assert [c.label for c in updated.claims] == [Label.SUPPORTS, Label.REFUTES]
    assert updated.label == Label.REFUTES and updated.factual is False
