"""The commands as a user runs them against a Milvus server (``--milvus-uri``, tests/milvus_server.py):
index, verify, eval, doctor, and ``serve --workers 2``, whose two processes search one collection while
another process adds to it, which a Milvus Lite folder cannot allow."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.conftest import free_port
from tests.server.ops.test_serve_workers import _stop, _wait_until_up

EXE = str(Path(sys.executable).with_name("factdebate"))
DOCS = [
    {"id": "eiffel", "title": "Eiffel Tower", "text": "The Eiffel Tower is a wrought-iron lattice tower in Paris."},
    {"id": "colosseum", "title": "Colosseum", "text": "The Colosseum is an ancient amphitheatre in Rome."},
    {"id": "fuji", "title": "Mount Fuji", "text": "Mount Fuji is the highest mountain in Japan."},
]
SCRIPTED = ["--llm", "scripted:agree", "--no-cache", "--no-scoring", "-k", "1"]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory, onnx_model_file: Path) -> Path:
    """One data folder for the module's commands, with the int8 encoder already exported."""
    folder = tmp_path_factory.mktemp("data")
    (folder / "models").mkdir()
    shutil.copy(onnx_model_file, folder / "models")
    return folder


def run(data: Path, *args: str, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "FACTDEBATE_DATA_DIR": str(data), **(env or {})}
    return subprocess.run([EXE, *args], capture_output=True, text=True, env=full, cwd=cwd, timeout=180)


def write_docs(path: Path, docs: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    return path


def first_evidence(verdict: dict[str, Any]) -> list[str]:
    return [turn["evidence"][0]["title"] for turn in verdict["rounds"][0]["turns"]]


def test_index_verify_eval_and_doctor_against_the_server(milvus_server_uri: str, data: Path, tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "landmarks.jsonl", DOCS)
    first = run(data, "index", str(docs), "--corpus", "landmarks", "--milvus-uri", milvus_server_uri)
    assert first.returncode == 0, first.stderr
    assert "3 new in Milvus, 3 in the full-text index" in first.stderr

    verified = run(data, "verify", "The Eiffel Tower stands in Paris.", "--corpus", "landmarks", "--json",
                   "--milvus-uri", milvus_server_uri, *SCRIPTED)
    assert verified.returncode == 0, verified.stderr
    assert first_evidence(json.loads(verified.stdout)) == ["Eiffel Tower", "Eiffel Tower"]

    evaluated = run(data, "eval", "--dataset", "countries", "--limit", "2", "--output", "run", "--corpus", "landmarks",
                    "--milvus-uri", milvus_server_uri, *SCRIPTED, cwd=tmp_path)
    assert evaluated.returncode == 0, evaluated.stderr
    results = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert len(results) == 2 and all(r["rounds"][0]["turns"][0]["tool"] == "rag" for r in results)
    assert all(r["rounds"][0]["turns"][0]["evidence"] for r in results)  # the server answered every search

    env = {"FACTDEBATE_MILVUS_URI": milvus_server_uri, "FACTDEBATE_RETRIEVAL__CORPUS": "landmarks"}
    doctor = run(data, "doctor", env=env)
    assert doctor.returncode == 0, doctor.stdout
    assert "Milvus server: reachable, version v2.3.5" in doctor.stdout, doctor.stdout
    assert f"index rag 'landmarks': 3 passages in {milvus_server_uri}" in doctor.stdout
    down = run(data, "doctor", env={**env, "FACTDEBATE_MILVUS_URI": f"http://127.0.0.1:{free_port()}"})
    assert down.returncode == 1 and "Milvus server: cannot reach" in down.stdout, down.stdout


def test_two_service_processes_search_one_collection_while_another_process_adds_to_it(
        milvus_server_uri: str, data: Path, tmp_path: Path) -> None:
    built = run(data, "index", str(write_docs(tmp_path / "a.jsonl", DOCS)), "--corpus", "live",
                "--milvus-uri", milvus_server_uri, "--engines", "rag")
    assert built.returncode == 0, built.stderr
    port = free_port()
    config = tmp_path / "service.yaml"
    config.write_text("rate_limit_per_minute: 0\n", encoding="utf-8")
    server = subprocess.Popen(
        [EXE, "serve", "--no-auth", "--port", str(port), "--service-config", str(config), "--log-level", "warning",
         "--workers", "2", "--milvus-uri", milvus_server_uri, "--corpus", "live", "--agents", "rag,rag", *SCRIPTED],
        text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        env={**os.environ, "FACTDEBATE_DATA_DIR": str(data)})
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, server)
        assert set(_ask(url, "Mount Fuji is in Japan.", 4)) == {"Mount Fuji"}
        # while both service processes are up, another process writes to the same collection
        added = run(data, "index", str(write_docs(tmp_path / "b.jsonl", [
            {"id": "nile", "title": "Nile", "text": "The Nile is a major river flowing north through Egypt."}])),
            "--corpus", "live", "--milvus-uri", milvus_server_uri, "--engines", "rag")
        assert added.returncode == 0 and "1 new in Milvus" in added.stderr, added.stderr
        assert set(_ask(url, "The Nile flows through Egypt.", 6)) == {"Nile"}  # every process sees it at once
    finally:
        _stop(server)


def _ask(url: str, claim: str, times: int) -> list[str]:
    """The first passage each of ``times`` concurrent debates found (the two processes share them out)."""
    def one(_: int) -> list[str]:
        reply = httpx.post(f"{url}/v1/verify", json={"claim": claim}, timeout=60)
        assert reply.status_code == 200, reply.text
        return first_evidence(reply.json())

    with ThreadPoolExecutor(times) as pool:
        return [title for titles in pool.map(one, range(times)) for title in titles]
