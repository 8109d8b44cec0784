"""The offline model setup assembles (hub/offline_model.py): the default for verdicts where it is installed and
no model is configured, a named model otherwise, listed by doctor, and stated for what it measured on every
face that carries the embedded model's note. "Installed" is faked with a sparse file of the model's size and
the identity record setup writes once it has checked the sha256: the tests never hold its 1.1 GB. (A file
changed after setup, and doctor's hashing: tests/hub/test_parts.py, on a small model assembled for real.)"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from factdebate.cli import doctor
from factdebate.cli.render import embedded_model_note
from factdebate.hub.offline_model import QWEN_CODER_1_5B, ModelFileDamaged
from factdebate.llm.llama_cpp import LlamaCppBackend
from factdebate.llm.near_chance import MEASURED, model_warnings
from factdebate.settings.load import load_settings
from factdebate.util.errors import ConfigError

SPEC = "llama-cpp:qwen2.5-coder-1.5b"


@pytest.fixture
def installed() -> Path:
    """The model's file in the test's data folder, as setup leaves it (sparse: only its size is read)."""
    path = QWEN_CODER_1_5B.path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        fh.truncate(QWEN_CODER_1_5B.size)
    QWEN_CODER_1_5B.provenance_path().write_text(json.dumps({"licence": "Apache-2.0", "origin": "a test"}),
                                                 encoding="utf-8")
    QWEN_CODER_1_5B.record_identity(path)  # as setup records it after the sha256 matched
    return path


def test_without_the_model_verdicts_stay_on_the_tiny_one() -> None:
    assert QWEN_CODER_1_5B.installed() is None
    assert load_settings(environ={}).llm.debater == "llama-cpp:builtin"


def test_installed_it_is_the_default_unless_a_model_is_configured(installed: Path) -> None:
    settings = load_settings(environ={})
    assert settings.llm.debater == SPEC and settings.llm_for("judge") == SPEC
    assert load_settings(environ={"FACTDEBATE_LLM": "openai:gpt-4o-mini"}).llm.debater == "openai:gpt-4o-mini"
    assert load_settings(overrides={"llm": {"debater": "llama-cpp:builtin"}}, environ={}).llm.debater == \
        "llama-cpp:builtin"  # the tiny model as an explicit fast choice


def test_a_file_cut_short_is_refused_in_one_line_never_replaced_by_the_tiny_model(installed: Path) -> None:
    with installed.open("r+b") as fh:
        fh.truncate(QWEN_CODER_1_5B.size - 1)
    with pytest.raises(ModelFileDamaged, match=r"bytes, not 1,117,320,768: .*run `factdebate setup`"):
        QWEN_CODER_1_5B.installed()
    assert load_settings(environ={}).llm.debater == SPEC  # still this model's: loading it refuses it
    with pytest.raises(ConfigError, match=r"cut short or changed after setup; run `factdebate setup`"):
        LlamaCppBackend("qwen2.5-coder-1.5b")
    check = next(c for c in doctor.run_checks(load_settings(environ={})) if c.name.startswith("offline model"))
    assert check.status == "fail" and "run `factdebate setup`" in check.detail


def test_the_named_model_resolves_to_its_file_or_says_to_run_setup(installed: Path) -> None:
    assert LlamaCppBackend("qwen2.5-coder-1.5b").path == str(installed)
    os.unlink(installed)
    with pytest.raises(ConfigError, match=r"not installed .*run `factdebate setup`"):
        LlamaCppBackend("qwen2.5-coder-1.5b")


def test_doctor_says_when_it_is_not_installed(installed: Path) -> None:
    os.unlink(installed)
    missing = next(c for c in doctor.run_checks(load_settings(environ={})) if c.name.startswith("offline model"))
    assert missing.status == "warn" and "`factdebate setup` assembles it" in missing.detail


def test_its_verdicts_carry_the_measured_statement_not_the_near_chance_note() -> None:
    [warning] = model_warnings([SPEC])
    assert warning.code == "offline_model" and warning.model == SPEC
    assert warning.message == f"{MEASURED[SPEC]}; a served model is stronger"
    note = embedded_model_note([SPEC])
    assert note is not None and "near chance" not in note and "--llm openai:MODEL" in note and "\n" not in note
    assert "near chance" in (embedded_model_note([SPEC, "llama-cpp:builtin"]) or "")  # the tiny one's, if it ran


def test_its_load_is_announced_as_the_offline_model_by_its_spec(installed: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # The terminal printed "loading the embedded model (llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf)".
    from typing import Any

    from factdebate.core.events import summary
    from factdebate.core.runtime import RunRecorder, recording
    from factdebate.llm import llama_cpp

    monkeypatch.setattr(llama_cpp, "prefix_cached_llama", lambda *a, **k: object())  # the sparse file can't load
    events: list[dict[str, Any]] = []
    with recording(RunRecorder([events.append])):
        llama_cpp.LlamaCppBackend("qwen2.5-coder-1.5b", n_ctx=512)._model()
    assert summary(events[0]) == f"loading the offline model ({SPEC}): once per process…"
