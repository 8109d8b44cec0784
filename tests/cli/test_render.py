"""The terminal draws every method from the view it declares: DPD's ballots under its dimensions' names and
its own decision wording, MERMAID's one trajectory without a round heading, FacTool's claims in their words."""

from __future__ import annotations

import io

from rich.console import Console

from factdebate.cli.render import render_verdict
from factdebate.core.types import Judgement, Label, Round, Step, Turn, Verdict


def drawn(verdict: Verdict) -> str:
    out = io.StringIO()
    render_verdict(verdict, Console(file=out, width=140))
    return out.getvalue()


def test_a_panel_verdict_names_the_ballots_dimensions_and_reads_as_dpd_words() -> None:
    ballot = Judgement(agent="factual", vote=Label.SUPPORTS, confidence=0.9, weight=0.9,
                       scores={"affirmative.E": 0.8, "negative.E": 0.4})
    statement = Turn(agent="affirmative-rebutter", role="rebutter", team="affirmative", response="A point.")
    text = drawn(Verdict(claim="c", method="dpd", label=Label.SUPPORTS, decided_by="panel", consensus=0.75,
                         rounds=[Round(round=1, turns=[statement], judges=[ballot])]))
    assert "affirmative: Evidence credibility 0.80" in text and "negative: Evidence credibility 0.40" in text
    assert "decided by the referees' confidence-weighted vote · consensus 0.75" in text
    assert "label UNPARSED" not in text  # a rebutter's statement carries no label of its own


def test_a_trajectory_has_no_round_heading() -> None:
    executor = Turn(agent="executor", role="executor", label=Label.REFUTES, response="done",
                    steps=[Step(tool="search", arguments={"query": "q"}, thought="look")])
    text = drawn(Verdict(claim="c", method="mermaid", label=Label.REFUTES, decided_by="executor",
                         rounds=[Round(round=1, turns=[executor])]))
    assert "Round 1" not in text and "decided by the executor's answer after 1 step" in text
    tool_mad = drawn(Verdict(claim="c", method="tool-mad", label=Label.SUPPORTS, decided_by="judge",
                             rounds=[Round(round=1), Round(round=2)]))
    assert "Round 2" in tool_mad and "decided by the judge, after 2 rounds without consensus" in tool_mad


def test_a_factool_turn_names_the_claim_it_checked() -> None:
    checked = Turn(agent="claim-1", role="verifier", tool="search", query="q", claim="Paris is in France.",
                   label=Label.SUPPORTS, response="It is.")
    old = checked.model_copy(update={"claim": None})  # a verdict written before turns kept their claim
    text = drawn(Verdict(claim="Paris is in France. It is big.", method="factool", label=Label.SUPPORTS,
                         decided_by="all-true", rounds=[Round(round=1, turns=[checked])]))
    assert "claim Paris is in France." in text
    before = drawn(Verdict(claim="c", method="factool", label=Label.SUPPORTS, decided_by="all-true",
                           rounds=[Round(round=1, turns=[old])]))
    assert "claim-1 (search)" in before and "│ claim " not in before
