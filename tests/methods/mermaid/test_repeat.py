"""A repeated action: by default (``repeat_skip``) it is not run again, its step tells the executor it already
has that observation, the loop goes on and the repeat is counted; with ``--no-mermaid-repeat-skip``, as in the
paper's Algorithm 1, the executor runs every action, a repeat included, until it answers or reaches T_max, and
each call counts; ``repeat_stop`` stops at the first repeat without running it and forces the answer. Each
departure is declared wherever it is on (each verdict, run.json and the summary carry
``Method.paper_deviations``; ``reproduce mermaid`` runs the paper's way)."""

from __future__ import annotations

from factdebate.core.deviations import keys
from factdebate.core.types import Label
from factdebate.eval.reproduce.spec import papers
from factdebate.llm.calls import CallInfo
from factdebate.methods.base import Method
from factdebate.run.claim import run_claim
from tests.methods.mermaid.support import FactToolset, action, answer, decomposition, mermaid_resources
from tests.methods.mermaid.test_method import CLAIM, FACTS, verdict_settings


def same_search_then_answer(call: CallInfo, text: str) -> str:
    """The same search at steps 1-3, then an answer at step 4."""
    if call.prompt == "mermaid_decompose":
        return decomposition("Paris", "France")
    if call.prompt == "mermaid_force":
        return answer("False")
    return answer("True") if call.round == 4 else action("search_facts", "capital of France")


async def run(**mermaid: object):  # type: ignore[no-untyped-def]
    toolset = FactToolset(FACTS)
    resources, _ = await mermaid_resources(same_search_then_answer, toolset, max_steps=5, **mermaid)
    async with resources:
        verdict = await run_claim(CLAIM, resources.settings, resources)
    return verdict, toolset


async def test_by_default_a_repeated_action_is_not_run_and_the_executor_is_told_so() -> None:
    verdict, toolset = await run()
    assert verdict.label == Label.SUPPORTS and verdict.decided_by == "executor"  # step 4's answer
    assert len(toolset.calls) == 1 and verdict.usage.tool_calls == 1
    steps = verdict.rounds[0].turns[0].steps
    assert [s.repeats for s in steps] == [None, 1, 1, None] and not steps[1].evidence
    assert steps[1].observation.startswith("Not run again: this is the action of step 1")
    assert verdict.parse_counts["mermaid_step"].repeated == 2
    [declared] = [d for d in verdict.deviations if d.key == "repeat_skip"]
    assert declared.restore == "--no-mermaid-repeat-skip" and "Algorithm 1" in declared.paper


async def test_the_papers_way_runs_every_repeated_action_and_counts_it() -> None:
    verdict, toolset = await run(repeat_skip=False)
    assert verdict.label == Label.SUPPORTS and verdict.decided_by == "executor"
    assert len(toolset.calls) == 3 and verdict.usage.tool_calls == 3  # every repeat ran and is counted
    assert not {"repeat_stop", "repeat_skip"} & set(keys(verdict.deviations))
    assert not verdict.parse_counts["mermaid_step"].repeated


async def test_repeat_stop_stops_at_the_first_repeat_and_is_declared_on_the_verdict() -> None:
    verdict, toolset = await run(repeat_stop=True)
    assert verdict.label == Label.REFUTES and verdict.decided_by == "forced"  # the forced answer, not step 4's
    assert len(toolset.calls) == 1 and verdict.usage.tool_calls == 1
    assert verdict.rounds[0].turns[0].steps[1].observation == "the same action as step 1: not repeated"
    assert verdict.parse_counts["mermaid_step"].repeated == 1 and "repeat_skip" not in keys(verdict.deviations)
    [declared] = [d for d in verdict.deviations if d.key == "repeat_stop"]
    assert declared.restore.startswith("--no-mermaid-repeat-stop") and "Algorithm 1" in declared.paper


def test_reproduce_mermaid_runs_the_papers_way() -> None:
    paper = papers()["mermaid"]
    mermaid_runs = [spec for spec in paper.runs.values() if spec.method == "mermaid"]
    assert mermaid_runs and all(spec.options["mermaid_repeat_stop"] is False for spec in mermaid_runs)
    assert all(spec.options["mermaid_repeat_skip"] is False for spec in mermaid_runs)
    assert "repeat_stop" not in keys(Method.named("mermaid").paper_deviations(verdict_settings()))
    assert "repeat_stop" in keys(Method.named("mermaid").paper_deviations(verdict_settings(repeat_stop=True)))
