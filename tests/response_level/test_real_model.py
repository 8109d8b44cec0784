"""check-response on the real stack: the shipped SmolLM2 model through llama.cpp, extraction held to the
JSON schema by a grammar, each claim verified by the real ``single`` method. Kept short (two claims at most);
it proves the pipeline, not accuracy."""

from __future__ import annotations

import importlib.util

import pytest

from factdebate import acheck_response
from factdebate.llm.llama_cpp import builtin_model_path
from factdebate.response_level import response_label

pytestmark = pytest.mark.skipif(
    builtin_model_path() is None or importlib.util.find_spec("llama_cpp") is None,
    reason="built-in model or llama-cpp-python not installed (run scripts/setup.sh)")


@pytest.fixture(autouse=True)
def _models_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """As in test_llama_smoke: a data directory where the model's F16 copy is made once per session."""
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path_factory.getbasetemp() / "llama-data"))


async def test_check_response_on_the_embedded_model() -> None:
    verdict = await acheck_response("The Eiffel Tower is in Paris. It was completed in 1889.",
                                    question="Tell me about the Eiffel Tower.", method="single",
                                    llm="llama-cpp:builtin", max_claims=2, cache=False)
    # The grammar holds the extractor to the schema, so its reply is always read.
    assert verdict.extraction.parsed and 1 <= len(verdict.extraction.claims) <= 2
    assert all(c.verdict is not None and c.verdict.method == "single" for c in verdict.claims)
    assert (verdict.label, verdict.decided_by) == response_label([c.label for c in verdict.claims])
    assert verdict.usage.llm_calls >= 1 + len(verdict.claims)
    assert verdict.usage_by_role["extractor"].llm_calls == 1
