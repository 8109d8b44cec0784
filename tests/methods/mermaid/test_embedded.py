"""One short MERMAID run on the embedded model through the real stack: llama.cpp (grammar-held JSON),
the MCP search server as a subprocess over the builtin corpus, the SQLite memory with MiniLM recall.
What the 135M model answers proves nothing; that every part ran, and was recorded, does."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from factdebate.llm.llama_cpp import builtin_model_path
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings

# The first call converts the model for this test's data directory; on a loaded 2-core machine the whole run
# can pass the suite's 300 s default.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900), pytest.mark.skipif(
    builtin_model_path() is None or importlib.util.find_spec("llama_cpp") is None,
    reason="built-in model or llama-cpp-python not installed (run scripts/setup.sh)")]


@pytest.mark.usefixtures("builtin_index")  # the 40-article index and the encoder, made once per run
async def test_embedded_model_runs_mermaid_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp")
    monkeypatch.setenv("FACTDEBATE_RETRIEVAL__BUILTIN_DOCS", "40")
    settings = load_settings(overrides={
        "method": "mermaid", "llm": {"debater": "llama-cpp:builtin", "cache": False},
        "methods": {"mermaid": {"max_steps": 1, "servers": ["search"], "memory_path": str(tmp_path / "m.sqlite")}}})
    events: list[dict] = []
    resources = build_resources(settings)
    async with resources:
        verdict = await run_claim("Angkor Wat is a temple in Cambodia.", settings, resources, sinks=[events.append])
    kinds = {e["event"] for e in events}
    assert {"decomposition", "memory_recall", "step", "verdict"} <= kinds
    calls = [e for e in events if e["event"] == "llm_call"]
    assert 2 <= len(calls) == verdict.usage.llm_calls <= 6
    assert verdict.decided_by in ("executor", "forced", "unparsed")
    # Whatever the model did, it is accounted: a label or an unparsed verdict, tool calls counted, and the
    # memory written only when a tool step returned passages naming an entity.
    assert (verdict.label is None) == (verdict.decided_by == "unparsed")
    executor = verdict.rounds[0].turns[0]
    assert verdict.usage.tool_calls == sum(1 for s in executor.steps if s.tool not in ("", "answer")
                                           and not s.observation.startswith("error: unknown tool"))
    written = [e for e in events if e["event"] == "memory_write"]
    assert len(written) == 1
