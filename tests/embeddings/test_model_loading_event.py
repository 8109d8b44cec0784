"""A model's load inside a run is traced (the first claim of a process paused for up to a
minute, the scorer loading, with no event), and the terminal's live view prints a line for it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from factdebate.core.events import summary
from factdebate.core.runtime import RunRecorder, recording


def test_the_encoders_load_is_traced_with_its_time(tmp_path: Path, onnx_model_file: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.embeddings.onnx import OnnxInt8Embedder

    (tmp_path / "models").mkdir()
    shutil.copy(onnx_model_file, tmp_path / "models" / onnx_model_file.name)
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path))
    events: list[dict[str, Any]] = []
    with recording(RunRecorder([events.append])):
        OnnxInt8Embedder().encode(["Paris is in France."])
    kinds = [(e["event"], e.get("model")) for e in events]
    assert kinds == [("model_loading", "all-MiniLM-L6-v2-int8"), ("model_loaded", "all-MiniLM-L6-v2-int8")], kinds
    assert events[1]["seconds"] >= 0
    line = summary(events[0])
    assert line is not None and "loading" in line and "once per process" in line
    assert os.environ["FACTDEBATE_DATA_DIR"] == str(tmp_path)
