"""Command-line mistakes of hardening round 3 (issue 18, item 10): each gets one line naming the flag and the
path, the exit code of the contract (2: usage, nothing done), and no traceback; nothing is written and no
model is called."""

from __future__ import annotations

import io
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from factdebate.cli.main import run
from factdebate.memory import Evidence, EvidenceMemory
from tests.fake_openai import FakeOpenAI

NO_TOOLS = ["--agents", "none,none", "--no-cache", "--no-scoring"]


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    text = captured.err + captured.out
    assert "Traceback" not in text and "internal error" not in text, text
    return code, captured.err


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
    code, err = call(capsys, *args, "--trace", str(trace), "--llm", "openai:x", *NO_TOOLS)
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
                     *NO_TOOLS)
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
