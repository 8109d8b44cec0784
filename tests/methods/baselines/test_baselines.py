"""Each baseline's protocol, driven by a scripted backend: which prompts, in which order, what each agent
sees, when it stops, and how a failed parse ends (never with a made-up label)."""

from __future__ import annotations

from factdebate.core.types import Document, Label
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.baselines.vote import majority
from factdebate.methods.toolmad.method import ToolMAD, debate_calls
from factdebate.run.claim import run_claim
from tests.eval.support import prompts, resources_for, truthful
from tests.helpers import StaticTool

CLAIM = "Paris is the capital of France"
S, R, N = Label.SUPPORTS, Label.REFUTES, Label.NOT_ENOUGH_INFO


def script(table: dict[str, str], default: str = "no idea") -> object:
    """Reply by prompt name (``name`` or ``name@agent`` or ``name@agent@round``), most specific first."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        for key in (f"{call.prompt}@{call.agent}@{call.round}", f"{call.prompt}@{call.agent}", call.prompt):
            if key in table:
                return table[key]
        return default

    return respond


async def test_single_is_one_plain_call() -> None:
    resources, backend, _ = resources_for(truthful, method="single")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label is S and verdict.decided_by == "single" and verdict.method == "single"
    assert prompts(backend) == [("single", "single", 1)] and verdict.usage.llm_calls == 1


async def test_unparsed_answer_is_reasked_once_then_marked_unparsed() -> None:
    resources, backend, _ = resources_for(script({}), method="cot")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label is None and verdict.decided_by == "unparsed" and verdict.unparsed_turns == 1
    assert [p for p, _, _ in prompts(backend)] == ["cot", "label_reask"]
    first = backend.calls[0][1][0]["content"]
    assert "step by step" in first and CLAIM in first


async def test_react_searches_then_finishes() -> None:
    replies = {"react_step@react@1": "Thought: look it up.\nAction: search[capital of France]\nObservation: fake",
               "react_step@react@2": "Thought: the document says so.\nAction: finish[SUPPORTS]"}
    rag = StaticTool("rag", [Document(id="d1", title="France", text="Paris is the capital of France.")])
    resources, backend, tools = resources_for(script(replies), method="react", tools={"rag": rag})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label is S and verdict.decided_by == "single" and verdict.unparsed_turns == 0
    assert tools["rag"].queries == ["capital of France"]  # the model's imagined observation is ignored
    step2 = backend.calls[1][1][0]["content"]
    assert "Observation: [1] France: Paris is the capital of France." in step2 and "fake" not in step2
    (turn,) = verdict.rounds[0].turns  # one agent, one turn: the loop is its steps
    assert [(s.tool, s.arguments) for s in turn.steps] == [("rag", {"query": "capital of France"}),
                                                           ("finish", {"label": "SUPPORTS"})]
    assert turn.query == "capital of France" and turn.evidence == turn.steps[0].evidence
    assert verdict.usage.tool_calls == 1


async def test_react_step_cap_forces_a_final_answer() -> None:
    replies = {"react_step": "Thought: more.\nAction: search[France]", "react_final": "It says so.\nREFUTES"}
    # Every search runs, as in ReAct (the repeats are skipped by default: tests/methods/test_repeated_actions.py).
    resources, backend, tools = resources_for(script(replies), method="react",
                                              methods={"react": {"max_steps": 3, "repeat_skip": False}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert [p for p, _, _ in prompts(backend)] == ["react_step"] * 3 + ["react_final"]
    assert tools["rag"].queries == ["France"] * 3 and verdict.label is R and len(verdict.rounds) == 1
    assert len(verdict.rounds[0].turns[0].steps) == 3 and verdict.rounds[0].turns[0].response == "It says so.\nREFUTES"


async def test_react_invalid_action_is_reasked_and_counted() -> None:
    replies = {"react_step@react@1": "I think it is true.", "react_step:reask@react@1": "still nothing",
               "react_step@react@2": "Thought: ok\nAction: finish[maybe]",
               "react_step:reask@react@2": "Action: finish[NOT ENOUGH INFO]"}
    resources, backend, _ = resources_for(script(replies), method="react")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label is N and verdict.unparsed_turns == 1
    assert [p for p, _, _ in prompts(backend)] == ["react_step", "react_step:reask", "react_step",
                                                   "react_step:reask"]


async def test_react_first_ask_and_reask_are_held_to_the_step_grammar() -> None:
    from factdebate.methods.baselines.react import STEP_GRAMMAR

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        assert params.grammar == STEP_GRAMMAR  # from the first ask (unconstrained, 5 of 5 steps lost)
        if call.prompt == "react_step:reask":
            assert params.temperature > 0  # the same constraint again: sampled warmer
            return "Thought: look.\nAction: finish[REFUTES]"
        return "Thought: <your reasoning>\nAction: search[<query>] or finish[<VERDICT>]"

    resources, _, _ = resources_for(respond, method="react")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label is R and verdict.unparsed_turns == 0


async def test_mad_moderator_reask_is_held_to_the_moderation_grammar() -> None:
    from factdebate.methods.baselines.mad import MODERATION_GRAMMAR

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "mad_moderator:reask":
            assert params.grammar == MODERATION_GRAMMAR
            return "Preference: yes\nReason: the negative side is right.\nREFUTES"
        if call.prompt == "mad_moderator":
            return "Preference: yes or no\nReason: one sentence"
        return "An argument.\nSUPPORTS"

    resources, _, _ = resources_for(respond, method="mad")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label is R and verdict.decided_by == "moderator" and len(verdict.rounds) == 1


def test_echoed_answer_formats_are_not_decisions() -> None:
    from factdebate.methods.baselines.mad import parse_moderation
    from factdebate.methods.baselines.react import parse_action

    echo = "Thought: <your reasoning>\nAction: search[<query>] or finish[<VERDICT>]"
    assert parse_action(echo) is None
    assert parse_action(echo + "\nThought: go\nAction: search[Paris]") == parse_action("Action: search[Paris]")
    assert parse_action("Action: finish[REFUTES]").label is R  # type: ignore[union-attr]
    assert parse_moderation("Preference: yes or no\nReason: one sentence") is None
    assert parse_moderation("Preference: no\nReason: tie") is not None


async def test_mad_moderator_preference_stops_the_debate() -> None:
    replies = {"mad_affirmative": "It is true.\nSUPPORTS", "mad_negative": "No, it is not.\nREFUTES",
               "mad_moderator": "Preference: yes\nReason: the negative side cites facts.\nREFUTES"}
    resources, backend, _ = resources_for(script(replies), method="mad")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label is R and verdict.decided_by == "moderator" and len(verdict.rounds) == 1
    assert prompts(backend) == [("mad_affirmative", "affirmative", 1), ("mad_negative", "negative", 1),
                                ("mad_moderator", "moderator", 1)]
    assert "It is true." in backend.calls[1][1][0]["content"]  # the negative side answers the affirmative
    assert [(t.agent, t.team) for t in verdict.rounds[0].turns] == [("affirmative", "affirmative"),
                                                                    ("negative", "negative")]
    (moderator,) = verdict.rounds[0].judges
    assert moderator.role == "moderator" and moderator.vote is R and moderator.parsed


async def test_mad_without_preference_runs_all_rounds_then_the_judge() -> None:
    replies = {"mad_affirmative@affirmative@1": "First take.\nSUPPORTS", "mad_affirmative": "Still true.\nSUPPORTS",
               "mad_negative@negative@1": "Objection one.\nREFUTES", "mad_negative": "Objection.\nREFUTES",
               "mad_moderator": "Preference: no\nReason: both weak.", "mad_judge": "On balance.\nNOT ENOUGH INFO"}
    resources, backend, _ = resources_for(script(replies), method="mad", baselines={"mad_rounds": 2})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label is N and verdict.decided_by == "judge" and len(verdict.rounds) == 2
    assert [p for p, _, _ in prompts(backend)] == ["mad_affirmative", "mad_negative", "mad_moderator"] * 2 + [
        "mad_judge"]
    affirmative_round2 = backend.calls[3][1][0]["content"]
    assert "Objection one." in affirmative_round2  # tit for tat: it answers the negative side
    judge = backend.calls[-1][1][0]["content"]
    assert "First take." in judge and "Objection." in judge
    assert verdict.unparsed_turns == 0  # "no preference" is a decision, not a parse failure


async def test_madke_retrieves_once_and_keeps_the_pool() -> None:
    replies = {"madke_answer@debater-1": "Doc 1 supports it.\nSUPPORTS",
               "madke_answer@debater-2": "Doc 2 disagrees.\nREFUTES", "madke_judge": "Doc 1 is right.\nSUPPORTS"}
    resources, backend, tools = resources_for(script(replies), method="madke")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert tools["rag"].queries == [CLAIM] and tools["search"].queries == [CLAIM]  # once, before the debate
    assert verdict.usage.tool_calls == 2 and verdict.decided_by == "judge" and verdict.label is S
    answers = [m[0]["content"] for info, m in backend.calls if info.prompt == "madke_answer"]
    assert len(answers) == 6 and all("rag doc" in a and "local doc" in a for a in answers)
    assert "Doc 2 disagrees." in answers[2]  # round 2: debater 1 reads debater 2's previous answer
    assert "rag doc" in backend.calls[-1][1][0]["content"]  # the judge reads the pool too


async def test_madke_agreement_ends_in_round_one() -> None:
    resources, _, _ = resources_for(truthful, method="madke")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.decided_by == "consensus" and len(verdict.rounds) == 1 and verdict.usage.llm_calls == 2
    assert verdict.rounds[0].turns[0].evidence and verdict.label is S


async def test_vote_matches_the_tool_mad_budget_and_takes_the_majority() -> None:
    def voter(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        assert params.temperature == 0.7
        number = int(call.agent.split("-")[1])
        return "Hmm.\nREFUTES" if number % 3 == 0 else "Yes.\nSUPPORTS"

    resources, backend, tools = resources_for(voter, method="vote")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    budget = debate_calls(ToolMAD().cfg(resources.settings), reasks=False)
    assert budget == 31  # 2 agents x (5 + 5 + 5) + judge, with the default settings (round 1 asks a query too)
    assert verdict.usage.llm_calls == budget and len({a for _, a, _ in prompts(backend)}) == budget
    assert verdict.label is S and verdict.decided_by == "vote" and not verdict.judges
    assert "SUPPORTS 21, REFUTES 10" in verdict.explanation and verdict.reasons == verdict.explanation
    assert tools["rag"].queries == [CLAIM] and tools["search"].queries == [CLAIM]
    assert [t.tool for t in verdict.rounds[0].turns[:3]] == ["rag", "search", "rag"]


async def test_vote_budget_equals_a_full_tool_mad_debate() -> None:
    from factdebate.llm.scripted_library import protocol_responder

    resources, _, _ = resources_for(protocol_responder(disagree=True), method="tool-mad")  # type: ignore[arg-type]
    verdict = await run_claim(CLAIM, resources.settings, resources)
    budget = debate_calls(ToolMAD().cfg(resources.settings), reasks=False)
    assert verdict.decided_by == "judge" and verdict.usage.llm_calls == budget


def test_majority_tie_rule_is_explicit() -> None:
    assert majority([R, S, S, R, None]) == (R, "votes: REFUTES 2, SUPPORTS 2; unparsed 1; tie between "
                                               "REFUTES, SUPPORTS broken by the earliest vote")
    assert majority([None, None]) == (None, "votes: none parsed; unparsed 2")
    assert majority([N, N, S])[0] is N


async def test_vote_with_every_answer_unparsed_is_unparsed() -> None:
    resources, _, _ = resources_for(script({}), method="vote", baselines={"vote_samples": 3})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label is None and verdict.decided_by == "unparsed" and verdict.unparsed_turns == 3
