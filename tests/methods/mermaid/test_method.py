"""MERMAID's protocol paths on a scripted model and an in-process toolset: answer at step 1, a tool then
an answer, the budget spent then a forced answer, unreadable JSON re-asked, an unknown tool, a failing
tool, the w/o-decomposer ablation and the three-way option."""

from __future__ import annotations

from factdebate.core.types import Label
from factdebate.llm.calls import CallInfo
from factdebate.methods.base import Method
from factdebate.run.claim import run_claim
from tests.methods.mermaid.support import FactToolset, action, answer, decomposition, mermaid_resources

CLAIM = "Paris is the capital of France"
FACTS = {"france": "Paris is the capital and largest city of France."}


async def verify(replies, toolset=None, **mermaid):  # type: ignore[no-untyped-def]
    toolset = toolset or FactToolset(FACTS)
    events: list[dict] = []
    resources, backend = await mermaid_resources(replies, toolset, **mermaid)
    async with resources:
        verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    return verdict, backend, toolset, events


def kinds(events: list[dict]) -> list[str]:
    return [e["event"] for e in events]


async def test_answer_at_step_one() -> None:
    def replies(call: CallInfo, text: str) -> str:
        return decomposition("Paris", "France") if call.prompt == "mermaid_decompose" else answer("True")

    verdict, backend, toolset, events = await verify(replies)
    assert verdict.label == Label.SUPPORTS and verdict.decided_by == "executor"
    assert len(backend.calls) == 2 and toolset.calls == [] and verdict.usage.tool_calls == 0
    executor, decomposer = verdict.rounds[0].turns
    assert [s.tool for s in executor.steps] == ["answer"]
    assert "Paris" in decomposer.response and decomposer.role == "decomposer"
    step_prompt = backend.calls[1][1][0]["content"]
    assert CLAIM in step_prompt and "(Paris; is; France)" in step_prompt and "search_facts" in step_prompt
    decomposed = next(e for e in events if e["event"] == "decomposition")
    assert decomposed["entities"] == ["Paris", "France"] and decomposed["topic"] == "Geography"
    # Everything of the claim nests in one span of kind "claim".
    claim_span = next(e for e in events if e["event"] == "span_begin" and e["kind"] == "claim")
    inside = [e for e in events if e.get("span_id") == claim_span["span_id"]]
    assert {"decomposition", "step", "verdict"} <= set(kinds(inside))


async def test_tool_then_answer() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return decomposition("Paris", "France")
        return action("search_facts", "capital of France") if call.round == 1 else answer("False")

    verdict, backend, toolset, events = await verify(replies)
    assert verdict.label == Label.REFUTES
    assert toolset.calls == [("search_facts", {"query": "capital of France", "k": 3})]
    assert verdict.usage.tool_calls == 1
    step = verdict.rounds[0].turns[0].steps[0]
    assert step.tool == "search_facts" and step.arguments == {"query": "capital of France"}
    assert "largest city of France" in step.observation and step.evidence[0].source.endswith("/france")
    # The second prompt shows the history: thought, action and observation of step 1.
    second = backend.calls[2][1][0]["content"]
    assert "look it up" in second and "largest city of France" in second
    steps = [e for e in events if e["event"] == "step"]
    assert steps[0]["tool"] == "search_facts" and "largest city" in steps[0]["observation"]
    assert any(e["event"] == "tool_call" and e["tool"] == "search_facts" for e in events)


async def test_budget_spent_then_forced_answer() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return decomposition("Paris", "France")
        if call.prompt == "mermaid_force":
            assert "step budget is spent" in text and "Step 3." in text
            return answer("True")
        return action("search_facts", f"France attempt {call.round}")

    verdict, backend, toolset, _ = await verify(replies, max_steps=3)
    assert verdict.label == Label.SUPPORTS and verdict.decided_by == "forced"
    assert len(toolset.calls) == 3 and len(backend.calls) == 1 + 3 + 1
    assert [s.tool for s in verdict.rounds[0].turns[0].steps] == ["search_facts"] * 3


async def test_bad_json_is_reasked_once_then_recorded() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return "Sure! The subject is Paris."  # no JSON
        if call.prompt == "mermaid_decompose:reask":
            return decomposition("Paris", "France")
        if call.prompt == "mermaid_step" and call.round == 1:
            return "I think it's true"
        if call.prompt == "mermaid_step:reask":
            return "```json\n" + answer("True") + "\n```"
        raise AssertionError(call.prompt)

    verdict, backend, _, events = await verify(replies)
    assert verdict.label == Label.SUPPORTS and verdict.unparsed_turns == 0
    assert [c[0].prompt for c in backend.calls] == ["mermaid_decompose", "mermaid_decompose:reask", "mermaid_step",
                                                    "mermaid_step:reask"]
    recovered = [e["what"] for e in events if e["event"] == "parse_recovered"]
    assert recovered == ["decomposition", "mermaid_step"]


async def test_a_decomposition_that_never_parses_leaves_the_raw_claim() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt.startswith("mermaid_decompose"):
            return "no idea"
        assert "Background" not in text and CLAIM in text
        return answer("True")

    verdict, _, _, events = await verify(replies)
    assert verdict.label == Label.SUPPORTS and verdict.unparsed_turns == 1  # the decomposition, counted
    assert any(e["event"] == "parse_failure" and e["what"] == "decomposition" for e in events)
    assert next(e for e in events if e["event"] == "decomposition")["parsed"] is False


async def test_unknown_and_failing_tools_are_observations() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return decomposition("Paris", "France")
        if call.round == 1:
            return action("google_it", "Paris")
        if call.round == 2:
            assert "unknown tool 'google_it'" in text and "search_facts" in text
            return action("explode", "Paris")
        if call.round == 3:
            assert "error: the archive is closed" in text
            return action("search_facts", "capital of France")
        return answer("True")

    # One call of the two that reached a server brought evidence: the claim keeps its verdict (had both
    # failed, it would be an error: tests/methods/mermaid/test_faults.py).
    verdict, _, toolset, events = await verify(replies)
    assert verdict.label == Label.SUPPORTS
    steps = verdict.rounds[0].turns[0].steps
    assert steps[0].observation.startswith("error: unknown tool") and steps[0].evidence == []
    assert toolset.calls == [("explode", {"query": "Paris", "k": 3}),
                             ("search_facts", {"query": "capital of France", "k": 3})]
    assert verdict.usage.tool_calls == 2  # the unknown name never reached a server
    assert [e["tool"] for e in events if e["event"] == "tool_error"] == ["google_it", "explode"]


async def test_unreadable_steps_spend_the_budget_and_are_counted() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return decomposition("Paris", "France")
        if call.prompt == "mermaid_force":
            return answer("False")
        return "hmm"

    verdict, backend, _, _ = await verify(replies, max_steps=2)
    assert verdict.label == Label.REFUTES and verdict.unparsed_turns == 2
    assert len(backend.calls) == 1 + 2 * 2 + 1


async def test_without_decomposer_the_executor_runs_alone() -> None:
    def replies(call: CallInfo, text: str) -> str:
        assert call.prompt != "mermaid_decompose" and "Background" not in text
        return answer("False")

    verdict, backend, _, events = await verify(replies, decomposer=False)
    assert verdict.label == Label.REFUTES and len(backend.calls) == 1 and verdict.unparsed_turns == 0
    assert next(e for e in events if e["event"] == "decomposition")["skipped"] is True


async def test_three_way_answers() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return decomposition("Paris", "France")
        assert '"NOT ENOUGH INFO"' in text
        return answer("NOT ENOUGH INFO")

    verdict, _, _, _ = await verify(replies, labels="three-way")
    assert verdict.label == Label.NOT_ENOUGH_INFO

    def binary(call: CallInfo, text: str) -> str:
        return decomposition("Paris", "France") if call.prompt == "mermaid_decompose" else answer("NOT ENOUGH INFO")

    verdict, _, _, _ = await verify(binary, max_steps=1)
    assert verdict.label is None and verdict.decided_by == "unparsed"  # binary: NEI is not an answer


async def test_call_bounds_hold_at_both_ends() -> None:
    def reask_everything(call: CallInfo, text: str) -> str:
        if not call.prompt.endswith(":reask"):
            return "nope"
        if call.prompt.startswith("mermaid_decompose"):
            return decomposition("Paris", "France")
        if call.prompt.startswith("mermaid_force"):
            return answer("True")
        return action("search_facts", f"France, step {call.round}")  # a repeated action would stop the loop

    verdict, backend, _, _ = await verify(reask_everything, max_steps=3)
    low, high = Method.named("mermaid").call_bounds(verdict_settings(max_steps=3))
    assert len(backend.calls) == verdict.usage.llm_calls == high == 2 + 2 * 3 + 2
    assert verdict.label == Label.SUPPORTS and verdict.unparsed_turns == 0

    def at_once(call: CallInfo, text: str) -> str:
        return decomposition("Paris", "France") if call.prompt == "mermaid_decompose" else answer("True")

    verdict, backend, _, _ = await verify(at_once, max_steps=3)
    assert len(backend.calls) == low == 2


def verdict_settings(**mermaid):  # type: ignore[no-untyped-def]
    from factdebate.settings.load import load_settings

    return load_settings(overrides={"method": "mermaid", "methods": {"mermaid": mermaid}}, environ={})


async def test_an_identical_repeated_action_stops_the_executor_and_asks_for_the_answer() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return decomposition("Paris", "France")
        if call.prompt == "mermaid_force":
            return answer("True")
        return action("search_facts", "capital of France")  # the same search every step

    verdict, backend, toolset, _ = await verify(replies, max_steps=5, repeat_stop=True)
    assert verdict.label == Label.SUPPORTS and verdict.decided_by == "forced"
    assert len(toolset.calls) == 1  # searched once: the repeat is not sent again
    steps = verdict.rounds[0].turns[0].steps
    assert len(steps) == 2 and steps[1].observation == "the same action as step 1: not repeated"
    assert [c[0].prompt for c in backend.calls] == ["mermaid_decompose", "mermaid_step", "mermaid_step",
                                                    "mermaid_force"]


def test_tool_inputs_are_shown_as_an_example_about_the_claim_with_their_purpose_not_their_type_alone() -> None:
    from factdebate.methods.mermaid.toolbox import input_hint
    from factdebate.tools.toolset import ToolSchema

    schema = ToolSchema(name="search_wikipedia", description="Search.", parameters={
        "type": "object", "required": ["query"],
        "properties": {"query": {"type": "string", "description": "Words to search for."},
                       "title": {"type": "string", "examples": ["Mount Everest"]}, "k": {"type": "integer"}}})
    shown = input_hint(schema, "Paris is the capital of France", "Paris")
    assert shown.startswith('{"query": "Paris is the capital of France", "title": "Mount Everest"}')
    assert "query: string, Words to search for" in shown and "title: string, optional" in shown
    assert '"k"' not in shown and "k:" not in shown  # k is set by the method, not the model
