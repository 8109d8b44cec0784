"""DPD on the scripted backend: the transition strategies, the minimum-rounds rule, the confidence-weighted
vote (a confident minority beats a majority, a tie), unreadable ballots, the ablations and the roles."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from factdebate.core.types import Document, Judgement, Label
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.dpd.method import DPD, next_state
from factdebate.methods.dpd.panel import read_ballot, tally
from factdebate.methods.dpd.team import DebateStore, agreement
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from tests.helpers import CLAIM, BagOfWordsEncoder, resources_for

Votes = Callable[[str, int], tuple[str, float] | str]


def ballot(vote: str, confidence: float) -> str:
    side = {"evidence": 0.5, "logic": 0.5, "neutrality": 0.5, "persuasiveness": 0.5}
    return json.dumps({"affirmative": side, "negative": side, "vote": vote, "confidence": confidence,
                       "why": "weighed both"})


def dpd_script(votes: Votes, seen: list[tuple[CallInfo, str]] | None = None) -> Any:
    """Judges answer ``votes(judge, round)`` (a (vote, confidence) pair, or raw text); others speak plainly."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if seen is not None:
            seen.append((call, messages[0]["content"]))
        prompt = call.prompt.split(":")[0]
        if prompt == "dpd_queries":
            return '{"support": "capital of France", "refute": "France capital"}'
        if prompt == "dpd_judge":
            vote = votes(call.agent, call.round)
            return vote if isinstance(vote, str) else ballot(*vote)
        return f"{call.agent} in round {call.round}: Paris is the capital of France."

    return respond


def unanimous(vote: str = "affirmative", confidence: float = 0.9) -> Votes:
    return lambda judge, r: (vote, confidence)


async def run(votes: Votes, seen: list[tuple[CallInfo, str]] | None = None, **dpd: Any) -> Any:
    resources, backend, tools = resources_for(dpd_script(votes, seen), method="dpd", methods={"dpd": dpd})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    return verdict, backend, tools


def states_by_round(seen: list[tuple[CallInfo, str]], side: str) -> list[str]:
    out: dict[int, str] = {}
    for call, text in seen:
        if call.agent == f"{side}-rebutter":
            out[call.round] = "skeptic" if "skeptic state" in text else "trust"
    return [out[r] for r in sorted(out)]


@pytest.mark.parametrize(("strategy", "expected"), [
    ("true-skeptic", ["trust", "skeptic", "trust"]),
    ("true-trust", ["trust", "trust", "skeptic"]),
    ("always-skeptic", ["skeptic", "skeptic", "skeptic"]),
    ("always-trust", ["trust", "trust", "trust"]),
])
async def test_each_transition_strategy_sets_the_next_rounds_state(strategy: str, expected: list[str]) -> None:
    # Round 1 the panel finds the claim true (affirmative), round 2 false (negative).
    seen: list[tuple[CallInfo, str]] = []
    outcome = {1: "affirmative", 2: "negative", 3: "negative"}
    verdict, _, _ = await run(lambda judge, r: (outcome[r], 0.9), seen, transition=strategy, min_rounds=2,
                              max_rounds=2)
    assert states_by_round(seen, "affirmative") == expected == states_by_round(seen, "negative")
    assert verdict.label is Label.REFUTES and verdict.decided_by == "panel"
    assert [rnd.round for rnd in verdict.rounds] == [0, 1, 2, 3]


def test_next_state_reads_only_a_true_outcome_as_true() -> None:
    assert next_state("true-skeptic", "affirmative") == "skeptic"
    assert next_state("true-skeptic", "tie") == next_state("true-skeptic", None) == "trust"
    assert next_state("true-trust", "negative") == "skeptic"


@pytest.mark.parametrize("minimum", [0, 1, 2, 3])
async def test_a_unanimous_panel_stops_the_debate_only_after_the_minimum_rounds(minimum: int) -> None:
    verdict, _, _ = await run(unanimous(), min_rounds=minimum, max_rounds=3)
    judged = [rnd for rnd in verdict.rounds if rnd.judges]
    assert len(judged) == 1 + minimum  # the opening plus the minimum rebuttal rounds
    assert verdict.label is Label.SUPPORTS and verdict.consensus == pytest.approx(1.0)


async def test_without_consensus_the_debate_runs_to_the_maximum() -> None:
    split = {"factual": ("affirmative", 0.6), "logical": ("negative", 0.5), "rhetorical": ("negative", 0.4)}
    verdict, _, _ = await run(lambda judge, r: split[judge], min_rounds=0, max_rounds=2, consensus_threshold=0.8)
    assert len([rnd for rnd in verdict.rounds if rnd.judges]) == 3
    assert verdict.label is Label.REFUTES  # |W_N| = 0.9 beats W_A = 0.6
    assert verdict.consensus == pytest.approx(0.9 / 1.5)


async def test_a_confident_minority_beats_the_majority() -> None:
    votes = {"factual": ("affirmative", 0.9), "logical": ("negative", 0.3), "rhetorical": ("negative", 0.3)}
    verdict, _, _ = await run(lambda judge, r: votes[judge], min_rounds=0, max_rounds=0)
    assert verdict.label is Label.SUPPORTS
    weights = {j.agent: j.weight for j in verdict.judges}
    assert weights == pytest.approx({"factual": 0.9, "logical": -0.3, "rhetorical": -0.3})
    assert verdict.consensus == pytest.approx(0.9 / 1.5)
    assert "W_A=0.900, W_N=-0.600 (|W_N|=0.600)" in verdict.explanation


async def test_equal_side_weights_are_a_tie_with_the_configured_label() -> None:
    votes = {"factual": ("affirmative", 0.5), "logical": ("negative", 0.5), "rhetorical": ("tie", 0.8)}
    verdict, _, _ = await run(lambda judge, r: votes[judge], min_rounds=0, max_rounds=0)
    assert verdict.label is Label.NOT_ENOUGH_INFO and verdict.consensus == pytest.approx(0.8 / 1.8)
    verdict, _, _ = await run(lambda judge, r: votes[judge], min_rounds=0, max_rounds=0, tie_label="REFUTES")
    assert verdict.label is Label.REFUTES


def test_tally_follows_the_papers_formulas() -> None:
    def j(vote: Label, confidence: float) -> Judgement:
        sign = {Label.SUPPORTS: 1, Label.REFUTES: -1, Label.NOT_ENOUGH_INFO: 0}[vote]
        return Judgement(agent="j", vote=vote, confidence=confidence, weight=sign * confidence)

    # A tie vote weighs 0 (W_T = 0·C): one negative vote at 0.1 beats two confident tie votes.
    result = tally([j(Label.NOT_ENOUGH_INFO, 0.9), j(Label.NOT_ENOUGH_INFO, 0.9), j(Label.REFUTES, 0.1)])
    assert result.outcome == "negative" and result.totals["negative"] == pytest.approx(-0.1)
    assert result.consensus == pytest.approx(0.1 / 1.9)
    # Only tie votes: every total is 0, the maximum is shared, the outcome is a tie with full consensus.
    result = tally([j(Label.NOT_ENOUGH_INFO, 0.7), j(Label.NOT_ENOUGH_INFO, 0.2)])
    assert result.outcome == "tie" and result.consensus == pytest.approx(1.0)
    # Confidence 0 everywhere: no weight, a tie, consensus 0 (nothing to agree with).
    assert tally([j(Label.SUPPORTS, 0.0)]).consensus == 0.0


async def test_an_unreadable_ballot_is_reasked_then_recorded_not_invented() -> None:
    def votes(judge: str, r: int) -> tuple[str, float] | str:
        if judge == "logical":
            return "I think the affirmative side did well." if r else ""
        return ("negative", 0.6)

    seen: list[tuple[CallInfo, str]] = []
    verdict, _, _ = await run(votes, seen, min_rounds=0, max_rounds=0)
    logical = next(j for j in verdict.judges if j.agent == "logical")
    assert not logical.parsed and logical.vote is None and logical.confidence is None and logical.weight == 0
    assert logical.parse_retries == 1 and verdict.unparsed_turns == 1
    assert [c.prompt for c, _ in seen if c.agent == "logical"] == ["dpd_judge", "dpd_judge:reask"]
    assert verdict.label is Label.REFUTES and verdict.consensus == pytest.approx(1.0)  # from the two readable


async def test_a_ballot_out_of_range_is_reasked_and_can_recover() -> None:
    replies = iter(['{"vote": "affirmative", "confidence": 90}', ballot("affirmative", 0.9)])

    def votes(judge: str, r: int) -> tuple[str, float] | str:
        return next(replies) if judge == "factual" else ("affirmative", 0.5)

    verdict, _, _ = await run(votes, min_rounds=0, max_rounds=0)
    factual = next(j for j in verdict.judges if j.agent == "factual")
    assert factual.parsed and factual.parse_retries == 1 and factual.confidence == 0.9
    assert factual.scores["affirmative.E"] == 0.5 and verdict.unparsed_turns == 0


async def test_no_readable_ballot_leaves_the_verdict_unparsed() -> None:
    verdict, _, _ = await run(lambda judge, r: "no idea", min_rounds=0, max_rounds=1)
    assert verdict.label is None and verdict.decided_by == "unparsed" and verdict.unparsed_turns == 6


def test_read_ballot_explains_what_is_wrong() -> None:
    with pytest.raises(ValueError, match=r"confidence is 1\.5"):
        read_ballot(ballot("tie", 1.5))
    with pytest.raises(ValueError, match="vote must be"):
        read_ballot(ballot("maybe", 0.5))
    assert read_ballot("```json\n" + ballot("negative", 0.25) + "\n```").vote == -1


@pytest.mark.parametrize(("ablation", "absent"), [
    ({"gatherers": False}, {"gatherer"}),
    ({"analysts": False}, {"analyst"}),
    ({"summarizers": False}, {"summarizer"}),
    ({"gatherers": False, "analysts": False, "summarizers": False}, {"gatherer", "analyst", "summarizer"}),
])
async def test_ablations_drop_their_roles(ablation: dict[str, bool], absent: set[str]) -> None:
    verdict, backend, tools = await run(unanimous(), min_rounds=0, max_rounds=0, **ablation)
    roles = {t.role for rnd in verdict.rounds for t in rnd.turns}
    assert not roles & absent and "rebutter" in roles
    low, high = DPD().call_bounds(load_settings(overrides={"methods": {"dpd": {"min_rounds": 0, "max_rounds": 0,
                                                                               **ablation}}}, environ={}))
    assert low == len(backend.calls) <= high
    assert bool(tools["rag"].queries) == ("gatherer" not in absent)


async def test_gatherers_search_once_on_both_tools_and_select_per_round() -> None:
    verdict, _, tools = await run(unanimous(), min_rounds=1, max_rounds=1, snippets=1)
    assert tools["rag"].queries == ["capital of France", "France capital"] * 2
    assert len(tools["search"].queries) == 4  # once per team and query, at the start only
    picks = [t for rnd in verdict.rounds[1:] for t in rnd.turns if t.role == "gatherer"]
    assert len(picks) == 4 and all(len(t.evidence) == 1 for t in picks)


async def test_teams_see_the_opponents_position_then_its_statement() -> None:
    seen: list[tuple[CallInfo, str]] = []
    await run(unanimous(), seen, min_rounds=1, max_rounds=1)
    rebuttals = {(c.agent, c.round): text for c, text in seen if c.prompt == "dpd_rebutter"}
    assert "negative team's position: the claim is hallucinated" in rebuttals[("affirmative-rebutter", 1)]
    assert "negative-summarizer in round 1" in rebuttals[("affirmative-rebutter", 2)]
    assert "its confidence 1.00" in rebuttals[("affirmative-rebutter", 2)]  # identical samples agree fully


async def test_each_judge_has_its_own_model_role() -> None:
    verdict, _, _ = await run(unanimous(), min_rounds=0, max_rounds=0, judges=["factual", "skeptic-2"])
    assert {"judge-factual", "judge-skeptic-2"} <= set(verdict.usage_by_role)
    settings = load_settings(overrides={"llm": {"judge": "openai:j", "roles": {"judge-logical": "openai:l"}}},
                             environ={})
    assert settings.llm_for("judge-factual") == "openai:j" and settings.llm_for("judge-logical") == "openai:l"


def test_bad_settings_are_refused() -> None:
    with pytest.raises(Exception, match="exceeds max_rounds"):
        load_settings(overrides={"methods": {"dpd": {"min_rounds": 3, "max_rounds": 1}}}, environ={})
    with pytest.raises(Exception, match="judge names must differ"):
        load_settings(overrides={"methods": {"dpd": {"judges": ["a", "a"]}}}, environ={})


async def test_summarizer_agreement_is_the_mean_pairwise_similarity() -> None:
    index, value = await agreement(BagOfWordsEncoder(), ["red apple", "red apple", "blue sky"])
    assert value == pytest.approx(1 / 3, abs=1e-4) and index in (0, 1)
    assert (await agreement(BagOfWordsEncoder(), ["", "x"]))[1] == 0.0


async def test_the_store_selects_the_snippets_nearest_the_context() -> None:
    store = DebateStore(BagOfWordsEncoder())
    await store.add([Document(id=str(i), title="", text=text) for i, text in
                     enumerate(["bananas are yellow", "paris capital france", "the moon orbits"])])
    picked = await store.select("capital of france paris", 2)
    assert picked[0].id == "1" and len(picked) == 2 and picked[0].score > picked[1].score == 0.0


def test_a_ballot_cut_off_in_its_explanation_keeps_its_decision() -> None:
    cut = ballot("negative", 0.7)
    cut = cut[: cut.index('"why"')] + '"why": "the negative side cited'
    read = read_ballot(cut)
    assert read.vote == -1 and read.confidence == 0.7 and read.reason == "the negative side cited"
    with pytest.raises(ValueError, match=r"malformed|not closed"):
        read_ballot(cut[: cut.index('"vote"')])  # cut before the vote: not a ballot
