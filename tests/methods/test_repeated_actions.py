"""A tool-using agent that repeats an action is not served the same observation again. SmolLM2 behind
llama-cpp-python's server searched ReAct's one query at every one of its five steps and read the same
passages each time. By default a search for the same query as an earlier step (case, punctuation and spacing
aside) is not run: its step's observation tells the agent it already has that observation, the loop goes on,
and the repeat is counted (``repeated`` under ``react_action``). ``--no-react-repeat-skip`` runs every action,
as ReAct does; the default is declared as a departure from the paper. MERMAID's executor does the same
(tests/methods/mermaid/test_repeat.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from factdebate.core.deviations import keys
from factdebate.core.types import Label
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for

THOUGHT = "Thought: I need to find the capital of France."
SAME = [f"{THOUGHT}\nAction: search[capital of France]", f"{THOUGHT}\nAction: search[Capital of France.]",
        f"{THOUGHT}\nAction: search[capital  of france]", f"{THOUGHT}\nAction: search[capital of France]",
        f"{THOUGHT}\nAction: search[capital of France]"]
FINAL = "The passages name Paris as the capital of France.\nSUPPORTS"


def stepping(steps: list[str], seen: list[list[Message]]) -> Any:
    replies: Iterator[str] = iter(steps)

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "react_step":
            seen.append(messages)
            return next(replies)
        if call.prompt == "react_final":
            return FINAL
        return truthful(call, messages, params)

    return respond


async def _react(steps: list[str], **react: Any) -> tuple[Any, Any, list[list[Message]]]:
    seen: list[list[Message]] = []
    resources, _, tools = resources_for(stepping(steps, seen), method="react", methods={"react": react})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    return verdict, tools, seen


async def test_the_same_search_five_times_runs_once_and_the_agent_is_told_each_time() -> None:
    verdict, tools, seen = await _react(SAME)
    assert tools["rag"].queries == ["capital of France"] and verdict.usage.tool_calls == 1
    steps = verdict.rounds[0].turns[0].steps
    assert [s.repeats for s in steps] == [None, 1, 1, 1, 1] and not any(s.evidence for s in steps[1:])
    assert verdict.parse_counts["react_action"].repeated == 4
    # What the agent reads at its third step: the first step's passage, then the note instead of it again.
    third = seen[2][0]["content"]
    assert third.count("Paris is the capital of France.") == 1
    assert "Observation: Not run again: this is the action of step 1, and its observation is the one shown" in third
    # The loop went on to its step cap, and the forced answer decided.
    assert len(steps) == 5 and verdict.label == Label.SUPPORTS and verdict.rounds[0].turns[0].response == FINAL
    [declared] = [d for d in verdict.deviations if d.key == "repeat_skip"]
    assert declared.restore == "--no-react-repeat-skip"


async def test_a_new_search_after_a_repeat_still_runs() -> None:
    steps = [SAME[0], SAME[1], f"{THOUGHT}\nAction: search[France government seat]",
             "Thought: Paris it is.\nAction: finish[SUPPORTS]"]
    verdict, tools, _ = await _react(steps)
    assert tools["rag"].queries == ["capital of France", "France government seat"]
    assert verdict.parse_counts["react_action"].repeated == 1 and verdict.label == Label.SUPPORTS


async def test_the_papers_way_runs_every_search_and_counts_no_repeat() -> None:
    verdict, tools, _ = await _react(SAME, repeat_skip=False)
    assert len(tools["rag"].queries) == 5 and verdict.usage.tool_calls == 5
    assert all(s.repeats is None for s in verdict.rounds[0].turns[0].steps)
    assert not verdict.parse_counts["react_action"].repeated and "repeat_skip" not in keys(verdict.deviations)
