"""The exit-code contract (0 all done, 1 some claims errored, 2 usage/config error) and one-line errors
instead of tracebacks, through the CLI entry point in-process; command-line mistakes (flags, paths) each get one
line naming the flag and the path, exit 2, nothing written and no model called."""

from __future__ import annotations

import gzip
import io
import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from factdebate.cli.main import run
from factdebate.memory import Evidence, EvidenceMemory
from tests.fake_openai import FakeOpenAI

NO_TOOLS = ["--llm", "scripted:agree", "--agents", "none,none", "--no-cache", "--no-scoring"]
BARE_DEBATE = ["--agents", "none,none", "--no-cache", "--no-scoring"]  # the model named by each test


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    text = captured.err + captured.out
    assert "Traceback" not in text and "internal error" not in text, text
    return code, captured.err


def write_lines(path: Path, rows: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_batch_where_every_claim_fails_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    claims = write_lines(tmp_path / "c.jsonl", [{"id": str(i), "claim": f"Claim {i}."} for i in range(40)])
    out = tmp_path / "out.jsonl"
    with FakeOpenAI(failures=[(400, None)] * 200) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code, err = call(capsys, "verify", "--input", str(claims), "--output", str(out), "--llm", "openai:x",
                         "--agents", "none,none", "--no-cache", "--no-scoring")
    assert code == 1, err
    assert "0 verified, 0 already done, 40 errors" in err  # an error is not a verdict
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 40 and all(r["error"] for r in records)


def test_batch_where_every_claim_succeeds_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims = write_lines(tmp_path / "c.jsonl", [{"claim": "Paris is in France."}])
    code, err = call(capsys, "verify", "--input", str(claims), "--output", str(tmp_path / "o.jsonl"), *NO_TOOLS)
    assert code == 0, err


@pytest.mark.parametrize(("args", "needle"), [
    (["verify", "claim", "--no-such-option"], "No such option"),
    (["verify", "claim", "--rounds", "abc"], "Invalid value for '--rounds'"),
    (["frobnicate"], "No such command"),
    (["report", "--output", "x"], "Missing argument"),
    (["eval", "--dataset", "countries", "--output", "x", "--limit", "-1"], "--limit"),
    (["eval", "--dataset", "countries", "--output", "x", "--limit", "0"], "--limit"),
])
def test_usage_errors_print_one_line_and_a_hint_and_exit_2(args: list[str], needle: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, *args)
    assert code == 2
    assert needle in err and "--help" in err
    assert len([line for line in err.splitlines() if line.strip()]) <= 3, err


def test_binary_claim_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    # What Python makes of undecodable argv bytes (surrogateescape).
    claim = b"Paris \xff\xfe is big".decode("utf-8", "surrogateescape")
    code, err = call(capsys, "verify", claim, *NO_TOOLS)
    assert code == 2 and "not valid text" in err


@pytest.mark.parametrize("content", [b"\x00\x01\x02binary\x00", "Paris é".encode("latin-1")])
def test_binary_or_non_utf8_input_is_a_clear_error(content: bytes, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    claims = tmp_path / "c.jsonl"
    claims.write_bytes(content)
    code, err = call(capsys, "verify", "--input", str(claims), "--output", str(tmp_path / "o.jsonl"), *NO_TOOLS)
    assert code == 2 and ("binary" in err or "not UTF-8" in err), err


def test_output_that_is_a_directory_or_the_input_is_refused(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    claims = write_lines(tmp_path / "c.jsonl", [{"claim": "Paris is in France."}])
    code, err = call(capsys, "verify", "--input", str(claims), "--output", str(tmp_path), *NO_TOOLS)
    assert code == 2 and "is a directory" in err
    code, err = call(capsys, "verify", "--input", str(claims), "--output", str(claims), *NO_TOOLS)
    assert code == 2 and "is the input file" in err
    assert claims.read_text().count("\n") == 1  # the input is untouched


def test_dataset_path_that_is_a_directory_is_a_clear_error(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, "eval", "--dataset", f"fever:{tmp_path}", "--output", str(tmp_path / "run"),
                     "--dry-run", *NO_TOOLS[:2])
    assert code == 2 and "is a directory" in err


def test_gzipped_dataset_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "fever.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"id": 1, "claim": "A.", "label": "SUPPORTS"}\n'))
    code, err = call(capsys, "eval", "--dataset", f"fever:{path}", "--output", str(tmp_path / "run"), "--dry-run")
    assert code == 0 and "loaded 1 sample" in err, err


def test_invalid_yaml_in_an_environment_variable_is_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("FACTDEBATE_METHODS__TOOL_MAD__ROUNDS", "[")
    code, err = call(capsys, "verify", "claim", *NO_TOOLS)
    assert code == 2 and "FACTDEBATE_METHODS__TOOL_MAD__ROUNDS" in err


@pytest.mark.parametrize("name", ["x" * 300, "   ", "a b"])
def test_bad_corpus_names_are_clear_errors(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = write_lines(tmp_path / "d.jsonl", [{"id": "1", "title": "T", "text": "Some text."}])
    code, err = call(capsys, "index", str(docs), "--corpus", name, "--engines", "local")
    assert code == 2 and "corpus name" in err
    code, err = call(capsys, "verify", "claim", "--corpus", name, *NO_TOOLS)
    assert code == 2 and "corpus" in err


def test_check_response_where_every_claim_fails_exits_1(capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The extraction is answered, then the model server fails every claim: the JSON still comes out, with
    each claim's error, and the exit code is verify's for claims in error."""
    claims = '{"claims": ["Paris is the capital of France.", "The Louvre is in Paris."]}'
    with FakeOpenAI(reply=claims, fault=lambda number: None if number == 1 else (400, None)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code = run(["check-response", "Paris is the capital of France. The Louvre is in Paris.", "--json",
                    "--llm", "openai:x", "--method", "single", "--no-cache", "--no-scoring"])
    out = capsys.readouterr().out
    verdict = json.loads(out)
    assert len(verdict["claims"]) == 2 and all(c["error"] for c in verdict["claims"]), verdict["claims"]
    assert code == 1


def test_check_response_where_every_claim_has_a_verdict_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["check-response", "Paris is the capital of France.", "--json", *NO_TOOLS])
    assert not json.loads(capsys.readouterr().out)["claims"][0]["error"]
    assert code == 0


def test_check_response_names_the_sentences_it_did_not_check(capsys: pytest.CaptureFixture[str]) -> None:
    """An opinion the extractor dropped is listed with its reason, in the table's output
    and in --json."""
    text = "Paris is the capital of France. I think Paris is lovely."
    assert run(["check-response", text, *NO_TOOLS, "--method", "single"]) == 0
    assert "not checked: opinion: I think Paris is lovely." in capsys.readouterr().out
    assert run(["check-response", text, "--json", *NO_TOOLS, "--method", "single"]) == 0
    unchecked = json.loads(capsys.readouterr().out)["unchecked"]
    assert unchecked == [{"span": {"start": 32, "end": len(text)}, "text": "I think Paris is lovely.",
                          "reason": "opinion", "note": None, "partly": False}]


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture
def memory_file(tmp_path: Path) -> Path:
    path = tmp_path / "memory.sqlite"
    EvidenceMemory(path).update("Honey", [Evidence(text="Honey keeps for millennia.", source="s", tool="search_web")])
    return path


@pytest.mark.parametrize(("answer", "code", "needle"), [("n\n", 0, "cancelled"), ("", 2, "--yes")])
def test_memory_clear_declined_exits_0_and_at_end_of_input_exits_2_clearing_nothing(
        answer: str, code: int, needle: str, memory_file: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """"n" is a choice carried out; no answer at all is a script that forgot --yes."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(answer))
    found, err = call(capsys, "memory", "clear", "--memory-path", str(memory_file))
    assert found == code, err
    assert "nothing cleared" in err and needle in err
    assert len(EvidenceMemory(memory_file).entities()) == 1  # the record is still there


def test_memory_export_to_a_directory_is_refused(memory_file: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, "memory", "export", "--memory-path", str(memory_file), "-o", str(tmp_path))
    assert code == 2 and "--output" in err and "is a directory" in err, err
    assert len(lines(err)) == 1


def test_memory_path_that_is_a_directory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, "memory", "ls", "--memory-path", str(tmp_path))
    assert code == 2 and "--memory-path" in err and "is a directory" in err, err
    assert len(lines(err)) == 1


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        yield server


@pytest.mark.parametrize("where", ["directory", "missing folder"])
@pytest.mark.parametrize("command", ["verify", "batch", "check-response"])
def test_trace_path_is_checked_before_any_model_call(where: str, command: str, tmp_path: Path,
                                                     fake_model: FakeOpenAI,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path if where == "directory" else tmp_path / "no-such-folder" / "trace.jsonl"
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"claim": "Paris is in France."}\n', encoding="utf-8")
    args = {"verify": ["verify", "Paris is in France."],
            "batch": ["verify", "--input", str(claims), "--output", str(tmp_path / "out.jsonl")],
            "check-response": ["check-response", "Paris is in France."]}[command]
    code, err = call(capsys, *args, "--trace", str(trace), "--llm", "openai:x", *BARE_DEBATE)
    assert code == 2, err
    assert "--trace" in err and ("is a directory" if where == "directory" else "no such folder") in err, err
    assert len(lines(err)) == 1
    assert fake_model.requests == []  # refused before the model was asked anything
    assert not (tmp_path / "out.jsonl").exists()


def test_check_response_file_that_is_a_directory_says_so(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, "check-response", "--file", str(tmp_path), "--llm", "scripted:agree")
    assert code == 2 and "is a directory" in err and "no such file" not in err, err


def test_verify_output_without_input_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.jsonl"
    code, err = call(capsys, "verify", "--output", str(out), "Paris is in France.", "--llm", "scripted:agree",
                     *BARE_DEBATE)
    assert code == 2 and "--output" in err and "--input" in err, err
    assert not out.exists()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_on_a_busy_port_is_one_line_and_exit_2(workers: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    started: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: started.append(kwargs))
    monkeypatch.setenv("FACTDEBATE_METHODS__TOOL_MAD__AGENTS", "[none, none]")  # no builtin index to build at start-up
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, err = call(capsys, "serve", "--no-auth", "--port", str(port), "--workers", workers,
                         "--db", str(tmp_path / "db.sqlite"))
    assert code == 2 and f"127.0.0.1:{port}" in err and "in use" in err, err
    assert len(lines(err)) == 1
    assert started == []  # uvicorn never ran


def test_index_of_an_empty_file_says_nothing_was_indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    code, err = call(capsys, "index", str(empty), "--engines", "local", "--corpus", "nothing")
    assert code == 1 and "nothing was indexed" in err and str(empty) in err, err
    assert "indexed 0 documents" not in err


def test_memory_clear_interrupted_at_the_question_is_an_interruption(memory_file: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    class CtrlC(io.StringIO):
        def readline(self, *args: Any) -> str:
            raise KeyboardInterrupt

    monkeypatch.setattr(sys, "stdin", CtrlC())
    code, err = call(capsys, "memory", "clear", "--memory-path", str(memory_file))
    assert code == 130 and err.splitlines()[-2:] == ["nothing cleared", "interrupted"], err
    assert len(EvidenceMemory(memory_file).entities()) == 1


def test_serve_on_a_port_out_of_range_is_refused_before_start_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    started: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: started.append(kwargs))
    monkeypatch.setenv("FACTDEBATE_METHODS__TOOL_MAD__AGENTS", "[none, none]")
    code, err = call(capsys, "serve", "--no-auth", "--port", "70000", "--db", str(tmp_path / "db.sqlite"))
    assert code == 2 and "--port 70000 is not a TCP port" in err, err
    assert started == []
