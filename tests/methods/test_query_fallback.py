"""A refused query falls back, in every method: what SmolLM2 searched behind
llama-cpp-python's server ("<claim> You can find evidence about it here") is refused by the one query test,
re-asked once, and then the claim (or the turn's last good query) is searched and the loss counted. ReAct
and MERMAID lost the step and searched nothing; Tool-MAD, DPD and FacTool searched the claim."""

from __future__ import annotations

import json
from typing import Any

import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, resources_for
from tests.methods.dpd.test_gatherer_queries import gatherer_replies
from tests.methods.mermaid.support import action, answer, decomposition
from tests.methods.mermaid.test_method import verify
from tests.methods.test_echo_kept import _with

FILLER = f"{CLAIM} You can find evidence about it here"


def searched(tools: dict[str, Any]) -> list[str]:
    return [q for tool in tools.values() for q in tool.queries]


async def test_react_searches_the_claim_then_its_last_good_query() -> None:
    steps = iter([f"Thought: look.\nAction: search[{FILLER}]", f"Thought: again.\nAction: search[{FILLER}]",
                  "Thought: narrower.\nAction: search[capital of France]",
                  f"Thought: more.\nAction: search[{FILLER}]", f"Thought: more.\nAction: search[{FILLER}]",
                  "Thought: done.\nAction: finish[SUPPORTS]"])

    def step(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        return next(steps)

    resources, _, tools = resources_for(_with({"react_step": step, "react_step:reask": step}), method="react")
    verdict = await run_claim(CLAIM, resources.settings, resources)
    # The third step's fallback is the second step's search: not run again (a repeat), its observation says so.
    assert tools["rag"].queries == [CLAIM.rstrip("."), "capital of France"]
    assert [s.repeats for s in verdict.rounds[0].turns[0].steps] == [None, None, 2, None]
    assert verdict.parse_counts["react_action"].lost == 2 and verdict.unparsed_turns == 2
    assert verdict.parse_counts["react_action"].repeated == 1
    assert not [q for q in searched(tools) if "You can find" in q]


async def test_mermaid_searches_the_claim_then_its_last_good_query() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt.startswith("mermaid_decompose"):
            return decomposition("Paris", "France")
        if call.prompt.startswith("mermaid_step") and call.round <= 3:
            return action("search_facts", "capital of France" if call.round == 2 else FILLER)
        return answer("True")

    verdict, _, toolset, _ = await verify(replies, max_steps=4)
    queries = [arguments["query"] for name, arguments in toolset.calls]
    # The third step's fallback is the second step's search: not run again (a repeat), its observation says so.
    assert queries == [CLAIM.rstrip("."), "capital of France"]
    assert verdict.parse_counts["mermaid_step"].lost == 2 and verdict.parse_counts["mermaid_step"].repeated == 1


@pytest.mark.parametrize(("method", "prompts"), [
    ("tool-mad", {"query_select": f"[{FILLER}]", "query_select:reask": f"[{FILLER}]"}),
    ("factool", {"factool_queries": json.dumps({"queries": [FILLER]}),
                 "factool_queries:reask": json.dumps({"queries": [FILLER]})}),
])
async def test_filler_is_never_searched_and_its_loss_is_counted(method: str, prompts: dict[str, str]) -> None:
    resources, _, tools = resources_for(_with(prompts), method=method)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert searched(tools) and not [q for q in searched(tools) if "You can find" in q]
    assert sum(c.lost for kind, c in verdict.parse_counts.items() if "quer" in kind) >= 1


async def test_dpd_searches_the_claim_for_filler() -> None:
    reply = json.dumps({"support": FILLER, "refute": FILLER})
    resources, _, tools = resources_for(gatherer_replies(reply, reply), method="dpd",
                                        methods={"dpd": {"min_rounds": 1, "max_rounds": 1}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert set(tools["rag"].queries) == {CLAIM}
    assert verdict.parse_counts["query"].lost == 2
