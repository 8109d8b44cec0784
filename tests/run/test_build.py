"""Every entry point that searches the builtin corpus builds its missing indexes first: batch runs,
``eval``, ``serve``, ``mcp`` and the Python API, each against an empty data folder (the builtin corpus
cut to a few dozen articles, the scripted model)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.run.build import builtin_engines
from factdebate.settings.load import settings_from
from tests.corpus.test_builtin_index import DOCS, EXE, fresh_env, markers, onnx_model  # noqa: F401  (fixture)
from tests.readiness import wait_until_ready

if importlib.util.find_spec("sentence_transformers") is None:  # not imported: torch costs seconds at collection
    pytest.skip("needs sentence-transformers (extra 'retrieval')", allow_module_level=True)


def both_built(data: Path) -> None:
    built = markers(data)
    assert built["local:builtin"]["entries"] == DOCS
    assert built["rag:builtin:<data>/milvus.db"]["entries"] == DOCS


@pytest.mark.parametrize(("options", "engines"), [
    ({}, ["local", "rag"]),
    ({"agents": ["rag", "none"]}, ["rag"]),
    ({"agents": ["search", "none"]}, ["local"]),
    ({"search": "wikipedia"}, ["rag"]),
    ({"corpus": "mine"}, []),
    ({"method": "cot"}, []),
    ({"method": "react"}, ["rag"]),
    ({"agents": ["none", "none"]}, []),
    ({"evidence": "given"}, []),
    ({"method": "wecheck"}, ["local"]),
    # MERMAID searches through the tool servers it starts: offline Wikipedia fuses BM25 and dense rankings.
    ({"method": "mermaid"}, ["local", "rag"]),
    ({"method": "mermaid", "evidence": "given"}, ["local", "rag"]),  # its servers still search
    ({"method": "mermaid", "mermaid_servers": ["search"]}, ["local"]),
    ({"method": "mermaid", "mermaid_wikipedia_online": True}, ["local"]),
    ({"method": "mermaid", "mermaid_servers": ["scholar"]}, []),
])
def test_the_engines_built_are_the_ones_the_method_searches(options: dict[str, Any], engines: list[str]) -> None:
    assert builtin_engines(settings_from(options)) == engines


def test_batch_run(tmp_path: Path, onnx_model: Path) -> None:  # noqa: F811
    data = tmp_path / "data"
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"id": "a", "claim": "Paris is in France."}\n{"id": "b", "claim": "Rome is in Peru."}\n')
    out = tmp_path / "out.jsonl"
    result = subprocess.run([EXE, "verify", "--input", str(claims), "--output", str(out), "--llm", "scripted:agree"],
                            capture_output=True, text=True, env=fresh_env(data, onnx_model), timeout=600)
    assert result.returncode == 0, result.stderr
    assert len(out.read_text().splitlines()) == 2
    both_built(data)


def test_eval(tmp_path: Path, onnx_model: Path) -> None:  # noqa: F811
    data = tmp_path / "data"
    result = subprocess.run([EXE, "eval", "--dataset", "countries", "--limit", "2", "--llm", "scripted:agree",
                             "--output", str(tmp_path / "run")], capture_output=True, text=True,
                            env=fresh_env(data, onnx_model), timeout=600)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["metrics"]["n"] == 2
    both_built(data)


@pytest.mark.parametrize(("method", "local"), [
    (["--method", "cot"], False),
    (["--method", "tool-mad", "--agents", "none,none"], False),
    (["--method", "mermaid", "--mermaid-servers", "search"], True),
])
def test_eval_of_a_method_without_rag_opens_no_milvus(tmp_path: Path, method: list[str], local: bool,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Tool-MAD's run above builds both; these search no dense index, so no Milvus file is even created.
    Run in this process (factdebate.cli.main.run: the console script's start is the runs above; MERMAID's tool
    server is its own process still)."""
    from factdebate.cli.main import run

    data = tmp_path / "data"
    for name, value in fresh_env(data).items():
        monkeypatch.setenv(name, value)
    assert run(["eval", "--dataset", "countries", "--limit", "1", "--llm", "scripted:agree", *method,
                "--output", str(tmp_path / "run")]) == 0, capsys.readouterr().err
    metrics = json.loads((tmp_path / "run" / "summary.json").read_text())["metrics"]
    assert metrics["n"] == 1 and metrics["errored"] == {}
    assert not (data / "milvus.db").exists()
    built = markers(data) if (data / "indexed.json").exists() else {}
    assert not any(key.startswith("rag:") for key in built)
    assert ("local:builtin" in built) == local


@pytest.mark.parametrize("mode", ["full_text", "wait"])
def test_python_api(tmp_path: Path, onnx_model: Path, mode: str) -> None:  # noqa: F811
    """``full_text`` (the default): the verdict comes on the full-text index and says so, the vectors were begun
    in the background; ``wait``: both indexes first, and the verdict searched the vectors."""
    data = tmp_path / "data"
    code = ("import factdebate as fd; v = fd.verify('The Eiffel Tower is located in Rome.', llm='scripted:agree');"
            "print(v.label, *(d.key for d in v.deviations))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=fresh_env(data, onnx_model, FACTDEBATE_RETRIEVAL__WHILE_INDEXING=mode), timeout=600)
    assert result.returncode == 0, result.stderr
    label, *deviations = result.stdout.split()
    assert label in ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
    assert ("rag_full_text" in deviations) == (mode == "full_text"), deviations
    if mode == "wait":
        both_built(data)
    else:
        assert markers(data)["local:builtin"]["entries"] == DOCS
        assert "in the background" in result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_builds_the_full_text_index_before_it_listens_and_the_vectors_behind_it(
        tmp_path: Path, onnx_model: Path) -> None:  # noqa: F811
    data = tmp_path / "data"
    port = _free_port()
    env = fresh_env(data, onnx_model, FACTDEBATE_LLM="scripted:agree")
    proc = subprocess.Popen([EXE, "serve", "--no-auth", "--port", str(port), "--db", str(tmp_path / "b.sqlite")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    def healthy() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        # It builds the full-text index before it listens, the vectors behind it: by its state, not a clock (the
        # output read once it ended)
        wait_until_ready(healthy, proc, "factdebate serve", every_s=0.5,
                         log=lambda: proc.stdout.read() if proc.stdout and proc.poll() is not None else "")
        assert markers(data)["local:builtin"]["entries"] == DOCS  # already there when the first request is answered
        verdict = httpx.post(f"http://127.0.0.1:{port}/v1/verify", json={"claim": "Paris is in France."},
                             timeout=120).json()
        assert verdict["label"] == "SUPPORTS"
        deadline = time.monotonic() + 300
        while "rag:builtin:<data>/milvus.db" not in markers(data):
            assert time.monotonic() < deadline and proc.poll() is None, "the vectors were never built"
            time.sleep(0.5)
        both_built(data)
        # Searched once the child let go of the file: a later verdict says nothing of the full-text index.
        while True:
            later = httpx.post(f"http://127.0.0.1:{port}/v1/verify", json={"claim": "Paris is in France."},
                               timeout=120).json()
            if "rag_full_text" not in {d["key"] for d in later["deviations"]} or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert later["label"] == "SUPPORTS"
        assert "rag_full_text" not in {d["key"] for d in later["deviations"]}, later["deviations"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


async def test_mcp_server(tmp_path: Path, onnx_model: Path) -> None:  # noqa: F811
    """``factdebate mcp`` on an empty data folder builds both indexes behind its handshake (4-13 s here: what it
    tests is that build, in its own process, so no built folder is shared in)."""
    mcp = pytest.importorskip("mcp")
    data = tmp_path / "data"
    env = fresh_env(data, onnx_model, FACTDEBATE_LLM="scripted:agree")
    params = mcp.StdioServerParameters(command=EXE, args=["mcp"], env=env)
    client = mcp.stdio_client(params, errlog=sys.__stderr__)  # stderr as it is now, not at mcp's import
    async with client as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()  # answered at once: the index is prepared in the background
        deadline = time.monotonic() + 300
        while True:  # the tools say so until it is ready
            result = await session.call_tool("search_evidence", {"query": "Alhambra palace", "k": 2})
            preparing = result.is_error and "being prepared" in str(result.content)
            if not preparing or time.monotonic() > deadline:
                break
            await asyncio.sleep(1)
        assert not result.is_error, result.content
        # The full-text index answers at once; the vectors go on building behind it, and once built the server
        # opens their search, saying until then that the answer is the full-text index's (a loaded machine takes
        # seconds past the build's marker to open it).
        while "rag:builtin:<data>/milvus.db" not in markers(data) and time.monotonic() < deadline:
            await asyncio.sleep(1)
        while True:
            result = await session.call_tool("search_evidence", {"query": "Alhambra palace", "k": 2, "tool": "rag"})
            assert not result.is_error, result.content
            if "full-text index" not in str(result.content) or time.monotonic() > deadline:
                break
            await asyncio.sleep(1)
        assert "full-text index" not in str(result.content), result.content  # the vector search itself now
    both_built(data)


def test_serve_on_a_folder_already_indexed_prints_no_indexing_line(tmp_path: Path, onnx_model: Path) -> None:  # noqa: F811
    """The folder is indexed by the CLI under a relative name, then served under its absolute one: the
    same index, so ``serve`` starts without announcing minutes of indexing."""
    data = tmp_path / "data"
    env = fresh_env(data, onnx_model, FACTDEBATE_LLM="scripted:agree")
    built = subprocess.run([EXE, "index", "--builtin"], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                           env={**env, "FACTDEBATE_DATA_DIR": "data"})
    assert built.returncode == 0 and "indexing the built-in corpus" in built.stderr, built.stderr
    serve = [EXE, "serve", "--no-auth", "--port", str(_free_port()), "--db", str(tmp_path / "b.sqlite")]
    proc = subprocess.Popen(serve, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert proc.stdout is not None
        before: list[str] = []
        for line in proc.stdout:  # everything up to the line that says it listens
            if line.startswith("factdebate serving on"):
                break
            before.append(line)
        else:
            pytest.fail("serve ended before it listened: " + "".join(before))
        assert not any("indexing" in line for line in before), before
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    both_built(data)
