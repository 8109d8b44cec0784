"""``policy: hold``: a sentence goes out only once its claims are decided at the first tier, so a refuted one is
never shown (it is replaced by a notice, the footnotes say what it stated); the library's stream helper
(``guard_stream``) and the plain check give the same text."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

from factdebate.guard import GuardOptions, GuardResult, guard_stream
from factdebate.guard.policy import WITHHELD
from factdebate.run.build import build_resources
from tests.guard.support import PARIS_DOC, REPLY, SlowBackend, run_check, script
from tests.helpers import BagOfWordsEncoder, StaticTool, resources_for

FAST = {"tier": "fast", "max_tier": "fast"}
ROME = "The Eiffel Tower is in Rome."
PARIS = "Paris is the capital of France."


def _sentence_claims(call: Any, messages: Any, params: Any) -> str:
    """The extractor returns each sentence of the part it is given that states a fact as a claim."""
    if call.prompt.startswith("claims_extract"):
        text = messages[0]["content"].split("Text:\n", 1)[1].split("\n\nReply with", 1)[0]
        return json.dumps({"claims": [s for s in re.split(r"(?<=\.) ", text.strip()) if s and " is " in s]})
    return script()(call, messages, params)


async def _words(text: str, delay: float = 0.0) -> AsyncIterator[str]:
    words = text.split(" ")
    for n, word in enumerate(words):
        await asyncio.sleep(delay)
        yield word + (" " if n < len(words) - 1 else "")


async def _run(text: str, slow: dict[str, float], **options: Any) -> tuple[list[tuple[str, Any]], GuardResult]:
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, _, _ = resources_for(_sentence_claims, method="single", tools=tools, guard=FAST)
    backend = SlowBackend(_sentence_claims, slow)
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
    from factdebate.guard import GuardClaim, Span
    from factdebate.guard.policy import withhold

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
