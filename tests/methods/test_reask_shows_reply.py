"""A re-ask shows the reply it replaces as what not to write, and says why it could not be used: re-asked with
the problem alone, a small model (SmolLM2 behind llama-cpp-python's server) wrote its first reply again in five
of six re-asks. A re-ask that still repeats it is recorded as a repeat and the answer as lost, never filled in.

The scripted debater writes what SmolLM2 wrote as a MADKE debater: a sentence about the documents and no
verdict."""

from __future__ import annotations

from typing import Any

from factdebate.core.types import Label
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for

NO_VERDICT = "The document is a fact-checking debate, and the answer is supported by the document"
MADKE = {"madke": {"rounds": 1}}


def debater_one_without_a_verdict(heeds_the_quote: bool) -> Any:
    """Debater 1 answers without a verdict; re-asked, it repeats that answer, or (``heeds_the_quote``) gives
    a verdict once the re-ask quotes the answer it must not write again. Everyone else answers well."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.agent == "debater-1" and call.prompt == "madke_answer":
            return NO_VERDICT
        if call.agent == "debater-1" and call.prompt == "label_reask":
            shown = f'"{NO_VERDICT}"' in messages[-1]["content"]
            return "SUPPORTS" if heeds_the_quote and shown else NO_VERDICT
        return truthful(call, messages, params)

    return respond


async def _run(heeds_the_quote: bool) -> tuple[Any, list[Any], list[dict[str, Any]]]:
    resources, backend, _ = resources_for(debater_one_without_a_verdict(heeds_the_quote), method="madke",
                                          methods=MADKE)
    events: list[dict[str, Any]] = []
    verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    return verdict, backend.calls, events


async def test_the_reask_quotes_the_unusable_reply_and_says_why() -> None:
    _, calls, _ = await _run(heeds_the_quote=True)
    [(_, messages)] = [(c, m) for c, m in calls if c.prompt == "label_reask"]
    asked_again = messages[-1]["content"]
    assert f'Your answer "{NO_VERDICT}" did not end with a verdict' in asked_again
    assert "Do not repeat it" in asked_again and messages[1] == {"role": "assistant", "content": NO_VERDICT}


async def test_a_model_shown_its_reply_answers_otherwise_and_the_answer_is_recovered() -> None:
    verdict, _, events = await _run(heeds_the_quote=True)
    [problem] = [e for e in events if e["event"] in ("parse_failure", "parse_recovered")]
    assert problem["event"] == "parse_recovered" and problem["reply"] == NO_VERDICT
    assert verdict.label == Label.SUPPORTS and verdict.decided_by == "consensus" and verdict.unparsed_turns == 0
    counts = verdict.parse_counts["label"]
    assert (counts.reasked, counts.recovered, counts.lost) == (1, 1, 0)


async def test_a_reask_that_repeats_the_reply_is_recorded_as_a_repeat_and_the_answer_is_lost() -> None:
    verdict, _, events = await _run(heeds_the_quote=False)
    [problem] = [e for e in events if e["event"] in ("parse_failure", "parse_recovered")]
    assert problem["event"] == "parse_failure" and problem["reask_reply"] == NO_VERDICT
    assert problem["reask_problem"].startswith("it repeated the reply it was asked to replace")
    counts = verdict.parse_counts["label"]
    assert (counts.reasked, counts.recovered, counts.lost) == (1, 0, 1)
    # No label is made up for debater 1: there is no consensus, the judge decides, and the turn is unparsed.
    [one, two] = verdict.rounds[0].turns
    assert one.label is None and two.label == Label.SUPPORTS
    assert verdict.decided_by == "judge" and verdict.unparsed_turns == 1 and verdict.label == Label.SUPPORTS


async def test_a_reask_that_copies_the_quote_it_was_shown_is_recorded_as_a_repeat() -> None:
    # SmolLM2 copied the re-ask's quote of its reply, "…" and all, as its answer: that is the reply again.
    long = ("The documents describe Paris and France, and the debate is about the capital of the country, which "
            "the documents name in their first lines, so the answer follows from them without doubt")

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.agent == "debater-1" and call.prompt == "madke_answer":
            return long
        if call.agent == "debater-1" and call.prompt == "label_reask":
            return messages[-1]["content"].split('"')[1]  # the quote, as shown
        return truthful(call, messages, params)

    resources, _, _ = resources_for(respond, method="madke", methods=MADKE)
    events: list[dict[str, Any]] = []
    verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    [problem] = [e for e in events if e["event"] in ("parse_failure", "parse_recovered")]
    assert " … " in problem["reask_reply"] and problem["reask_problem"].startswith("it repeated the reply")
    assert verdict.rounds[0].turns[0].label is None and verdict.decided_by == "judge"
