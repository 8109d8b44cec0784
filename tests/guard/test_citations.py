"""A claim's evidence is called cited only when the verdict rests on it: the passage the fast tier's checker
named, or one the debate's deciding answers cite; the other passages read are "retrieved, not cited" (a
Burj Khalifa passage was shown as evidence cited for "completed in 1889"). The refusal's last quoted claim
keeps one full stop."""

from __future__ import annotations

import json

from factdebate.core.types import Document, Judgement, Label, Round, Turn, Verdict
from factdebate.guard_engine.citations import cited_texts
from factdebate.guard_engine.policy import refusal
from factdebate.guard_engine.types import GuardClaim, GuardResult
from tests.guard.support import run_check, script

FAST = {"tier": "fast", "max_tier": "fast"}
TOWER = Document(id="t", title="Eiffel Tower", text="The Eiffel Tower was completed in 1889 in Paris.")
BURJ = Document(id="b", title="Burj Khalifa", text="The Burj Khalifa in Dubai was completed in 2010.")
OPERA = Document(id="o", title="Sydney Opera House", text="The Sydney Opera House opened in 1973 after long delays.")
TEXT = "The Eiffel Tower was completed in 1889."


async def test_only_the_passage_the_fast_checker_named_is_cited() -> None:
    result, _ = await run_check(script(claims=[TEXT]), TEXT, docs=[TOWER, BURJ], guard=FAST)
    evidence = result.claims[0].evidence
    assert [(e.title, e.cited) for e in evidence] == [("Eiffel Tower", True), ("Burj Khalifa", False)]


async def test_a_checker_that_names_no_passage_cites_none() -> None:
    def unnamed(claim: str) -> str:
        return json.dumps({"label": "SUPPORTS", "passage": 0, "quote": ""})

    # with the stance step off, a SUPPORTS that shows no words checks nothing
    result, _ = await run_check(script(claims=[TEXT], fast=unnamed), TEXT, docs=[BURJ, TOWER],
                                guard={**FAST, "stance_step": False})
    claim = result.claims[0]
    assert not any(e.cited for e in claim.evidence)
    assert claim.status == "unchecked" and claim.label is None
    # with it on, the sentence closest to the claim is copied, and its passage, which states it, is the one cited
    result, _ = await run_check(script(claims=[TEXT], fast=unnamed), TEXT, docs=[BURJ, TOWER], guard=FAST)
    claim = result.claims[0]
    assert [(e.title, e.quote) for e in claim.evidence if e.cited] == [("Eiffel Tower", TOWER.text)]
    assert (claim.status, claim.label) == ("checked", "SUPPORTS")


def _verdict(judge: str, turn: str) -> Verdict:
    return Verdict(claim=TEXT, method="mad", label=Label.SUPPORTS, decided_by="judge",
                   rounds=[Round(round=1, turns=[Turn(agent="a", response="Nothing yet.", evidence=[OPERA])]),
                           Round(round=2, turns=[Turn(agent="a", response=turn, evidence=[BURJ, TOWER])])],
                   judges=[Judgement(response=judge)])


def test_a_debate_cites_by_number_quote_or_six_words_in_a_row() -> None:
    read = [TOWER, BURJ, OPERA]
    assert cited_texts(_verdict("SUPPORTS", "As [2] says, it is so."), read) == {TOWER.text}  # its own [2]
    assert cited_texts(_verdict('The source says "completed in 1889 in Paris".', "Agreed."), read) == {TOWER.text}
    assert cited_texts(_verdict("It opened in 1973 after long delays, unlike the tower.", "Yes."), read) == {OPERA.text}
    # An earlier round's reading, a shared word or two, a number out of range: not citations.
    assert cited_texts(_verdict("The tower was completed, see [7].", "Dubai? No."), read) == frozenset()


def test_the_refusal_ends_with_one_full_stop() -> None:
    claim = GuardClaim(index=0, claim="The Eiffel Tower is in Berlin.", status="checked", label=Label.REFUTES)
    text = refusal(GuardResult(claims=[claim], policy="block"))
    assert text.endswith('"The Eiffel Tower is in Berlin."') and not text.endswith('.".')
    bare = GuardClaim(index=0, claim="the tower is in Berlin", status="checked", label=Label.REFUTES)
    assert refusal(GuardResult(claims=[bare], policy="block")).endswith('"the tower is in Berlin".')
