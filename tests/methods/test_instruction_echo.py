"""An answer whose reasoning repeats its prompt's instructions is no debater's position. SmolLM2 (the embedded
model, in process, and served by llama-cpp-python) answered MADKE's prompt with its own verdict instruction,
continued, and a label: both debaters wrote "SUPPORTS if the evidence shows the claim is true, not false, and
not contradictory." then "Verdict: REFUTES", and "The Eiffel Tower is located in Rome." ended REFUTES by
consensus of two echoes. Such an answer is now counted as ``echoed``, recorded as a parse problem and asked
for again whole; an answer that stays an echo has no label (the turn is unparsed, so no consensus stands on
it). The echo is found against the rendered prompt, so every labelled answer is read this way (Tool-MAD's too),
and an answer that shares a few words with its instructions is read as before."""

from __future__ import annotations

from typing import Any

from factdebate.core.types import Document, Label
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.kit.fields import instruction_echo
from factdebate.prompts import render
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for

# What SmolLM2 wrote to MADKE's prompt, word for word (llama-cpp:builtin, "The Eiffel Tower is located in Rome.").
ECHO = "SUPPORTS if the evidence shows the claim is true, not false, and not contradictory.\nVerdict: REFUTES"
ANSWER = "Document [1] says that Paris is the capital of France, as the claim does.\nVerdict: SUPPORTS"
MADKE = {"madke": {"rounds": 1}}


def debaters(first: str, again: str | None = None) -> Any:
    """Every debater answers ``first``; asked again whole, ``again`` (None: ``first`` once more)."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "madke_answer":
            return first
        if call.prompt == "madke_answer:reask":
            return again if again is not None else first
        return truthful(call, messages, params)

    return respond


async def _madke(script: Any) -> tuple[Any, Any, list[dict[str, Any]]]:
    resources, backend, _ = resources_for(script, method="madke", methods=MADKE)
    events: list[dict[str, Any]] = []
    verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    return verdict, backend, events


async def test_two_echoes_make_no_consensus_and_each_is_recorded_and_counted() -> None:
    verdict, backend, events = await _madke(debaters(ECHO))
    # Each echo was asked for again whole (not for its label alone), and echoed again.
    prompts = [c.prompt for c, _ in backend.calls]
    assert prompts.count("madke_answer:reask") == 2 and "label_reask" not in prompts
    assert verdict.parse_counts["madke_answer"].echoed == 4
    label = verdict.parse_counts["label"]
    assert (label.reasked, label.recovered, label.lost) == (2, 0, 2)
    failures = [e for e in events if e["event"] == "parse_failure"]
    assert len(failures) == 2 and all(
        'repeats the instructions ("supports if the evidence shows the claim is true")' in e["problem"]
        for e in failures)
    # No position was read from either echo: no consensus on REFUTES; the judge decided from the debate.
    assert [t.label for t in verdict.rounds[0].turns] == [None, None] and verdict.unparsed_turns == 2
    assert verdict.decided_by == "judge" and verdict.label == Label.SUPPORTS


async def test_an_echo_asked_again_is_replaced_by_the_answer_the_reask_gives() -> None:
    verdict, backend, events = await _madke(debaters(ECHO, again=ANSWER))
    [reask] = [m for c, m in backend.calls if c.prompt == "madke_answer:reask"][:1]
    told = reask[-1]["content"]
    assert "Do not write that reply again" in told and "repeats the instructions" in told
    turns = verdict.rounds[0].turns
    assert [t.label for t in turns] == [Label.SUPPORTS, Label.SUPPORTS] and all(t.response == ANSWER for t in turns)
    assert verdict.decided_by == "consensus" and verdict.label == Label.SUPPORTS and verdict.unparsed_turns == 0
    label = verdict.parse_counts["label"]
    assert (label.reasked, label.recovered, label.lost) == (2, 2, 0)
    assert verdict.parse_counts["madke_answer"].echoed == 2
    assert [e["event"] for e in events if e["event"].startswith("parse_")] == ["parse_recovered"] * 2


async def test_an_answer_that_shares_a_phrase_with_its_instructions_is_read_as_before() -> None:
    fair = "The evidence shows the claim is true: document [1] names Paris as the capital of France.\nSUPPORTS"
    verdict, backend, _ = await _madke(debaters(fair))
    assert [c.prompt for c, _ in backend.calls] == ["madke_answer", "madke_answer"]
    assert verdict.decided_by == "consensus" and verdict.label == Label.SUPPORTS
    assert "madke_answer" not in verdict.parse_counts or not verdict.parse_counts["madke_answer"].echoed


async def test_tool_mads_own_instruction_echoed_is_no_position_either() -> None:
    # The same reading on another prompt: Tool-MAD's verdict instruction, continued, from the rendered prompt.
    echo = ("On the last line write only the verdict: SUPPORTS (the claim is true), REFUTES (the claim is false), "
            "SUPPORTS.\nREFUTES")

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        return echo if call.prompt.startswith("debate_answer") else truthful(call, messages, params)

    resources, _, _ = resources_for(respond, methods={"tool-mad": {"rounds": 1}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert all(t.label is None for t in verdict.rounds[0].turns) and verdict.decided_by == "judge"
    assert verdict.parse_counts["debate_answer"].echoed == 2 * len(verdict.rounds[0].turns)


def test_the_echo_is_read_against_the_prompt_as_rendered() -> None:
    documents = [Document(id="1", title="Paris", text="Paris is the capital of France.", source="x")]
    madke = render("madke_answer", agent_desc="debater #1", claim=CLAIM, others=[], documents=documents)
    assert instruction_echo(ECHO, madke.fixed) == "supports if the evidence shows the claim is true"
    # What the rendering put in (the claim, a passage) is not the instructions: quoting it is no echo.
    assert instruction_echo("Paris is the capital of France. Document [1]: Paris is the capital of France.",
                            madke.fixed) is None
    # A two-label rendering offers no NOT ENOUGH INFO: its line is no instruction there.
    nei = "NOT ENOUGH INFO if the evidence is missing, unclear or contradictory, and it is."
    assert instruction_echo(nei, madke.fixed) is not None
    two = render("madke_answer", agent_desc="debater #1", claim=CLAIM, others=[], documents=documents,
                 two_labels=True)
    assert instruction_echo(nei, two.fixed) is None
