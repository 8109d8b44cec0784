"""Relevance is scored on the encoder a verdict names (``retrieval.encoder``), the one process-wide copy that
retrieval uses too: a verdict that says ``all-MiniLM-L6-v2 (int8)`` was scored by the int8 model, and a
Tool-MAD verdict with the default settings never loads torch."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from factdebate import embeddings
from factdebate.embeddings.minilm import ENCODERS
from factdebate.llm.scripted import ScriptedBackend
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from tests.helpers import CLAIM, HashingEmbedder, StaticTool, debate_script


class RecordingEmbedder(HashingEmbedder):
    """Stands in for the process-wide embedder of one kind and keeps every text it encoded."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.texts: list[str] = []

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        self.texts.extend(texts)
        return super().encode(texts, batch_size)


@pytest.mark.parametrize("kind", ENCODERS)
async def test_the_encoder_a_verdict_names_is_the_one_that_scored_it(kind: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    recording = {name: RecordingEmbedder(name) for name in ENCODERS}
    monkeypatch.setattr(embeddings, "_defaults", dict(recording))  # what get_embedder hands out, per kind
    settings = load_settings(overrides={
        "method": "tool-mad", "llm": {"cache": False}, "retrieval": {"encoder": kind},
        "methods": {"tool-mad": {"speculate": False}}}, environ={})
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    backend = ScriptedBackend(debate_script({("rag", 1): "SUPPORTS", ("search", 1): "SUPPORTS"}))
    # No encoder_factory: the one every entry point gets.
    resources = build_resources(settings, backends={"debater": backend}, tool_factory=lambda name: tools[name])
    verdict = await run_claim(CLAIM, settings, resources)
    assert all(turn.answer_relevance is not None for turn in verdict.rounds[0].turns)
    declared = next(d.here for d in verdict.deviations if d.key == "relevance_encoder")
    scored_by = [name for name, embedder in recording.items() if CLAIM in embedder.texts]
    assert scored_by == [kind] and f"all-MiniLM-L6-v2 ({recording[kind].kind})" in declared


NO_TORCH = """
import json, sys
import factdebate as fd
verdict = fd.verify("Paris is the capital of France.", llm="scripted:agree", method="tool-mad")
declared = [d.here for d in verdict.deviations if d.key == "relevance_encoder"]
scores = [t.answer_relevance for r in verdict.rounds for t in r.turns]
print(json.dumps({"torch": "torch" in sys.modules, "declared": declared, "scores": scores}))
"""


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="needs onnxruntime (extra 'retrieval')")
def test_a_tool_mad_verdict_with_the_default_settings_never_imports_torch(tmp_path: Path,
                                                                          onnx_model_file: Path) -> None:
    from tests.corpus.test_builtin_index import fresh_env

    # The ONNX file is exported once per run (with torch, in the fixture's process); this process only reads it.
    env = fresh_env(tmp_path / "data", onnx_model_file)
    done = subprocess.run([sys.executable, "-c", NO_TORCH], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["scores"] and all(score is not None for score in found["scores"])  # relevance was scored
    assert found["declared"] and "all-MiniLM-L6-v2 (int8)" in found["declared"][0]
    assert found["torch"] is False
