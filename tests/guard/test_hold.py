"""``policy: hold``: a sentence goes out only once its claims are decided at the first tier, so a refuted one is
never shown (it is replaced by a notice, the footnotes say what it stated); the library's stream helper
(``guard_stream``) and the plain check give the same text."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from factdebate.guard_engine import GuardOptions, GuardResult, guard_stream
from factdebate.guard_engine.head_start import stands_alone
from factdebate.guard_engine.policy import WITHHELD
from factdebate.llm.calls import CallInfo, current_call
from factdebate.run.build import build_resources
from tests.guard.support import PARIS_DOC, REPLY, SlowBackend, run_check, script, window_answer
from tests.helpers import BagOfWordsEncoder, StaticTool, resources_for

FAST = {"tier": "fast", "max_tier": "fast"}
ROME = "The Eiffel Tower is in Rome."
PARIS = "Paris is the capital of France."


def _extracted(prompt: str) -> str:
    text = prompt.split("Text:\n", 1)[1].split("\n\nReply with", 1)[0]
    return json.dumps({"claims": [s for s in re.split(r"(?<=\.) ", text.strip()) if s and " is " in s]})


def _sentence_claims(call: Any, messages: Any, params: Any) -> str:
    """The extractor returns each sentence of the part it is given that states a fact as a claim (and the
    window's call those claims with the fast tier's verdicts)."""
    if call.prompt.startswith("claims_extract"):
        return _extracted(messages[0]["content"])
    if call.prompt.startswith("guard_window"):
        verdict = script()
        return window_answer(messages[0]["content"], _extracted,
                             lambda text: verdict(CallInfo(prompt="guard_fast"), [{"role": "user", "content": text}],
                                                  params), lambda claim, quote: "The Eiffel Tower is in Paris.")
    return script()(call, messages, params)


async def _words(text: str, delay: float = 0.0) -> AsyncIterator[str]:
    words = text.split(" ")
    for n, word in enumerate(words):
        await asyncio.sleep(delay)
        yield word + (" " if n < len(words) - 1 else "")


class _Timeline(SlowBackend):
    """A SlowBackend that writes down when each call starts and ends: ("start" or "end", prompt, statement)."""

    def __init__(self, responder: Any, slow: dict[str, float]) -> None:
        super().__init__(responder, slow)
        self.timeline: list[tuple[str, str, str]] = []

    async def complete(self, messages: Any, params: Any) -> Any:
        text = messages[0]["content"]
        prompt = "extract" if "atomic factual claims" in text else "stance" if "guard_stance" in str(
            current_call().prompt) else "fast" if "Statement: " in text else "other"
        said = re.search(r"^Statement: (.*)$", text, re.M)
        entry = (prompt, said.group(1) if said else "")
        self.timeline.append(("start", *entry))
        reply = await super().complete(messages, params)
        self.timeline.append(("end", *entry))
        return reply


async def _run(text: str, slow: dict[str, float], responder: Any = _sentence_claims,
               timeline: list[tuple[str, str, str]] | None = None, guard: dict[str, Any] | None = None,
               **options: Any) -> tuple[list[tuple[str, Any]], GuardResult]:
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, _, _ = resources_for(responder, method="single", tools=tools, guard={**FAST, **(guard or {})})
    backend = _Timeline(responder, slow)
    if timeline is not None:
        backend.timeline = timeline
    resources = build_resources(resources.settings, backends={"debater": backend},
                                tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)
    got: list[tuple[str, Any]] = []
    async with resources:
        async for out in guard_stream(_words(text, 0.005), resources.settings, resources,
                                      options=GuardOptions(policy="hold", **options)):
            got.append((out.kind, out.text if out.kind == "text" else out.result if out.kind == "result"
                        else out.claim))
    assert got[-1][0] == "result"
    return got, got[-1][1]


def _answer(got: list[tuple[str, Any]]) -> str:
    """What was shown of the answer itself (the footnotes after it name the refuted claims, as they must)."""
    return "".join(t for kind, t in got if kind == "text").split("\n\n---\nFact check:")[0]


async def test_a_refuted_sentence_is_never_streamed_and_the_rest_is_released_before_the_end() -> None:
    # The Rome claim takes 0.3 s at the fast tier: the answer has ended long before its verdict.
    got, result = await _run(REPLY, {f"Statement: {ROME}": 0.3})
    shown = _answer(got)
    assert ROME not in shown
    assert WITHHELD in shown
    assert PARIS in shown and "I think Paris is lovely in spring." in shown
    # The sentence before Rome's went out before Rome's verdict came: the rest flows while one is checked.
    paris_at = next(i for i, (kind, t) in enumerate(got) if kind == "text" and PARIS in t)
    rome_at = next(i for i, (kind, c) in enumerate(got) if kind == "claim" and c.claim == ROME)
    assert paris_at < rome_at
    assert result.action_taken == "held"
    assert result.text.startswith(shown) and ROME in result.text[len(shown):]  # the footnote names it
    assert result.text == "".join(t for kind, t in got if kind == "text")  # the result's text is what was shown
    assert {c.claim: c.label.value if c.label else None for c in result.claims} == {PARIS: "SUPPORTS",
                                                                                     ROME: "REFUTES"}


async def test_a_sentence_waits_for_its_verdict_and_flows_on_after_it() -> None:
    # Paris's verdict is slow: nothing after it is shown before it; once it is in, the rest follows.
    got, result = await _run(REPLY, {f"Statement: {PARIS}": 0.4})
    shown = _answer(got)
    assert PARIS in shown and ROME not in shown
    paris_at = next(i for i, (kind, t) in enumerate(got) if kind == "text" and PARIS in t)
    verdict_at = next(i for i, (kind, c) in enumerate(got) if kind == "claim" and c.claim == PARIS)
    assert verdict_at < paris_at  # released after its verdict, never before
    assert result.action_taken == "held"


async def test_the_plain_check_under_hold_gives_the_text_the_stream_gives() -> None:
    plain, _ = await run_check(script(), REPLY, policy="hold", tier="fast")
    assert plain.action_taken == "held"
    assert ROME not in plain.text.split("---")[0] and WITHHELD in plain.text
    assert plain.text.startswith(REPLY.replace(ROME, WITHHELD))
    _, streamed = await _run(REPLY, {})
    assert streamed.text == plain.text


async def test_a_reply_with_nothing_refuted_under_hold_goes_out_whole() -> None:
    got, result = await _run("Paris is the capital of France. It is lovely.", {})
    assert "".join(t for kind, t in got if kind == "text") == "Paris is the capital of France. It is lovely."
    assert result.action_taken in ("none", "annotated") and result.text == result.original_text


def test_withhold_replaces_the_sentence_a_refuted_claim_is_placed_in_and_all_when_it_is_placed_nowhere() -> None:
    from factdebate.guard_engine import GuardClaim, Span
    from factdebate.guard_engine.policy import withhold

    text = f"{PARIS} {ROME} It opened in 1889. "
    pieces = [(0, 31), (32, 60), (61, 80)]
    placed = GuardClaim(index=1, claim=ROME, span=Span(start=32, end=60))
    assert withhold(text, [placed], pieces) == (f"{PARIS} {WITHHELD} It opened in 1889. ", 1)
    # A part of a longer answer: its offsets are the answer's.
    part = f"{ROME} It opened in 1889. "
    assert withhold(part, [placed], pieces[1:], start=32) == (f"{WITHHELD} It opened in 1889. ", 1)
    unplaced = GuardClaim(index=1, claim="The tower is in Rome.", span=None)
    assert withhold(text, [unplaced], pieces) == (WITHHELD + " ", 1)
    assert withhold(text, [], pieces) == (text, 0)


@pytest.mark.parametrize(("sentence", "alone"), [
    ("Paris is the capital of France.", True),
    ("The Eiffel Tower opened in 1889.", True),
    ("Portugal borders Spain.", True),
    # a pronoun or a pointing word needs what it points at (the question, an earlier sentence)
    ("It is in Berlin.", False),
    ("The Louvre is its largest museum.", False),
    ("There are 20 arrondissements in Paris.", False),
    ("Paris is also a port.", False),
    # a vague subject the extractor names from the question
    ("The tower opened in 1889.", False),
    ("Construction began in 1887.", False),
    # lists and compound sentences: the extractor splits them
    ("Paris has the Louvre, the Orsay and the Pompidou.", False),
    ("Paris and Lyon are cities in France.", False),
    ("Paris is the capital of France but Lyon is larger.", False),
    ("The Louvre opened in 1793; the Orsay opened in 1986.", False),
    ("The Louvre (opened in 1793) is in Paris.", False),
    # framing, questions, quotations, exclamations
    ("I think the Eiffel Tower is in Berlin.", False),
    ("Honestly, the Eiffel Tower is in Berlin.", False),
    ("Is the Eiffel Tower in Berlin? Yes.", False),
    ('Gustave Eiffel said "the tower will last".', False),
    ("Paris is huge!", False),
])
def test_a_sentence_stands_alone_only_as_one_self_contained_claim(sentence: str, alone: bool) -> None:
    assert stands_alone(sentence) is alone


# The head start is the fast tier's way to save a call where the extraction and the verdicts are asked apart
# (guard.window_call off); with the window call on, the one call is both (tests/guard/test_window_call.py).
APART = {"window_call": False}


async def test_a_sentence_that_stands_alone_is_checked_beside_its_extraction_and_once() -> None:
    # Extraction takes 0.3 s: the fast check of the sentence as written begins before it ends, and its verdict
    # is the claim's (the extractor returned the sentence word for word): no second fast call.
    timeline: list[tuple[str, str, str]] = []
    got, result = await _run(f"{PARIS} {ROME}", {"atomic factual claims": 0.3}, timeline=timeline, guard=APART)
    first_extracted = timeline.index(("end", "extract", ""))
    for sentence in (PARIS, ROME):
        assert timeline.index(("start", "fast", sentence)) < first_extracted
        assert timeline.count(("start", "fast", sentence)) == 1
    assert ROME not in _answer(got) and PARIS in _answer(got)
    assert {c.claim: c.label.value if c.label else None for c in result.claims} == {PARIS: "SUPPORTS",
                                                                                     ROME: "REFUTES"}


async def test_a_sentence_the_extractor_rewrites_is_checked_as_the_extractor_wrote_it() -> None:
    # The verdict begun on the sentence is not used for a claim worded otherwise: the claim is checked anew.
    rewritten = "The capital of France is Paris."  # its names are the text's: the grounding filter keeps it

    def respond(call: Any, messages: Any, params: Any) -> str:
        if call.prompt.startswith("claims_extract"):
            return json.dumps({"claims": [rewritten]})
        return script()(call, messages, params)

    timeline: list[tuple[str, str, str]] = []
    got, result = await _run(PARIS, {"atomic factual claims": 0.2}, responder=respond, timeline=timeline,
                             guard=APART)
    assert ("start", "fast", PARIS) in timeline  # the head start was spent...
    last_extracted = max(n for n, (when, prompt, _) in enumerate(timeline) if when == "end" and prompt == "extract")
    assert timeline.index(("start", "fast", rewritten)) > last_extracted  # ...and the claim asked about after
    assert [c.claim for c in result.claims] == [rewritten]
    assert result.claims[0].status == "checked"
    assert _answer(got) == PARIS


async def test_no_head_start_where_the_first_tier_is_not_fast() -> None:
    # A head start asks the fast tier; a check that starts higher would not use its answer, so none is begun.
    from factdebate.guard_engine.check import Check

    resources, _, _ = resources_for(_sentence_claims, method="single", guard={"max_tier": "standard", **APART})
    standard = Check(resources.settings, resources, GuardOptions(policy="hold", tier="standard"), question=None,
                     sinks=None, reviser=None, caller=None)
    assert standard.begin(PARIS) is None
    fast = Check(resources.settings, resources, GuardOptions(policy="hold", tier="fast"), question=None, sinks=None,
                 reviser=None, caller=None)
    head = fast.begin(PARIS)
    assert head is not None
    head.cancel()
    await asyncio.gather(head, return_exceptions=True)


def _sentences(text: str, *reasons: str | None) -> list[Any]:
    """``text``'s lines as the gate's sentences, with ``reasons`` (None: check-worthy)."""
    from factdebate.guard_engine.gate import Sentence

    out, at = [], 0
    for line, reason in zip(text.split("\n"), reasons, strict=True):
        out.append(Sentence(at, at + len(line), line, reason))
        at += len(line) + 1
    return out


async def _drain(held: Any, into: list[str]) -> None:
    async for text in held.released():
        into.append(text)


async def test_a_heading_waits_for_every_list_item_read_under_it_and_only_it_is_withheld() -> None:
    from factdebate.core.types import Label
    from factdebate.guard_engine import GuardClaim, Span
    from factdebate.guard_engine.hold import HeldText
    from factdebate.guard_engine.tiers import Progress

    reply = "Apollo 11 landed in 1972:\n- It carried three astronauts.\n- Its crew came home.\nThat is all."
    pieces = _sentences(reply, "heading", None, None, None)
    held, shown = HeldText(), []
    drain = asyncio.create_task(_drain(held, shown))
    parts = [held.add(s.start, s.text + "\n", [s], waiting=s.reason is None) for s in pieces[:3]]
    first = Progress(GuardClaim(index=0, claim="Apollo 11 carried three astronauts.", span=pieces[1].span))
    # drawn from the last item, placed in the heading it was read under
    wrong = Progress(GuardClaim(index=1, claim="Apollo 11 landed in 1972.", span=Span(start=0, end=24)))
    HeldText.settle(parts[1], [first])
    first.claim.label = Label.SUPPORTS
    first.first.set()
    await asyncio.sleep(0.01)
    assert shown == []  # the heading waits: the list under it goes on, and its claims may be placed in it
    HeldText.settle(parts[2], [wrong])
    await asyncio.sleep(0.01)
    assert shown == []  # the last item's claim is not decided yet
    wrong.claim.label = Label.REFUTES
    wrong.first.set()
    await asyncio.sleep(0.01)
    assert shown == []  # the list may still go on
    last = held.add(pieces[3].start, pieces[3].text, [pieces[3]], waiting=False)
    await asyncio.sleep(0.01)
    assert "".join(shown) == reply.replace(pieces[0].text, WITHHELD)
    assert held.withheld == 1 and last.known.is_set()
    await held.close([first.claim, wrong.claim], "")
    await drain


async def test_a_refuted_claim_placed_nowhere_withholds_its_part_and_the_heading_it_was_read_under() -> None:
    from factdebate.core.types import Label
    from factdebate.guard_engine import GuardClaim
    from factdebate.guard_engine.hold import HeldText
    from factdebate.guard_engine.tiers import Progress

    reply = "# Apollo 11\nThe mission landed in 1972.\nIt was July."
    pieces = _sentences(reply, "heading", None, None)
    held, shown = HeldText(), []
    drain = asyncio.create_task(_drain(held, shown))
    heading = held.add(0, pieces[0].text + "\n", [pieces[0]], waiting=False)
    line = held.add(pieces[1].start, pieces[1].text + "\n", [pieces[1]], waiting=True)
    held.add(pieces[2].start, pieces[2].text, [pieces[2]], waiting=False)
    wrong = Progress(GuardClaim(index=0, claim="Apollo 11 landed on the Moon in 1972.", span=None))
    wrong.claim.label = Label.REFUTES
    wrong.first.set()
    HeldText.settle(line, [wrong])
    await asyncio.sleep(0.01)
    assert "".join(shown) == f"{WITHHELD}\n{WITHHELD}\nIt was July."
    assert heading.known.is_set()
    await held.close([wrong.claim], "")
    await drain
