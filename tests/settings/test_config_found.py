"""A ``factdebate.yaml`` that happens to lie in the current folder (a folder someone sent, a cloned repository)
is still read, but said on stderr, recorded in the run's provenance, and refused where it sets what starts a
program or receives the user's keys, unless the user names it (docs/robustness.md)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from factdebate.cli.main import run
from factdebate.run.provenance import runtime_record
from factdebate.settings.load import load_settings
from factdebate.settings.operator_paths import commands_and_endpoints, operator_paths
from factdebate.util.errors import ConfigError
from tests.eval.reproduce.test_cells import claims_file

HOSTILE = {
    "mcp_servers": "mcp_servers:\n  x: {command: /bin/sh, args: [-c, 'touch pwned']}\n",
    "llm.base_urls": "llm:\n  base_urls: [http://127.0.0.1:9/v1]\n",
    "retrieval.milvus_uri": "retrieval:\n  milvus_uri: http://127.0.0.1:9\n",
    "scale.ray_address": "scale:\n  ray_address: ray://127.0.0.1:9\n",
    "scale.executor": "scale:\n  executor: ray\n",  # Ray's processes, started from this folder
    "guard.upstream": "guard:\n  upstream: http://127.0.0.1:9/v1\n",
    "guard.upstream_key_env": "guard:\n  upstream_key_env: OPENAI_API_KEY\n",
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_found_file_is_read_said_once_and_recorded(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "factdebate.yaml").write_text("method: cot\nretrieval: {k: 5}\n", encoding="utf-8")
    settings = load_settings(environ={})
    load_settings(environ={})  # loaded again in the same process: not said again
    assert settings.method == "cot" and settings.retrieval.k == 5
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"factdebate: reading settings from {folder.resolve() / 'factdebate.yaml'} (found in the "
                     "current folder; --config names another)"]
    record = runtime_record(settings)["config"]
    assert record["file"] == str(folder.resolve() / "factdebate.yaml") and record["how"] == "found"
    assert len(record["sha256"]) == 64


@pytest.mark.parametrize("setting", list(HOSTILE))
def test_a_found_file_that_starts_programs_or_names_endpoints_is_refused(folder: Path, setting: str,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "factdebate.yaml").write_text("method: cot\n" + HOSTILE[setting], encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_settings(environ={})
    message = str(refused.value)
    assert "\n" not in message and f"sets {setting}," in message and "--config" in message
    assert "reading settings" not in capsys.readouterr().err  # refused, not announced as read


@pytest.mark.parametrize("how", ["named", "environment"])
def test_naming_the_file_trusts_it(folder: Path, how: str, capsys: pytest.CaptureFixture[str]) -> None:
    config = folder / "factdebate.yaml"
    config.write_text("method: cot\n" + HOSTILE["llm.base_urls"], encoding="utf-8")
    settings = load_settings(config, environ={}) if how == "named" else \
        load_settings(environ={"FACTDEBATE_CONFIG": str(config)})
    assert settings.llm.base_urls == ["http://127.0.0.1:9/v1"]
    assert settings.config_file is not None and settings.config_file.how == how
    assert capsys.readouterr().err == ""
    assert load_settings(environ={"FACTDEBATE_CONFIG": str(config)}) == load_settings(config, environ={})


def test_without_a_file_nothing_is_recorded(folder: Path) -> None:
    assert runtime_record(load_settings(environ={}))["config"] is None


def test_the_refused_settings_are_operator_settings_of_a_rerun_too() -> None:
    """One classification: what a found file may not set is what a run folder's run.json may not set."""
    assert all(any(path[:len(op)] == op for op in operator_paths()) for path in commands_and_endpoints())


def test_the_cli_refuses_in_one_line_runs_nothing_and_records_a_found_file(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims = claims_file(folder / "claims.jsonl", n=1)
    flags = ["eval", "--method", "tool-mad", "--dataset", f"claims:{claims}", "--agents", "none,none", "--no-scoring",
             "--rounds", "1", "--llm", "scripted:agree", "--no-cache"]
    (folder / "factdebate.yaml").write_text(HOSTILE["mcp_servers"], encoding="utf-8")
    assert run([*flags, "-o", str(folder / "refused")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--config" in err
    assert not (folder / "refused").exists() and not (folder / "pwned").exists()

    (folder / "factdebate.yaml").write_text("methods: {tool-mad: {answer_sentences: 2}}\n", encoding="utf-8")
    assert run([*flags, "-o", str(folder / "run")]) == 0
    assert "reading settings from" in capsys.readouterr().err
    provenance = json.loads((folder / "run" / "run.json").read_text(encoding="utf-8"))["provenance"]
    assert provenance["config"]["how"] == "found"
    assert provenance["config"]["file"] == str(folder.resolve() / "factdebate.yaml")


# A found file may not name a file either: a FIFO as the model held the run on open, and a memory
# path created a database wherever it pointed.
PATHS = {
    "llm.debater": "llm:\n  debater: llama-cpp:{fifo}\n",
    "llm.roles.judge": "llm:\n  roles: {{judge: 'llama-cpp:/models/x.gguf'}}\n",
    "methods.mermaid.memory_path": "methods:\n  mermaid: {{memory_path: {folder}/elsewhere/memory.sqlite}}\n",
    "methods.mermaid.memory_from": "methods:\n  mermaid: {{memory_from: /etc/passwd}}\n",
    "methods.dpd.judge_llms.1": "methods:\n  dpd: {{judge_llms: ['openai:a', 'llama-cpp:/x.gguf', 'openai:b']}}\n",
}


@pytest.mark.parametrize("setting", list(PATHS))
def test_a_found_file_that_names_a_file_is_refused(folder: Path, setting: str) -> None:
    os.mkfifo(folder / "model.fifo")
    text = PATHS[setting].format(fifo=folder / "model.fifo", folder=folder)
    (folder / "factdebate.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_settings(environ={})
    message = str(refused.value)
    assert "\n" not in message and f"sets {setting}," in message and "files to open or create" in message
    assert not (folder / "elsewhere").exists()
    load_settings(folder / "factdebate.yaml", environ={})  # named, the same file is trusted: no error


def test_shipped_models_are_no_paths(folder: Path) -> None:
    (folder / "factdebate.yaml").write_text("llm:\n  debater: llama-cpp:builtin-q4\n  roles: {judge: "
                                            "'llama-cpp:builtin'}\n", encoding="utf-8")
    assert load_settings(environ={}).llm.debater == "llama-cpp:builtin-q4"


def test_the_cli_refuses_a_found_fifo_model_without_opening_it(folder: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    os.mkfifo(folder / "model.fifo")
    (folder / "factdebate.yaml").write_text(f"llm:\n  debater: llama-cpp:{folder / 'model.fifo'}\n",
                                            encoding="utf-8")
    outcome: list[int] = []
    worker = threading.Thread(target=lambda: outcome.append(run(["verify", "The sky is blue."])), daemon=True)
    worker.start()
    worker.join(120)
    if worker.is_alive():  # code that opens the FIFO: a writer lets it go, then the test fails
        os.close(os.open(folder / "model.fifo", os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("verify opened the FIFO a found factdebate.yaml named as its model")
    assert outcome == [2]
    assert "sets llm.debater," in capsys.readouterr().err
