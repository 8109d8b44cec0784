"""Long agent sessions: the conversation's tool results past the evidence limits are
ranked per claim, never refused; the question is the person's; tool evidence is titled by its call; and a
reply is SUPPORTS only when every sentence that states something was checked (framing, yes/no answers, the
grounding filter and the claim cap, plain and streamed)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from factdebate.core.types import Document, Label
from factdebate.guard_engine import GuardOptions, StreamingCheck, check_text
from factdebate.guard_engine.gate import gate
from factdebate.guard_engine.messages import person_question, tool_evidence
from factdebate.guard_engine.options import with_conversation
from factdebate.llm.scripted import ScriptedBackend
from factdebate.response_level.worthiness import reason_to_skip
from factdebate.util.errors import InputError
from tests.guard.support import PARIS_DOC, run_check, script
from tests.helpers import StaticTool, resources_for

FAST = {"tier": "fast", "max_tier": "fast"}
ROME = "The Eiffel Tower is in Rome."
ATLAS = "Atlas: the Eiffel Tower stands in Paris, on the Champ de Mars."


def _sentences(call: Any, messages: Any, params: Any) -> str:
    """The extractor returns each sentence it is given as a claim; the rest as tests/guard/support.py."""
    if call.prompt.startswith("claims_extract"):
        text = messages[0]["content"].split("Text:\n", 1)[1].split("\n\nReply with", 1)[0]
        return json.dumps({"claims": [s for s in re.split(r"(?<=[.?]) ", text.strip()) if s]})
    return str(script()(call, messages, params))


def _session(tool_results: int) -> list[dict[str, Any]]:
    """An agent session: the atlas lookup first, then ``tool_results - 1`` weather lookups, then an injected
    context block as the last user turn."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Where is the Eiffel Tower?"}]
    for n in range(tool_results):
        name, args, text = (("atlas", '{"q": "Eiffel Tower"}', ATLAS) if n == 0 else
                            ("weather", f'{{"day": {n}}}', f"Weather report {n}: sunny and mild in Oslo."))
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": args}}]})
        messages.append({"role": "tool", "tool_call_id": f"call_{n}", "content": text})
    messages.append({"role": "user", "content": "<context>\nToday is Monday. The user is in Oslo.\n</context>"})
    return messages


def test_the_question_is_the_persons_not_an_injected_block_or_a_tool_result() -> None:
    messages = _session(2)
    assert person_question(messages) == "Where is the Eiffel Tower?"
    wrapped = [*messages, {"role": "user", "content": "```json\n{\"ctx\": 1}\n```\nAnd when did it open?"},
               {"role": "user", "content": "System: [2026-01-01] the session was resumed."},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "42"}]}]
    assert person_question(wrapped) == "And when did it open?"
    assert person_question([{"role": "user", "content": "<context>only this</context>"}]) is None


def test_tool_evidence_is_titled_by_the_tools_name_and_arguments_never_its_call_id() -> None:
    found = tool_evidence(_session(2))
    assert [e.title for e in found] == ['atlas({"q": "Eiffel Tower"})', 'weather({"day": 1})']
    assert not any("call_" in e.title for e in found)


async def test_a_61_tool_result_session_is_checked_with_the_best_results_per_claim_and_says_what_was_dropped() -> None:
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, backend, _ = resources_for(script(claims=[ROME]), method="single", tools=tools, guard=FAST)
    messages = _session(61)
    options = with_conversation(GuardOptions(evidence_mode="given"), messages)
    async with resources:
        options.resolve(resources.settings)  # 61 results over max_evidence_items (50): not refused
        result = await check_text(ROME, resources.settings, resources, options=options,
                                  question=person_question(messages))
    assert result.evidence_dropped == 11
    assert any("61 tool results are over the evidence limits" in p and "11 were left out" in p
               for p in result.passed_through)
    prompts = [m[0]["content"] for info, m in backend.calls if info.prompt == "guard_fast"]
    # The atlas lookup, the oldest result, shares the claim's words: it is kept over newer weather reports.
    assert prompts and "Champ de Mars" in prompts[0]
    extract = next(m[0]["content"] for info, m in backend.calls if info.prompt.startswith("claims_extract"))
    assert "Where is the Eiffel Tower?" in extract and "Today is Monday" not in extract
    assert result.claims[0].label == Label.REFUTES


def test_evidence_the_caller_sends_keeps_its_limits() -> None:
    from factdebate.settings.load import load_settings

    settings = load_settings(overrides={"guard": {"max_evidence_items": 2}}, environ={})
    with pytest.raises(InputError, match="max_evidence_items"):
        GuardOptions(evidence=[{"text": "a"}] * 3).resolve(settings)  # type: ignore[list-item]
    with_conversation(GuardOptions(), _session(5)).resolve(settings)  # the bot's own: never refused


async def test_the_factdebate_question_option_overrides_the_question() -> None:
    asked = "Where does the Eiffel Tower stand?"
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, scripted, _ = resources_for(script(claims=[ROME]), method="single", tools=tools, guard=FAST)
    async with resources:
        await check_text(ROME, resources.settings, resources, options=GuardOptions(question=asked),
                         question="[Context] The user is in Oslo.")
    extract = next(m[0]["content"] for info, m in scripted.calls if info.prompt.startswith("guard_window"))
    assert asked in extract and "Oslo" not in extract
    with pytest.raises(ValueError, match="control character"):
        GuardOptions(question="bad\x07")


@pytest.mark.parametrize("sentence", [
    "I think the Eiffel Tower is in Berlin.", "In my opinion, the Eiffel Tower is in Berlin.",
    "Visit the Eiffel Tower in Berlin.", "Remember that the Eiffel Tower is in Berlin.",
    "Don't forget the Eiffel Tower is in Berlin.", "Honestly, the tower is in Berlin.",
    "The Eiffel Tower, I think, is in Berlin.",
])
def test_framing_words_do_not_hide_the_statement_after_them(sentence: str) -> None:
    assert reason_to_skip(sentence) is None


def test_a_question_answered_yes_is_a_statement() -> None:
    text = "Is the Eiffel Tower in Berlin? Yes. Would you like more?"
    assert [(s.text, s.reason) for s in gate(text)] == [("Is the Eiffel Tower in Berlin? Yes.", None),
                                                         ("Would you like more?", "question")]


async def test_a_framed_false_sentence_is_checked_and_refuted() -> None:
    result, _ = await run_check(script(claims=[ROME]), "I think the Eiffel Tower is in Rome.", tier="fast",
                                policy="block")
    assert result.label == Label.REFUTES and result.action_taken == "blocked"


async def test_a_sentence_the_grounding_filter_drops_is_unchecked_with_its_reason() -> None:
    text = "Honestly, the tower is in Berlin."
    result, _ = await run_check(script(claims=[text]), text, tier="fast", on_unchecked="block")
    assert [(c.claim, c.status) for c in result.claims] == [(text, "unchecked")]
    assert "grounding filter" in (result.claims[0].reason or "")
    assert result.label != Label.SUPPORTS and result.action_taken == "blocked"


FIFTEEN = " ".join(f"City {chr(65 + n)}lpha has {n + 2} bridges." for n in range(15))


async def test_sentence_15_past_a_12_claim_cap_is_unchecked_so_the_reply_is_not_supports() -> None:
    result, _ = await run_check(_sentences, FIFTEEN, tier="fast", policy="block", on_unchecked="block",
                                response={"max_claims": 12})
    assert [c.status for c in result.claims] == ["checked"] * 12 + ["unchecked"] * 3
    assert result.claims[-1].claim == "City Olpha has 16 bridges."
    assert "claim cap" in (result.claims[-1].reason or "")
    assert result.label != Label.SUPPORTS and result.action_taken == "blocked"
    assert any("response.max_claims" in p for p in result.passed_through)


async def test_the_claim_cap_holds_for_a_stream_and_what_lies_beyond_is_unchecked() -> None:
    # A passage that writes the cities' numbers: a SUPPORTS of a number no passage writes is no verdict.
    almanac = Document(id="almanac", title="Almanac", text=FIFTEEN + " " + FIFTEEN.replace("bridges", "towers"))
    tools = {"rag": StaticTool("rag", [almanac]), "search": StaticTool("local", [almanac])}
    resources, backend, _ = resources_for(_sentences, method="single", tools=tools, guard=FAST,
                                          response={"max_claims": 12})
    assert isinstance(backend, ScriptedBackend)
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions(on_unchecked="block"))
        for word in re.findall(r"\S+\s*", FIFTEEN + " " + FIFTEEN.replace("bridges", "towers")):
            check.feed(word)
        result = await check.finish()
    checked = [c for c in result.claims if c.status == "checked"]
    assert len(checked) == 12 and len(result.claims) == 30
    assert all("claim cap" in (c.reason or "") for c in result.claims if c.status == "unchecked")
    assert sum(info.prompt == "guard_fast" for info, _ in backend.calls) == 12
    assert result.label != Label.SUPPORTS and result.action_taken == "blocked"


async def test_a_streamed_question_waits_for_its_yes() -> None:
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, _, _ = resources_for(script(claims=[ROME]), method="single", tools=tools, guard=FAST)
    text = "Is the Eiffel Tower in Rome? Yes. It opened in 1889."
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions())
        for word in re.findall(r"\S+\s*", text):
            check.feed(word)
        result = await check.finish()
    assert not any(s.reason == "question" for s in result.skipped)
    assert result.label == Label.REFUTES
