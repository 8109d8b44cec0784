"""The generic moves of any method, each traced alike so every method streams live: a turn, its scores, a
judgement, the end of a round, and :func:`finish`, the one way a verdict is made."""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.core.claim_context import THIRD_LABEL_ANSWER, THIRD_LABEL_READS, THIRD_LABEL_RULE, binary_task
from factdebate.core.events import Answer, JudgementMade, RoundEnded, Scored, TurnStarted, VerdictReached, doc_refs
from factdebate.core.runtime import current_run, emit
from factdebate.core.types import Document, Judgement, Label, Round, Turn, Verdict, VerdictWarning
from factdebate.llm.model import LLM
from factdebate.methods.kit.common import labelled_answer
from factdebate.prompts import Prompt


def turn_started(turn: Turn, round: int) -> None:
    emit(TurnStarted(agent=turn.agent, round=round, role=turn.role, team=turn.team, tool=turn.tool,
                     query=turn.query, query_changed=turn.query_changed, claim=turn.claim,
                     evidence=doc_refs(turn.evidence)))


def answered(turn: Turn, round: int) -> None:
    emit(Answer(agent=turn.agent, round=round, role=turn.role, team=turn.team, label=turn.label,
                response=turn.response, parse_retries=turn.parse_retries))


ANSWER_TOKENS = 384  # the longest answer a debater may write (a generation limit, not a prompt's instruction)


async def answer_turn(llm: LLM, prompt: Prompt, *, agent: str, round: int, role: str = "debater",
                      team: str | None = None, tool: str = "none", query: str | None = None,
                      query_changed: bool | None = None, evidence: Sequence[Document] = (),
                      temperature: float = 0.0, max_tokens: int = ANSWER_TOKENS, reasoning: bool = True) -> Turn:
    """One labelled answer as a traced turn (``turn_started``, then ``answer``)."""
    turn = Turn(agent=agent, role=role, team=team, tool=tool, query=query, query_changed=query_changed,
                evidence=list(evidence))
    turn_started(turn, round)
    answer = await labelled_answer(llm, prompt, agent=agent, round=round, max_tokens=max_tokens,
                                   temperature=temperature, reasoning=reasoning)
    turn.response, turn.label, turn.parse_retries = answer.response, answer.label, answer.retries
    turn.label_constrained = answer.constrained
    answered(turn, round)
    return turn


def scored(turn: Turn, round: int) -> None:
    emit(Scored(agent=turn.agent, round=round, scores=turn.scores, errors=turn.score_errors))


def judged(judgement: Judgement, round: int) -> None:
    emit(JudgementMade(agent=judgement.agent, round=round, role=judgement.role, vote=judgement.vote,
                       confidence=judgement.confidence, weight=judgement.weight, parsed=judgement.parsed,
                       response=judgement.response, scores=judgement.scores))


async def judge(llm: LLM, prompt: Prompt, *, round: int, agent: str = "judge", role: str = "judge",
                weight: float = 1.0, temperature: float = 0.0) -> Judgement:
    """A labelled decision over the debate, traced as a ``judgement``; an unreadable label is ``parsed`` false."""
    answer = await labelled_answer(llm, prompt, agent=agent, round=round, temperature=temperature)
    judgement = Judgement(agent=agent, role=role, response=answer.response, vote=answer.label, weight=weight,
                          parsed=answer.label is not None, parse_retries=answer.retries,
                          label_constrained=answer.constrained)
    judged(judgement, round)
    return judgement


def end_round(rnd: Round, *, consensus: bool, final: bool = False) -> None:
    emit(RoundEnded(round=rnd.round, labels=[t.label for t in rnd.turns], consensus=consensus, final=final))


def finish(claim: str, method: str, label: Label | None, decided_by: str, rounds: list[Round],
           judges: Sequence[Judgement] = (), *, explanation: str = "", unparsed_turns: int | None = None) -> Verdict:
    """The verdict of every method; one without a label is ``decided_by="unparsed"``. In a two-label task NOT
    ENOUGH INFO is answered REFUTES (``decided_by="two-labels"``, with a warning)."""
    if (run := current_run()) is not None:  # every re-ask of the agent's round: query, scores, label...
        for rnd in rounds:
            parts: list[Turn | Judgement] = [*rnd.turns, *rnd.judges]
            for part in parts:
                part.parse_retries = max(part.parse_retries, run.reasks.get((part.agent, rnd.round), 0))
    if unparsed_turns is None:
        unparsed_turns = sum(t.label is None for r in rounds for t in r.turns)
        unparsed_turns += sum(not j.parsed for r in rounds for j in r.judges)
    warnings: list[VerdictWarning] = []
    if label is Label.NOT_ENOUGH_INFO and binary_task():  # the declared rule (core/claim_context.py)
        warnings.append(VerdictWarning(code="two_labels", message=f"{THIRD_LABEL_READS} (the method answered "
                                       f"NOT ENOUGH INFO by {decided_by})"))
        label, decided_by = Label(THIRD_LABEL_ANSWER), THIRD_LABEL_RULE
    verdict = Verdict(claim=claim, method=method, label=label,
                      decided_by=decided_by if label is not None else "unparsed", rounds=rounds,
                      judges=list(judges), explanation=explanation, unparsed_turns=unparsed_turns,
                      warnings=warnings)
    emit(VerdictReached(label=label, decided_by=verdict.decided_by))
    return verdict
