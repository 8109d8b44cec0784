"""A readable decision is kept when only a reason echoes the prompt, reproduced
with scripted models as SmolLM2 answered behind llama-cpp-python's server: MERMAID's forced answer
``{"thought": "Your reasoning", "answer": "True"}``, ReAct's ``Action: search[SUPPORTS]`` and FacTool's
``{"queries": []}``."""

from __future__ import annotations

import json
from typing import Any

from factdebate.core.runtime import RunRecorder, recording
from factdebate.core.types import Label
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.model import LLM
from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.mermaid.executor import answer_schema, ask_step
from factdebate.prompts import Prompt
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for


def _with(prompts: dict[str, Any]) -> Any:
    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        reply = prompts.get(call.prompt)
        if reply is not None:
            return str(reply(call, messages, params) if callable(reply) else reply)
        return str(truthful(call, messages, params))

    return respond


async def test_react_searching_a_label_has_answered() -> None:
    step = "Thought: I know this.\nAction: search[SUPPORTS]"
    resources, backend, tools = resources_for(_with({"react_step": step}), method="react")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label == Label.SUPPORTS and verdict.rounds[0].turns[0].steps[-1].tool == "finish"
    assert not [c for c, _ in backend.calls if c.prompt.endswith(":reask")]
    assert tools["rag"].queries == []  # nothing was searched for "SUPPORTS"


async def test_reacts_first_ask_is_held_to_the_step_format() -> None:
    seen: list[GenParams] = []

    def step(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        seen.append(params)
        return "Thought: The capital is named.\nAction: finish[SUPPORTS]"

    resources, _, _ = resources_for(_with({"react_step": step}), method="react")
    await run_claim(CLAIM, resources.settings, resources)
    assert seen and seen[0].grammar is not None and "<>" in seen[0].grammar and seen[0].json_template


async def test_mermaids_forced_answer_with_an_echoed_thought_keeps_its_label() -> None:
    sent: list[str] = []

    def forced(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        sent.append(call.prompt)
        return json.dumps({"thought": "Your reasoning", "answer": "True"})

    run = RunRecorder([])
    with recording(run):
        step, _, retries = await ask_step(LLM(ScriptedBackend(forced), "debater"), Prompt("mermaid_force", "..."),
                                          answer_schema(False), False, 6, answer_only=True, claim=CLAIM)
    assert step is not None and step.label == Label.SUPPORTS and step.thought == "" and retries == 0
    assert sent == ["mermaid_force"] and run.parse_counts["mermaid_force"].echoed == 1


async def test_factool_reads_an_empty_query_list_as_a_lost_reply() -> None:
    resources, _, _ = resources_for(_with({"factool_queries": json.dumps({"queries": []}),
                                                 "factool_queries:reask": json.dumps({"queries": []})}),
                                          method="factool")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    counts = verdict.parse_counts["queries"]
    assert counts.reasked == counts.lost == counts.asked >= 1
    turn = verdict.rounds[0].turns[0]
    assert turn.query == turn.claim  # no query written: the claim is searched, and the loss is counted
