"""MERMAID's token caps fit its formats' longest answers, as
tests/methods/test_token_caps_per_method.py checks for the methods its generic run fits: the decomposition,
every executor step (each tool's action, with its arguments) and the forced answer, first asks and re-asks."""

from __future__ import annotations

import math

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.run.claim import run_claim
from tests.methods.mermaid.support import FactToolset, action, answer, decomposition, mermaid_resources
from tests.methods.test_token_caps import CHARS_PER_TOKEN
from tests.methods.test_token_caps_per_method import longest

CLAIM = "Paris is the capital of France"
FACTS = {"france": "Paris is the capital and largest city of France."}


def reask_everything(call: CallInfo, text: str) -> str:
    if not call.prompt.endswith(":reask"):
        return "nope"
    if call.prompt.startswith("mermaid_decompose"):
        return decomposition("Paris", "France")
    if call.prompt.startswith("mermaid_force"):
        return answer("True")
    return action("search_facts", f"France, step {call.round}")


async def test_every_mermaid_call_can_finish_its_format_within_its_cap() -> None:
    seen: dict[str, tuple[int, float]] = {}
    resources, backend = await mermaid_resources(reask_everything, FactToolset(FACTS), max_steps=3)
    respond = backend.responder

    def recording(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        seen[call.prompt] = (params.max_tokens, longest(params))
        return str(respond(call, messages, params))

    backend.responder = recording
    async with resources:
        await run_claim(CLAIM, resources.settings, resources)
    assert {"mermaid_decompose", "mermaid_step", "mermaid_force"} <= {p.removesuffix(":reask") for p in seen}
    unfitted = {prompt: (cap, chars) for prompt, (cap, chars) in seen.items()
                if chars == math.inf or cap * CHARS_PER_TOKEN < chars}
    assert unfitted == {}
