"""Every path of Tool-MAD's Algorithm 1, driven by a scripted backend."""

from __future__ import annotations

import pytest

from factdebate.core.types import Label
from factdebate.llm.base import Message
from factdebate.llm.calls import CallInfo
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, StaticTool, debate_script, make_resources

S, R, N = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"


def prompts(backend) -> list[tuple[str, str, int]]:
    return [(info.prompt, info.agent, info.round) for info, _ in backend.calls]


async def test_consensus_in_round_one_ends_the_debate() -> None:
    script = debate_script({("rag", 1): S, ("search", 1): f"**{S}**"})
    resources, backend, tools = make_resources(script)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label is Label.SUPPORTS and verdict.decided_by == "consensus"
    assert len(verdict.rounds) == 1 and verdict.judge is None
    turn = verdict.rounds[0].turns[0]
    assert turn.query == CLAIM and turn.query_changed is None  # the scripted model wrote the claim as its query
    assert turn.faithfulness == 1.0 and turn.answer_relevance is not None and turn.answer_relevance > 0.99
    assert tools["rag"].queries == [CLAIM] and tools["search"].queries == [CLAIM]
    names = [p for p, _, _ in prompts(backend)]
    assert "judge" not in names
    # Round 1's query is the model's, written from the claim alone: one call per agent.
    assert sorted((a, r) for p, a, r in prompts(backend) if p == "query_select") == [("rag", 1), ("search", 1)]
    # per agent: query, answer, statements, verdicts, questions
    assert verdict.usage.llm_calls == 10 and verdict.usage.tool_calls == 2


async def test_round_one_query_is_written_from_the_claim_alone_and_traced() -> None:
    """The query-selection call of round 1 sees the claim and nothing else; its query is
    the one searched; the trace shows the call. ``round1_query: claim`` searches the claim with no call."""
    script = debate_script({("rag", 1): S, ("search", 1): S}, queries={("rag", 1): "France capital city"})
    resources, backend, tools = make_resources(script)
    events: list[dict[str, object]] = []
    verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    asked = next(m for info, m in backend.calls if info.prompt == "query_select" and info.agent == "rag")
    text = asked[0]["content"]
    assert f"Claim: {CLAIM}" in text and "previous query" not in text and "Previous answer" not in text
    assert verdict.rounds[0].turns[0].query == "France capital city"
    assert tools["rag"].queries == ["France capital city"] and tools["search"].queries == [CLAIM]
    traced = [e for e in events if e["event"] == "llm_call" and str(e.get("prompt")).startswith("query_select")]
    assert sorted((str(e.get("agent")), str(e.get("round"))) for e in traced) == [("rag", "1"), ("search", "1")]
    verbatim, backend, tools = make_resources(script, round1_query="claim")
    verdict = await run_claim(CLAIM, verbatim.settings, verbatim)
    assert "query_select" not in [p for p, _, _ in prompts(backend)] and tools["rag"].queries == [CLAIM]
    assert verdict.usage.llm_calls == 8 and "round1_query" in [d.key for d in verdict.deviations]


async def test_same_labels_below_threshold_continue_to_the_judge() -> None:
    labels = {(a, r): S for a in ("rag", "search") for r in (1, 2, 3)}
    resources, _backend, _ = make_resources(debate_script(labels, supported=False))
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert len(verdict.rounds) == 3 and verdict.decided_by == "judge"
    assert verdict.label is Label.REFUTES  # the judge's label, not the debaters'
    assert all(t.faithfulness == 0.0 for r in verdict.rounds for t in r.turns)


async def test_low_relevance_also_blocks_consensus() -> None:
    labels = {(a, r): S for a in ("rag", "search") for r in (1, 2)}
    resources, _, _ = make_resources(debate_script(labels, relevant=False), rounds=2)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.decided_by == "judge" and len(verdict.rounds) == 2
    assert all(t.answer_relevance is not None and t.answer_relevance < 0.8
               for r in verdict.rounds for t in r.turns)


@pytest.mark.parametrize(("relevant", "questions", "said", "not_said"), [
    (False, None, "agreeing, though an answer's reliability score stayed below", "could not be computed"),
    (True, "", "agreeing, though a reliability score of an answer could not be computed", "stayed below"),
])
async def test_the_judge_is_told_how_an_agreeing_debate_ended(relevant: bool, questions: str | None, said: str,
                                                              not_said: str) -> None:
    """Agents that agreed while a score fell short (or failed) are not "without agreement"."""
    labels = {(a, r): S for a in ("rag", "search") for r in (1, 2)}
    overrides = (lambda call, _: questions if call.prompt.startswith("relevance_questions") else None) \
        if questions is not None else None
    resources, backend, _ = make_resources(debate_script(labels, relevant=relevant, overrides=overrides), rounds=2)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    judge_prompt = next(m for info, m in backend.calls if info.prompt == "judge")[0]["content"]
    assert verdict.decided_by == "judge" and said in judge_prompt
    assert not_said not in judge_prompt and "without agreement" not in judge_prompt


async def test_disagreement_goes_to_the_judge_at_round_t_with_history_and_scores() -> None:
    labels = {("rag", r): S for r in (1, 2, 3)} | {("search", r): R for r in (1, 2, 3)}
    resources, backend, _ = make_resources(debate_script(labels, judge="Search is better.\nNOT ENOUGH INFO"))
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.decided_by == "judge" and verdict.label is Label.NOT_ENOUGH_INFO
    assert verdict.judge is not None and verdict.judge.label is Label.NOT_ENOUGH_INFO
    judge_prompt = next(m for info, m in backend.calls if info.prompt == "judge")[0]["content"]
    assert "Round 3:" in judge_prompt and "faithfulness 1.00, answer relevance 1.00" in judge_prompt
    assert "debate that ended without agreement" in judge_prompt
    assert "Reasoning of search in round 2" in judge_prompt and "rag doc" in judge_prompt
    # rounds 2 and 3: each agent re-formulates its query after reading the opponent's previous answer
    query_calls = [(a, r) for p, a, r in prompts(backend) if p == "query_select"]
    assert sorted(query_calls) == [("rag", 1), ("rag", 2), ("rag", 3), ("search", 1), ("search", 2), ("search", 3)]
    rag_round2 = next(m for info, m in backend.calls
                      if info.prompt == "debate_answer" and info.agent == "rag" and info.round == 2)
    assert "Reasoning of search in round 1" in rag_round2[0]["content"]


async def test_query_kept_reuses_documents_and_changed_query_searches_again() -> None:
    labels = {("rag", r): S for r in (1, 2)} | {("search", r): R for r in (1, 2)}
    script = debate_script(labels, queries={("rag", 2): "capital city of France"})
    resources, _, tools = make_resources(script, rounds=2)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    rag2, search2 = verdict.rounds[1].turns
    assert rag2.query == "capital city of France" and rag2.query_changed is True
    assert search2.query == CLAIM and search2.query_changed is False
    assert tools["rag"].queries == [CLAIM, "capital city of France"]
    assert tools["search"].queries == [CLAIM]  # the kept query did not search twice
    assert search2.evidence == verdict.rounds[0].turns[1].evidence


async def test_query_formulation_off_always_uses_the_claim() -> None:
    labels = {("rag", r): S for r in (1, 2)} | {("search", r): R for r in (1, 2)}
    resources, backend, _ = make_resources(debate_script(labels), rounds=2, query_formulation=False)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert all(t.query == CLAIM for r in verdict.rounds for t in r.turns)
    assert "query_select" not in [p for p, _, _ in prompts(backend)]


async def test_agent_without_tool_has_no_query_no_evidence_and_needs_only_relevance() -> None:
    script = debate_script({("rag", 1): S, ("none", 1): S})
    resources, backend, _tools = make_resources(script, agents=["rag", "none"])
    verdict = await run_claim(CLAIM, resources.settings, resources)
    none_turn = verdict.rounds[0].turns[1]
    assert none_turn.tool == "none" and none_turn.query is None and none_turn.evidence == []
    assert none_turn.faithfulness is None and none_turn.score_errors == []
    assert verdict.decided_by == "consensus"
    prompt = next(m for info, m in backend.calls if info.prompt == "debate_answer" and info.agent == "none")
    assert "You have no documents" in prompt[0]["content"]


async def test_three_agents_see_both_others_and_must_all_agree() -> None:
    labels = {("rag", 1): S, ("search", 1): S, ("none", 1): R, ("rag", 2): S, ("search", 2): S,
              ("none", 2): S}
    resources, backend, _ = make_resources(debate_script(labels), agents=["rag", "search", "none"], rounds=2)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert len(verdict.rounds) == 2 and verdict.decided_by == "consensus"
    prompt = next(m for info, m in backend.calls
                  if info.prompt == "debate_answer" and info.agent == "none" and info.round == 2)[0]["content"]
    assert "Reasoning of rag in round 1" in prompt and "Reasoning of search in round 1" in prompt


async def test_same_tool_twice_gets_distinct_agent_names() -> None:
    labels = {("rag-1", 1): S, ("rag-2", 1): S}
    resources, _, _ = make_resources(debate_script(labels), agents=["rag", "rag"])
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert [t.agent for t in verdict.rounds[0].turns] == ["rag-1", "rag-2"]


async def test_unparsed_label_is_reasked_once_then_recorded_and_never_consensus() -> None:
    labels = {(a, r): "I am not sure what to say." for a in ("rag", "search") for r in (1,)}
    resources, backend, _ = make_resources(debate_script(labels, judge="hmm"), rounds=1)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    turns = verdict.rounds[0].turns
    assert all(t.label is None and t.parse_retries == 1 for t in turns)
    # An unreadable judge makes the verdict "unparsed", as in every other method.
    assert verdict.unparsed_turns == 2 and verdict.decided_by == "unparsed"
    assert verdict.label is None and verdict.judge is not None and verdict.judge.label is None
    reasks = [call for call in backend.calls if call[0].prompt == "label_reask"]
    assert len(reasks) == 3 and reasks[0][1][1]["role"] == "assistant"


async def test_unparsed_label_recovered_by_reask() -> None:
    def override(call: CallInfo, messages: list[Message]) -> str | None:
        return "SUPPORTS" if call.prompt == "label_reask" else None

    labels = {("rag", 1): "no label here", ("search", 1): S}
    resources, _, _ = make_resources(debate_script(labels, overrides=override))
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.rounds[0].turns[0].label is Label.SUPPORTS
    assert verdict.rounds[0].turns[0].parse_retries == 1 and verdict.decided_by == "consensus"


async def test_unscorable_answer_never_passes_thresholds() -> None:
    def override(call: CallInfo, messages: list[Message]) -> str | None:
        return "I cannot do that" if call.prompt.startswith("faithfulness_verdicts") else None

    labels = {(a, 1): S for a in ("rag", "search")}
    resources, _, _ = make_resources(debate_script(labels, overrides=override), rounds=1)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    turn = verdict.rounds[0].turns[0]
    assert turn.faithfulness is None and any("faithfulness" in e for e in turn.score_errors)
    assert verdict.decided_by == "judge"


async def test_scoring_off_agrees_on_labels_alone_and_judge_sees_no_scores() -> None:
    labels = {("rag", 1): S, ("search", 1): S}
    resources, backend, _ = make_resources(debate_script(labels, supported=False), scoring=False)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.decided_by == "consensus"
    assert {p for p, _, _ in prompts(backend)} == {"query_select", "debate_answer"}


async def test_threshold_on_average_uses_running_means() -> None:
    # Round 1 unsupported (0.0), round 2 supported (1.0): average 0.5 < 0.7 blocks; "round" lets it pass.
    def make(mode: str):
        state = {"round": 0}

        def override(call: CallInfo, messages: list[Message]) -> str | None:
            if call.prompt.startswith("faithfulness_verdicts"):
                word = "no" if call.round == 1 else "yes"
                return f"1: {word}\n2: {word}"
            return None

        labels = {(a, r): S for a in ("rag", "search") for r in (1, 2)}
        del state
        return make_resources(debate_script(labels, overrides=override), rounds=2, threshold_on=mode)

    by_round, _, _ = make("round")
    verdict = await run_claim(CLAIM, by_round.settings, by_round)
    assert verdict.decided_by == "consensus" and len(verdict.rounds) == 2
    by_average, _, _ = make("average")
    verdict = await run_claim(CLAIM, by_average.settings, by_average)
    assert verdict.decided_by == "judge"


async def test_consistency_variant_scores_similarity_and_feeds_the_judge() -> None:
    labels = {("rag", 1): S, ("search", 1): R}
    resources, backend, _ = make_resources(debate_script(labels), rounds=1, scoring_variant="consistency")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    turn = verdict.rounds[0].turns[0]
    assert turn.consistency is not None and turn.faithfulness is None
    judge_prompt = next(m for info, m in backend.calls if info.prompt == "judge")[0]["content"]
    assert "consistency" in judge_prompt
    assert not any(info.prompt.startswith("faithfulness") for info, _ in backend.calls)


async def test_tool_documents_reach_the_prompt_trimmed() -> None:
    long_doc = [StaticTool("rag").docs[0].model_copy(update={"text": "x" * 5000})]
    tools = {"rag": StaticTool("rag", long_doc), "search": StaticTool("local")}
    resources, _backend, _ = make_resources(debate_script({("rag", 1): S, ("search", 1): S}), tools=tools,
                                           max_doc_chars=200)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert len(verdict.rounds[0].turns[0].evidence[0].text) <= 201


def test_algorithm_1s_running_sum_passes_where_each_round_alone_fails() -> None:
    """``threshold_on: sum`` is S <- S + (f, ar) as Algorithm 1 writes it."""
    from factdebate.core.types import Round, Turn
    from factdebate.methods.toolmad.method import Agent, ToolMAD, ToolMADSettings

    def scored_round(r: int) -> Round:
        turn = Turn(agent="rag", role="debater", label=Label.SUPPORTS)
        turn.scores.update(faithfulness=0.5, answer_relevance=0.5)
        return Round(round=r, turns=[turn])

    agent = Agent("rag", "rag", None, "RAG agent")
    rounds = [scored_round(1), scored_round(2)]
    for way, first, second in (("sum", False, True), ("round", False, False), ("average", False, False)):
        cfg = ToolMADSettings(threshold_on=way)
        assert ToolMAD._stable(0, agent, rounds[:1], cfg) is first
        assert ToolMAD._stable(0, agent, rounds, cfg) is second, way


@pytest.mark.parametrize(("way", "at_threshold_passes"), [("above", False), ("at_least", True)])
def test_a_score_equal_to_its_threshold_fails_by_default(way: str, at_threshold_passes: bool) -> None:
    """Algorithm 1's ``S > St`` (the authors' code fails a score at or under it); ``>=``
    is the option."""
    from factdebate.core.types import Round, Turn
    from factdebate.methods.toolmad.method import Agent, ToolMAD, ToolMADSettings

    def one_round(faith: float, relevance: float) -> list[Round]:
        turn = Turn(agent="rag", role="debater", label=Label.SUPPORTS)
        turn.scores.update(faithfulness=faith, answer_relevance=relevance)
        return [Round(round=1, turns=[turn])]

    cfg, agent = ToolMADSettings(threshold_pass=way), Agent("rag", "rag", object(), "RAG agent")  # type: ignore[arg-type]
    assert ToolMAD._stable(0, agent, one_round(0.7, 0.9), cfg) is at_threshold_passes
    assert ToolMAD._stable(0, agent, one_round(0.9, 0.8), cfg) is at_threshold_passes
    assert ToolMAD._stable(0, agent, one_round(0.7001, 0.8001), cfg) is True
    assert ToolMAD._stable(0, agent, one_round(0.6999, 0.9), cfg) is False


async def test_after_a_low_scored_agreement_only_the_low_agent_is_told_in_its_next_prompt() -> None:
    """Round 1 agrees, the search agent's faithfulness is 0 (the RAG agent's is 1): the
    search agent's round-2 prompt carries the note, the RAG agent's does not; ``--no-score-note`` drops it
    and is declared."""
    def override(call: CallInfo, messages: list[Message]) -> str | None:
        if call.prompt.startswith("faithfulness_verdicts") and call.agent == "search" and call.round == 1:
            return "1: no\n2: no"
        return None

    labels = {(a, r): S for a in ("rag", "search") for r in (1, 2)}
    resources, backend, _ = make_resources(debate_script(labels, overrides=override), rounds=2)
    events: list[dict[str, object]] = []
    verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    assert verdict.decided_by == "consensus" and len(verdict.rounds) == 2

    def asked(agent: str, r: int) -> str:
        return next(m for info, m in backend.calls
                    if info.prompt == "debate_answer" and info.agent == agent and info.round == r)[0]["content"]

    note = "A note on your previous answer"
    assert note in asked("search", 2) and "your faithfulness was 0.00 (it needs to be above 0.7)" in asked("search", 2)
    assert note not in asked("rag", 2) and note not in asked("search", 1)
    assert "score_note" not in [d.key for d in verdict.deviations]
    quiet, backend, _ = make_resources(debate_script(labels, overrides=override), rounds=2, score_note=False)
    verdict = await run_claim(CLAIM, quiet.settings, quiet)
    assert note not in asked("search", 2) and "score_note" in [d.key for d in verdict.deviations]


async def test_no_note_after_a_disagreement() -> None:
    labels = {("rag", r): S for r in (1, 2)} | {("search", 1): R, ("search", 2): S}
    resources, backend, _ = make_resources(debate_script(labels, supported=False), rounds=2)
    await run_claim(CLAIM, resources.settings, resources)
    asked = [m[0]["content"] for info, m in backend.calls if info.prompt == "debate_answer" and info.round == 2]
    assert len(asked) == 2 and not any("A note on your previous answer" in text for text in asked)


async def test_a_speculative_round_waits_for_the_scores_its_note_reads() -> None:
    """With speculation a round starts before the previous one is scored; the note needs those scores."""
    def override(call: CallInfo, messages: list[Message]) -> str | None:
        if call.prompt.startswith("faithfulness_verdicts") and call.agent == "search" and call.round == 1:
            return "1: no\n2: no"
        return None

    labels = {(a, r): S for a in ("rag", "search") for r in (1, 2)}
    resources, backend, _ = make_resources(debate_script(labels, overrides=override), rounds=2, speculate=True,
                                           latency=0.01)
    await run_claim(CLAIM, resources.settings, resources)
    search2 = next(m for info, m in backend.calls
                   if info.prompt == "debate_answer" and info.agent == "search" and info.round == 2)[0]["content"]
    assert "your faithfulness was 0.00" in search2
