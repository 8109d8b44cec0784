"""Each method declares how its verdict is drawn (methods/view.py): the terminal and the page read the
declaration, so the wording of a decision, a method's roles and its panels are written once, in its folder."""

from __future__ import annotations

import re

from factdebate.core.events import kinds_of
from factdebate.core.types import Judgement, Label, Round, Step, Turn, Verdict
from factdebate.methods.base import Method
from factdebate.methods.dpd.panel import DIMENSIONS, OUTCOME_LABEL
from factdebate.methods.view import DECISIONS, describe
from tests.paths import ROOT


def verdict(method: str, decided_by: str, rounds: int = 1, **extra: object) -> Verdict:
    return Verdict.model_validate({"claim": "c", "method": method, "label": Label.SUPPORTS,
                                   "decided_by": decided_by, "rounds": [Round(round=r) for r in range(1, rounds + 1)],
                                   **extra})


def test_decisions_read_in_the_methods_words() -> None:
    methods = Method.registered()
    assert describe(methods["tool-mad"].view, verdict("tool-mad", "judge", 2)) == \
        "the judge, after 2 rounds without consensus"
    assert describe(methods["tool-mad"].view, verdict("tool-mad", "consensus", 3)) == \
        "consensus of the agents in round 3"
    assert describe(methods["dpd"].view, verdict("dpd", "panel", consensus=0.75)).endswith("consensus 0.75")
    steps = [Step(tool="search"), Step(tool="finish")]
    mermaid = verdict("mermaid", "executor", rounds=0)
    mermaid.rounds = [Round(round=1, turns=[Turn(agent="executor", steps=steps)])]
    assert describe(methods["mermaid"].view, mermaid) == "the executor's answer after 2 steps"
    assert describe(methods["cot"].view, verdict("cot", "somehow")) == "somehow"  # unknown: as it is
    for name, cls in methods.items():  # a method's own wordings add to the shared ones
        assert set(DECISIONS) <= set(cls.view.decisions), name


def test_dpd_and_mermaid_declare_their_parts() -> None:
    dpd, mermaid = Method.registered()["dpd"].view, Method.registered()["mermaid"].view
    assert dpd.layout == "teams" and set(dpd.ballot) == set(DIMENSIONS)
    assert dpd.ballot["E"] == "Evidence credibility" and dpd.ballot["N"] == "Language neutrality"
    assert {dpd.votes[label.value] for label in OUTCOME_LABEL.values()} == set(OUTCOME_LABEL)
    assert all(dpd.statement(role) for role in ("gatherer", "analyst", "rebutter", "summarizer"))
    assert not dpd.statement("judge")
    assert mermaid.layout == "timeline" and mermaid.rounds is False
    kinds = {k for model in Method.registered()["mermaid"].events for k in kinds_of(model)}
    assert {p.event for p in mermaid.parts} <= kinds
    assert mermaid.roles["decomposer"].part == "decomposition"
    # The methods that number their model calls by step say so: the page names and places those calls as steps.
    assert {n for n, cls in Method.registered().items() if cls.view.calls_by_step} == {"mermaid", "react"}
    assert Method.registered()["react"].view.rounds is False  # one agent's loop: no "Round 1" worth naming
    assert Judgement(scores={"affirmative.E": 0.5}).scores  # the keys the ballot table reads


def test_neither_the_terminal_nor_the_page_names_a_method() -> None:
    # The names that are not also ordinary words ("vote", "single"), quoted as a method would be.
    names = [name for name in Method.registered() if name not in {"vote", "single", "react", "cot", "mad"}]
    drawn = [ROOT / "src/factdebate/cli/render.py", *(ROOT / "src/factdebate/server/static").rglob("*.js")]
    for path in drawn:
        text = path.read_text(encoding="utf-8").lower()
        named = [n for n in names if re.search(rf"[\"'`]{re.escape(n)}[\"'`]", text)]
        assert not named, f"{path.relative_to(ROOT)} names {named}"
