"""Served open models: where a backend enforces a format, the first ask of a call whose prompt
asks for that format alone carries it (not only the re-ask); a reply that copies the format's placeholders
or repeats the problem it was told is no answer; a reply cut at the token limit is reported as cut."""

from __future__ import annotations

from typing import Any

from factdebate.core.runtime import RunRecorder, recording
from factdebate.llm.ask import ask, echoed
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.constraints import openai_request
from factdebate.llm.model import LLM
from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.baselines.mad import MODERATION_GRAMMAR
from factdebate.methods.dpd.panel import WHY_CHARS, judge_schema
from factdebate.methods.kit.formats import QUERY_ECHOES, QUERY_GRAMMAR, QUERY_SCHEMA, QUERY_TEMPLATE
from factdebate.prompts import Prompt, render
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for

Seen = list[tuple[CallInfo, GenParams]]


def recording_script(answer: Any, seen: Seen) -> Any:
    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        seen.append((call, params))
        return str(answer(call, messages, params))

    return respond


async def test_the_mad_moderator_is_held_to_its_format_from_the_first_ask() -> None:
    seen: Seen = []
    resources, _, _ = resources_for(recording_script(truthful, seen), method="mad", methods={"mad": {"rounds": 1}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    first = [params for call, params in seen if call.prompt == "mad_moderator"]
    assert first and all(p.grammar == MODERATION_GRAMMAR and p.json_template for p in first)
    assert verdict.parse_counts["moderation"].reasked == 0


async def test_a_moderator_that_copies_the_reasons_placeholder_still_decides() -> None:
    """"Reason: one sentence" is the template's placeholder: dropped and counted as echoed, while the
    preference and the verdict are read (a readable label is kept, marked)."""

    def copycat(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("mad_moderator"):
            return "Preference: yes\nReason: one sentence\nSUPPORTS"
        return truthful(call, messages, params)

    resources, _, _ = resources_for(copycat, method="mad", methods={"mad": {"rounds": 1}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    moderation = verdict.rounds[0].judges[0]
    assert moderation.parsed and verdict.decided_by == "moderator"
    assert verdict.parse_counts["moderation"].model_dump() == {"asked": 1, "reasked": 0, "recovered": 0, "lost": 0}
    assert verdict.parse_counts["mad_moderator"].model_dump() == {"asked": 0, "reasked": 0, "recovered": 0,
                                                                  "lost": 0, "echoed": 1}


async def test_tool_mad_queries_are_held_to_brackets_from_the_first_ask_and_must_name_the_claim() -> None:
    seen: Seen = []

    def answer(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "query_select":
            return "[one search query of a few words]"  # the prompt's own wording
        if call.prompt == "query_select:reask":
            return "[The answer was not inside square brackets.]"  # the problem, echoed
        text = truthful(call, messages, params)
        return text.replace("SUPPORTS", "REFUTES") if call.agent == "search" and call.round == 1 else text

    resources, _, _ = resources_for(recording_script(answer, seen), methods={"tool-mad": {"rounds": 2,
                                                                                           "scoring": False}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    first = [params for call, params in seen if call.prompt == "query_select"]
    assert first and all(p.grammar == QUERY_GRAMMAR and p.json_schema == QUERY_SCHEMA and
                         p.json_template == QUERY_TEMPLATE for p in first)
    assert verdict.parse_counts["query"].lost == len(first)
    # The previous query is kept, not the echo.
    assert all(t.query == CLAIM for t in verdict.rounds[1].turns if t.tool != "none")


def test_the_query_prompt_offers_no_example_query_to_copy_and_its_wording_is_an_echo() -> None:
    """SmolLM2 answered 8 of 12 rewrites with the prompt's example "[capital of Australia]": the prompt now
    describes the form without a bracketed example, and copying its wording is caught as an echo."""
    prompt = render("query_select", agent_desc="RAG agent", claim=CLAIM, previous_query=CLAIM,
                    others=[{"desc": "search agent", "response": "It is true."}]).text
    instruction = prompt.split("It is true.")[-1]
    assert "[" not in instruction and "]" not in instruction
    assert all(phrase in prompt for phrase in QUERY_ECHOES)  # the echoes are what the prompt says
    copied = [echoed(f"[{phrase}]", QUERY_ECHOES) for phrase in QUERY_ECHOES]
    assert copied == list(QUERY_ECHOES)
    assert echoed(f"[{CLAIM}]", QUERY_ECHOES) is None


async def test_a_reply_cut_at_the_token_limit_is_reported_as_cut() -> None:
    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        return '{"why": "a long explanation that never ends'

    llm = LLM(ScriptedBackend(respond), "judge")
    with recording(RunRecorder()):
        asked = await ask(llm, Prompt("ballot", "Vote."), lambda text: None, what="ballot",
                          params=GenParams(max_tokens=5))
    assert asked.problem is not None and "cut at the token limit (5 tokens)" in asked.problem.problem


def test_string_bounds_reach_grammar_servers_and_are_left_out_of_strict_schemas() -> None:
    params = GenParams(max_tokens=480, json_schema=judge_schema(480))
    grammar = openai_request(params, "grammar").kwargs["response_format"]["schema"]
    assert grammar["properties"]["why"]["maxLength"] == WHY_CHARS
    strict = openai_request(params, "json_schema").kwargs["response_format"]["json_schema"]["schema"]
    assert "maxLength" not in strict["properties"]["why"]
