"""One smoke test of the real llama.cpp backend on the shipped SmolLM2 model (skipped only when the model
package or llama-cpp-python is not installed, which scripts/setup.sh always installs)."""

from __future__ import annotations

import importlib.util

import pytest

from factdebate.api import build_resources, run_claim
from factdebate.config import load_settings
from factdebate.llm.base import GenParams
from factdebate.llm.llama_cpp import LlamaCppBackend, builtin_model_path
from factdebate.methods.common import LABEL_CHOICES
from tests.helpers import BagOfWordsEncoder, StaticTool

pytestmark = pytest.mark.skipif(
    builtin_model_path() is None or importlib.util.find_spec("llama_cpp") is None,
    reason="built-in model or llama-cpp-python not installed (run scripts/setup.sh)")


async def test_builtin_model_generates_and_respects_a_choice_grammar() -> None:
    backend = LlamaCppBackend("builtin")
    free = await backend.complete([{"role": "user", "content": "Name the capital of France."}],
                                  GenParams(max_tokens=16))
    assert free.text.strip() and free.prompt_tokens > 0 and free.completion_tokens > 0
    constrained = await backend.complete([{"role": "user", "content": "Is Paris in France? Answer."}],
                                         GenParams(max_tokens=8, choices=LABEL_CHOICES))
    assert constrained.text in LABEL_CHOICES


async def test_one_round_of_tool_mad_runs_end_to_end_on_the_real_model() -> None:
    settings = load_settings(overrides={"llm": {"debater": "llama-cpp:builtin", "cache": False},
                                        "toolmad": {"rounds": 1}}, environ={})
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources = build_resources(settings, tool_factory=lambda kind: tools[kind],
                                encoder_factory=BagOfWordsEncoder)
    verdict = await run_claim("Paris is the capital of France.", settings, resources)
    assert len(verdict.rounds) == 1 and verdict.decided_by in ("consensus", "judge")
    assert all(t.response for t in verdict.rounds[0].turns)
    assert verdict.usage.llm_calls >= 3 and verdict.usage.prompt_tokens > 0
    assert verdict.usage_by_role["debater"].llm_calls >= 2
