"""The exit-code contract (0 all done, 1 some claims errored, 2 usage/config error) and one-line errors
instead of tracebacks, through the CLI entry point in-process."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from factdebate.cli.main import run
from tests.fake_openai import FakeOpenAI

NO_TOOLS = ["--llm", "scripted:agree", "--agents", "none,none", "--no-cache", "--no-scoring"]


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    text = captured.err + captured.out
    assert "Traceback" not in text, text
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
    assert "0 verified, 0 already done, 40 errors" in err  # an error is not a verdict (issue 50)
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
    each claim's error, and the exit code is verify's for claims in error (issue 40, item 1)."""
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
    """Issue 40, item 4: an opinion the extractor dropped is listed with its reason, in the table's output
    and in --json."""
    text = "Paris is the capital of France. I think Paris is lovely."
    assert run(["check-response", text, *NO_TOOLS, "--method", "single"]) == 0
    assert "not checked: opinion: I think Paris is lovely." in capsys.readouterr().out
    assert run(["check-response", text, "--json", *NO_TOOLS, "--method", "single"]) == 0
    unchecked = json.loads(capsys.readouterr().out)["unchecked"]
    assert unchecked == [{"span": {"start": 32, "end": len(text)}, "text": "I think Paris is lovely.",
                          "reason": "opinion", "note": None, "partly": False}]
