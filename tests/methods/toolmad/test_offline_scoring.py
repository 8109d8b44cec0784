"""The scores tuned to the offline model: with Qwen2.5-Coder-1.5B debating and scoring, faithfulness judges an
answer's facts without its conclusion and answer relevance is tested against the threshold calibrated for
it, and the verdict declares both; the embedded and a served model score as the paper does, and the setting
or a threshold the user set wins."""

from __future__ import annotations

import re
from typing import Any

import pytest

from factdebate.core.deviations import keys
from factdebate.llm.base import Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.base import Method
from factdebate.methods.toolmad.offline_scoring import CALIBRATED
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, debate_script, resources_for

QWEN = "llama-cpp:qwen2.5-coder-1.5b"
# What a capable debater's refutation splits into: the claim negated, a word on the claim, and the fact read.
STATEMENTS = ["Paris is not the capital of France.", "The claim is false.", "The capital of France is Lyon."]
AGREE = {(agent, r): "REFUTES" for r in (1, 2, 3) for agent in ("rag", "search")}


def split_and_check(call: CallInfo, messages: list[Message]) -> str | None:
    if call.prompt.startswith("faithfulness_statements"):
        return "\n".join(f"{i}. {s}" for i, s in enumerate(STATEMENTS, 1))
    if call.prompt.startswith("faithfulness_verdicts"):
        listed = re.findall(r"^(\d+)\. ", messages[-1]["content"].split("Statements:")[1], re.MULTILINE)
        return "\n".join(f"{n}: yes" for n in listed)
    return None


async def run(model: str, **tool_mad: Any) -> tuple[list[str], list[str], Any]:
    """The statements the scorer was asked to check, the verdict's deviation keys, and the verdict."""
    resources, backend, _ = resources_for(debate_script(AGREE, overrides=split_and_check),
                                          llm={"debater": model, "cache": False}, methods={"tool-mad": tool_mad})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    checked = [messages[-1]["content"].split("Statements:")[1] for info, messages in backend.calls
               if info.prompt.startswith("faithfulness_verdicts")]
    return checked, keys(verdict.deviations), verdict


async def test_the_offline_model_checks_the_facts_alone_and_the_verdict_declares_it() -> None:
    checked, declared, verdict = await run(QWEN)
    assert checked and all("Lyon" in text and STATEMENTS[0] not in text and "The claim is false" not in text
                           for text in checked)
    assert "offline_scoring" in declared
    assert any(d.key == "relevance_encoder" and "calibrated" in d.here for d in verdict.deviations)


@pytest.mark.parametrize("model", ["llama-cpp:builtin", "openai:gpt-4o-mini"])
async def test_other_models_check_every_statement(model: str) -> None:
    checked, declared, _ = await run(model)
    assert checked and all(all(s in text for s in STATEMENTS) for text in checked)
    assert "offline_scoring" not in declared


async def test_the_setting_wins_either_way() -> None:
    checked, declared, _ = await run(QWEN, offline_scoring=False)
    assert all(STATEMENTS[0] in text for text in checked) and "offline_scoring" not in declared
    checked, declared, _ = await run("openai:gpt-4o-mini", offline_scoring=True)
    assert all(STATEMENTS[0] not in text for text in checked) and "offline_scoring" in declared


def threshold(model: str, **tool_mad: Any) -> float:
    resources, _, _ = resources_for(debate_script(AGREE), llm={"debater": model, "cache": False},
                                    methods={"tool-mad": tool_mad})
    return Method.named("tool-mad").cfg(resources.settings).relevance_threshold


def test_the_relevance_threshold_is_the_calibrated_one_only_where_none_was_chosen() -> None:
    assert threshold(QWEN) == CALIBRATED["relevance_threshold"] != 0.8
    assert threshold("llama-cpp:builtin") == 0.8
    assert threshold(QWEN, relevance_threshold=0.75) == 0.75
    assert threshold(QWEN, offline_scoring=False) == 0.8
    assert threshold(QWEN, relevance_threshold=0.6, relevance_calibrated_dataset="mine",
                     relevance_calibrated_encoder="e", relevance_calibrated_share=0.5) == 0.6
