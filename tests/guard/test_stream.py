"""Checking while the answer arrives: sentences are checked as they complete, verdicts come as ready."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from factdebate.guard_engine import GuardClaim, GuardOptions, StreamingCheck, check_text
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import PARIS_DOC, REPLY, script, window_answer
from tests.helpers import StaticTool, resources_for

FAST = {"tier": "fast", "max_tier": "fast"}


def _extracted(prompt: str) -> str:
    text = prompt.split("Text:\n", 1)[1].split("\n\nReply with", 1)[0]
    return json.dumps({"claims": [s for s in re.split(r"(?<=\.) ", text.strip()) if s]})


def _sentence_claims(call: Any, messages: Any, params: Any) -> str:
    """The extractor returns each check-worthy sentence it is given as a claim (and the window's call those
    claims with the fast tier's verdicts)."""
    if call.prompt.startswith("claims_extract"):
        return _extracted(messages[0]["content"])
    if call.prompt.startswith("guard_window"):
        verdict = script()
        return window_answer(messages[0]["content"], _extracted,
                             lambda text: verdict(CallInfo(prompt="guard_fast"), [{"role": "user", "content": text}],
                                                  params), lambda claim, quote: "The Eiffel Tower is in Paris.")
    return script()(call, messages, params)


async def test_claims_are_checked_while_the_answer_streams_and_come_back_in_order() -> None:
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, backend, _ = resources_for(_sentence_claims, method="single", tools=tools, guard=FAST)
    assert isinstance(backend, ScriptedBackend)
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions())
        got: list[GuardClaim] = []

        async def collect() -> None:
            async for claim in check.verdicts():
                got.append(claim)

        reader = asyncio.create_task(collect())
        words = REPLY.split(" ")
        for n, word in enumerate(words):
            check.feed(word + (" " if n < len(words) - 1 else ""))
            await asyncio.sleep(0)
            if word == "Rome.":
                # The facts are being checked before the rest of the answer has arrived (the rest is fed once
                # their check has been asked for, however long that takes on a loaded machine); a window holds
                # two check-worthy sentences while the answer streams (guard.window_sentences).
                for _ in range(6000):  # 60 s at most
                    if any(info.prompt == "guard_window" for info, _ in backend.calls):
                        break
                    await asyncio.sleep(0.01)
                assert any(info.prompt == "guard_window" for info, _ in backend.calls), "not checked while streaming"
        result = await check.finish()
        await reader
    assert [c.claim for c in result.claims] == ["Paris is the capital of France.", "The Eiffel Tower is in Rome."]
    assert [c.index for c in result.claims] == [0, 1]
    for claim in result.claims:
        assert claim.span is not None and REPLY[claim.span.start:claim.span.end] == claim.claim
    assert sorted(c.index for c in got) == [0, 1], got
    assert all(c.status == "checked" for c in got), got
    assert {s.reason for s in result.skipped} == {"greeting", "opinion", "instruction", "question"}
    assert result.original_text == REPLY


async def test_a_streamed_claim_not_decided_within_the_deadline_after_the_answer_is_unchecked() -> None:
    from factdebate.run.build import build_resources
    from tests.guard.support import SlowBackend
    from tests.helpers import BagOfWordsEncoder

    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    # one claim's own fast call (the window call off, or the window's item about it unusable) runs too long
    resources, _, _ = resources_for(_sentence_claims, method="single", tools=tools,
                                    guard={**FAST, "window_call": False})
    backend = SlowBackend(_sentence_claims, {"Statement: The Eiffel Tower is in Rome.": 30.0})
    resources = build_resources(resources.settings, backends={"debater": backend},
                                tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions(deadline_s=0.5))
        check.feed(REPLY)
        result = await check.finish()
        got = [claim async for claim in check.verdicts()]
    assert [(c.claim, c.status) for c in result.claims] == [("Paris is the capital of France.", "checked"),
                                                            ("The Eiffel Tower is in Rome.", "unchecked")]
    assert result.claims[1].label is None and result.label is None
    assert sorted((c.index, c.status) for c in got) == [(0, "checked"), (1, "unchecked")]


async def test_a_part_the_deadline_cut_before_its_extraction_is_unchecked_and_the_decided_part_kept() -> None:
    """The first two sentences (a window) are decided while the answer streams; the window asking about the
    third is still out when the deadline ends: that sentence is unchecked, the deadline its reason, and the first
    keep their verdicts (the reply is not degraded as a whole)."""
    from factdebate.run.build import build_resources
    from tests.guard.support import SlowBackend
    from tests.helpers import BagOfWordsEncoder

    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, _, _ = resources_for(_sentence_claims, method="single", tools=tools, guard=FAST)
    backend = SlowBackend(_sentence_claims, {"The Eiffel Tower is in Rome.": 30.0})  # the second window's call
    resources = build_resources(resources.settings, backends={"debater": backend},
                                tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions(deadline_s=0.5))
        verdicts = check.verdicts()
        check.feed("Paris is the capital of France. The Louvre is in Paris. ")
        first = await asyncio.wait_for(anext(verdicts), 60)  # decided before the rest arrives
        check.feed("The Eiffel Tower is in Rome.")
        result = await check.finish()
        await verdicts.aclose()
    assert first.status == "checked" and first.label is not None
    assert not result.degraded and result.deadline_missed
    paris, louvre, rome = result.claims
    assert louvre.status == "checked"
    assert (paris.claim, paris.status, paris.label) == ("Paris is the capital of France.", "checked", first.label)
    assert (rome.claim, rome.status, rome.label) == ("The Eiffel Tower is in Rome.", "unchecked", None)
    assert "deadline (0.5 s) ended before this sentence's claims were extracted" in (rome.reason or "")
    assert rome.span is not None and result.original_text[rome.span.start:] == "The Eiffel Tower is in Rome."


async def test_an_answer_that_grows_past_the_limit_is_checked_as_a_whole_check_is_and_the_rest_unchecked() -> None:
    """The stream cuts where check_text() cuts (the last sentence ending within
    guard.max_message_chars) and says the rest unchecked, so both doors give the same verdicts."""
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, _, _ = resources_for(_sentence_claims, method="single", tools=tools,
                                    guard={**FAST, "max_message_chars": 100})
    answer = "Paris is the capital of France. " + "x" * 200 + ". More text."
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions())
        check.feed("Paris is the capital of France. ")
        check.feed("x" * 200 + ". More text.")
        result = await check.finish()
        assert await check.finish() is result
        whole = await check_text(answer, resources.settings, resources, options=GuardOptions())
    for found in (result, whole):
        assert found.claims[0].claim == "Paris is the capital of France."
        assert [c.status for c in found.claims] == ["checked", "unchecked"] and not found.degraded
        rest = found.claims[1]
        assert rest.span is not None and answer[rest.span.start:rest.span.end] == "x" * 200 + ". More text."
        assert "guard.max_message_chars" in (rest.reason or "")
        assert found.original_text == answer
    assert [(c.span, c.status, c.label) for c in result.claims] == [(c.span, c.status, c.label) for c in whole.claims]


async def test_a_stream_keeps_at_most_twice_the_limit_of_an_answer_however_long() -> None:
    """Past kept_chars (twice guard.max_message_chars) the answer is counted, not kept: annotate and flag pass
    it on as it comes, the policies that show the answer after its check end it there with a notice, and
    passed_through says how much either way (the relay kept an upstream's whole answer before)."""
    from factdebate.guard_engine import guard_stream
    from factdebate.guard_engine.stream_policy import kept_chars

    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, _, _ = resources_for(_sentence_claims, method="single", tools=tools,
                                    guard={**FAST, "max_message_chars": 100})
    deltas = ["Paris is the capital of France. "] + ["More words follow here. "] * 400  # 9,632 characters

    async def stream() -> Any:
        for delta in deltas:
            yield delta

    async with resources:
        keep = kept_chars(resources.settings)
        assert keep == 200
        outs = {policy: [out async for out in guard_stream(stream(), resources.settings, resources,
                                                           options=GuardOptions(policy=policy))]
                for policy in ("flag", "block")}
    answer = "".join(deltas)
    for policy, got in outs.items():
        result = got[-1].result
        assert result is not None
        shown = "".join(out.text for out in got if out.kind == "text")
        assert result.original_text == answer[:keep], policy  # all that was kept of it
        assert result.claims[0].claim == "Paris is the capital of France." and result.claims[0].status == "checked"
        rest = result.claims[-1]
        assert rest.status == "unchecked" and rest.span is not None and rest.span.end <= keep
        assert any(f"went on for {len(answer) - keep} characters past the first {keep}" in p
                   for p in result.passed_through), result.passed_through
        if policy == "flag":  # every delta was shown as it came, then the footnotes
            assert shown.startswith(answer) and "Fact check" in shown[len(answer):]
        else:  # held back: what was kept, then the notice; nothing past it
            assert shown == result.text and shown.startswith(answer[:keep].rstrip())
            assert "More words" not in shown[keep:] and "The answer was cut here" in shown


async def test_cancel_stops_every_check_in_progress() -> None:
    from factdebate.run.build import build_resources
    from tests.guard.support import SlowBackend
    from tests.helpers import BagOfWordsEncoder

    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, _, _ = resources_for(_sentence_claims, method="single", tools=tools, guard=FAST)
    backend = SlowBackend(_sentence_claims, {"Statement:": 30.0, "in one pass": 30.0})  # either way, no answer
    resources = build_resources(resources.settings, backends={"debater": backend},
                                tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions())
        check.feed("Paris is the capital of France. The Eiffel Tower is in Rome. ")
        await asyncio.sleep(0.1)
        check.cancel()
        await asyncio.sleep(0)
        assert [claim async for claim in check.verdicts()] == []
        tasks = [*check._extractions, *check._tasks]
        await asyncio.gather(*tasks, return_exceptions=True)
        assert tasks and all(task.cancelled() or task.done() for task in tasks)


def _reversed_claims(call: Any, messages: Any, params: Any) -> str:
    """An extractor that lists the sentences it is given last first (a model's own order of importance)."""
    if call.prompt.startswith(("claims_extract", "guard_window")):
        found = json.loads(_sentence_claims(call, messages, params))["claims"]
        return json.dumps({"claims": found[::-1]})
    return script()(call, messages, params)


async def test_the_claim_cap_takes_the_first_sentences_on_both_doors() -> None:
    """A whole reply kept the extractor's first claims (here its last sentences) and a stream
    its first sentences'; now both check the first response.max_claims check-worthy sentences, the rest
    unchecked beyond the cap, whatever order the extractor lists them in."""
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, _, _ = resources_for(_reversed_claims, method="single", tools=tools, guard=FAST,
                                    response={"max_claims": 2})
    sentences = ["Paris is the capital of France.", "The Eiffel Tower is in Paris.", "Rome is in Italy.",
                 "Berlin is in Germany."]
    answer = " ".join(sentences)
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions())
        for sentence in sentences:
            check.feed(sentence + " ")
            await asyncio.sleep(0)
        streamed = await check.finish()
        whole = await check_text(answer, resources.settings, resources, options=GuardOptions())
    for found in (streamed, whole):
        by_sentence = {answer[c.span.start:c.span.end]: c for c in found.claims if c.span is not None}
        assert {s for s, c in by_sentence.items() if c.status == "checked"} == set(sentences[:2]), found.claims
        for late in sentences[2:]:
            assert by_sentence[late].status == "unchecked" and "claim cap" in (by_sentence[late].reason or "")
    assert sorted((c.span.start, c.status, c.label) for c in streamed.claims if c.span) == \
        sorted((c.span.start, c.status, c.label) for c in whole.claims if c.span)
