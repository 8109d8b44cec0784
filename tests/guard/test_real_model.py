"""The guard on the real stack: the shipped SmolLM2 model through llama.cpp, the fast tier's reply and the
correction held to their JSON schemas by grammars, over evidence the caller gives (no index). It proves the
pipeline on a real backend (every reply read, spans that slice the text), not accuracy."""

from __future__ import annotations

import importlib.util

import pytest

import factdebate as fd
from factdebate.llm.llama_cpp import builtin_model_path

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    builtin_model_path() is None or importlib.util.find_spec("llama_cpp") is None,
    reason="built-in model or llama-cpp-python not installed (run scripts/setup.sh)")]

TEXT = "Hello! The Eiffel Tower is in Rome. I hope this helps."
GUIDE = {"title": "Guide", "text": "The Eiffel Tower is a wrought-iron tower in Paris."}


@pytest.fixture(autouse=True)
def _models_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """As in test_llama_smoke: a data directory where the model's F16 copy is made once per session."""
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path_factory.getbasetemp() / "llama-data"))
    monkeypatch.setenv("FACTDEBATE_GUARD__TIER", "fast")
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_TIER", "fast")


async def test_the_fast_tier_on_the_embedded_model() -> None:
    result = await fd.aguard(TEXT, tier="fast", deadline_s=120, method="single", llm="llama-cpp:builtin",
                             cache=False, evidence_mode="given", policy="flag",
                             evidence=[GUIDE])
    assert not result.degraded and result.claims
    assert {s.text for s in result.skipped} == {"Hello!", "I hope this helps."}
    for claim in result.claims:
        assert claim.status in ("checked", "unchecked")
        assert (claim.label is not None) == (claim.status == "checked")  # no label without a read verdict
        if claim.span is not None and claim.span_note is None:
            assert TEXT[claim.span.start:claim.span.end] == claim.claim
        if claim.correction is not None:
            assert claim.label == "REFUTES" and claim.correction.quote_source
    if any(c.status == "checked" and c.label == "REFUTES" for c in result.claims):  # its reader is told its worth
        assert "flag comes from the embedded model (SmolLM2-135M), which answers near chance" in result.text
