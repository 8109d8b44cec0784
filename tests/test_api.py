"""The Python API: factdebate.verify / averify, options, events, config precedence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import factdebate
from factdebate.core.types import Label
from factdebate.settings.load import load_settings
from factdebate.util.errors import ConfigError, InputError

OPTS: dict[str, Any] = {"llm": "scripted:disagree", "agents": ["none", "none"], "scoring": False, "cache": False}


def test_verify_returns_a_verdict() -> None:
    verdict = factdebate.verify("Paris is the capital of France.", rounds=2, **OPTS)
    assert verdict.label is Label.SUPPORTS and verdict.decided_by == "judge" and len(verdict.rounds) == 2
    assert verdict.usage.llm_calls == 2 * 2 + 1  # 2 answers per round + the judge; no tools, no query calls
    assert verdict.config["methods"]["tool-mad"]["rounds"] == 2 and verdict.schema_version == 2


async def test_averify_streams_events_and_writes_a_trace(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    trace = tmp_path / "t.jsonl"
    verdict = await factdebate.averify("Paris is the capital of France.", on_event=events.append, trace=trace,
                                       rounds=1, **OPTS)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished" and "verdict" in kinds
    assert len(trace.read_text().splitlines()) == len(events)
    assert verdict.judge is not None


def test_bad_options_and_claims_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match="unknown option 'roundz'"):
        factdebate.verify("x", roundz=3)
    with pytest.raises(InputError, match="empty"):
        factdebate.verify("  ", **OPTS)
    with pytest.raises(ConfigError, match="2 or 3 agents"):
        factdebate.verify("x", **{**OPTS, "agents": ["rag"]})


def test_settings_precedence_file_then_env_then_overrides(tmp_path: Path) -> None:
    config = tmp_path / "fd.yaml"
    config.write_text("methods:\n  tool-mad:\n    rounds: 2\nretrieval:\n  k: 5\nllm:\n  debater: openai:from-file\n")
    env = {"FACTDEBATE_METHODS__TOOL_MAD__ROUNDS": "4", "FACTDEBATE_JUDGE_LLM": "openai:judge-from-env"}
    settings = load_settings(config, {"retrieval": {"k": 7}}, environ=env)
    assert settings.methods["tool-mad"].rounds == 4 and settings.retrieval.k == 7
    assert settings.llm_for("debater") == "openai:from-file"
    assert settings.llm_for("judge") == "openai:judge-from-env" and settings.llm_for("scorer") == "openai:from-file"
    with pytest.raises(ConfigError, match=r"methods\.tool-mad\.nonsense"):
        load_settings(overrides={"methods": {"tool-mad": {"nonsense": 1}}}, environ={})
