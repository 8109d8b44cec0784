"""What a batch needs to be run again, written beside its results file; secrets noted, never written."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from factdebate.cli.main import run
from factdebate.run.provenance import environment, keep_history, models_by_role
from factdebate.settings.load import load_settings


def test_a_batch_writes_its_provenance_beside_the_results(tmp_path: Path) -> None:
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"id": "a", "claim": "Paris is in France."}\n{"id": "b", "claim": "Rome is in Spain."}\n')
    out = tmp_path / "out" / "results.jsonl"
    code = run(["verify", "--input", str(claims), "--output", str(out), "--method", "single",
                "--llm", "scripted:agree", "--no-cache"])
    assert code == 0
    record = json.loads((tmp_path / "out" / "results.jsonl.provenance.json").read_text())
    assert record["input"] == {"file": str(claims), "sha256": hashlib.sha256(claims.read_bytes()).hexdigest(),
                               "claim_ids": ["a", "b"]}
    assert record["models"] == {"debater": "scripted:agree"} and record["versions"]["factdebate"]
    assert "openai" not in record["versions"]  # no module imports the OpenAI SDK: its version changes nothing
    assert [d["key"] for d in record["deviations"]] == ["backbone", "answer_format"]
    assert isinstance(record["command"], list)


def test_environment_says_set_for_secrets_and_masks_url_credentials() -> None:
    env = environment({"FACTDEBATE_LLM": "openai:gpt-4o-mini", "OPENAI_API_KEY": "sk-abc",
                       "OPENAI_BASE_URL": "https://user:pw@llm.example/v1", "FACTDEBATE_SEARCH_TOKEN": "x"})
    assert env["OPENAI_API_KEY"] == "set" and env["FACTDEBATE_SEARCH_TOKEN"] == "set"
    assert env["FACTDEBATE_LLM"] == "openai:gpt-4o-mini" and env["TAVILY_API_KEY"] == "unset"
    assert "pw" not in env["OPENAI_BASE_URL"] and "llm.example" in env["OPENAI_BASE_URL"]


def test_models_by_role_follow_the_method_and_the_explicit_roles() -> None:
    settings = load_settings(overrides={"method": "tool-mad", "llm": {"debater": "openai:a", "scorer": "openai:b",
                                                                        "roles": {"moderator": "openai:c"}}},
                             environ={})
    assert models_by_role(settings) == {"debater": "openai:a", "judge": "openai:a", "scorer": "openai:b",
                                        "moderator": "openai:c"}


def test_history_keeps_each_earlier_runtime_once() -> None:
    first = {"python": "3.11", "versions": {"x": "1"}, "source": None, "models": {}}
    second = {**first, "versions": {"x": "2"}}
    merged = keep_history(first, second)
    assert merged["earlier"] == [first]
    assert keep_history(merged, {**second})["earlier"] == [first]
    assert keep_history(second, dict(second)) == second


def test_models_by_role_name_dpds_referees_bound_by_its_own_flag() -> None:
    referees = ["openai:gpt-3.5-turbo", "openai:gpt-4o", "openai:o3"]
    settings = load_settings(overrides={"method": "dpd", "llm": {"debater": "openai:gpt-3.5-turbo"},
                                        "methods": {"dpd": {"judge_llms": referees}}}, environ={})
    models = models_by_role(settings)
    assert [models[f"judge-{name}"] for name in ("factual", "logical", "rhetorical")] == referees
