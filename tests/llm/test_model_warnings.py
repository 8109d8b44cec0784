"""Every verdict (a claim's, a response's, a guard check's) names the model that decided it
and carries a caution with a code when that model is the embedded one or a script, in what each face gives:
the Python result, ``--json``, the terminal and MCP's tools (the page: tests/server/page/test_page_reason.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import factdebate
from factdebate.cli.main import run
from factdebate.core.types import ResponseVerdict, Verdict
from factdebate.llm.near_chance import model_warnings
from factdebate.server.mcp.tools import summarize, summarize_answer, summarize_response

OFFLINE: dict[str, Any] = {"method": "single", "llm": "scripted:agree", "search": "local", "cache": False}
SCRIPTED = {"code": "scripted_model", "model": "scripted:agree",
            "message": "scripted:agree is a script, not a model: its answers are written in advance, so this "
                       "verdict tests the pipeline, not the claim"}
CLI = ["--llm", "scripted:agree", "--method", "single", "--no-cache", "--no-scoring"]


def test_the_embedded_model_and_a_script_are_cautioned_and_a_served_model_is_not() -> None:
    found = [w.model_dump() for w in model_warnings(["openai:gpt-4o-mini", "llama-cpp:builtin", "scripted:agree"])]
    assert [(w["code"], w["model"]) for w in found] == [("embedded_model", "llama-cpp:builtin"),
                                                        ("scripted_model", "scripted:agree")]
    assert "near chance" in found[0]["message"] and "tests the pipeline, not the claim" in found[0]["message"]
    assert model_warnings(["openai:gpt-4o-mini"]) == []


def test_a_python_verdict_names_its_model_and_carries_the_scripts_caution() -> None:
    verdict = factdebate.verify("Paris is the capital of France.", **OFFLINE)
    assert list(verdict.usage_by_model) == ["scripted:agree"]
    assert [w.model_dump() for w in verdict.warnings] == [SCRIPTED]
    response = factdebate.check_response("Paris is the capital of France. Berlin is in Germany.", **OFFLINE)
    assert list(response.usage_by_model) == ["scripted:agree"]
    assert [(w.code, w.model) for w in response.warnings] == [("scripted_model", "scripted:agree")]
    assert response.warnings[0].message.endswith("not the claims")
    guarded = factdebate.guard("Paris is the capital of France.", evidence=["Paris is the capital of France."],
                               evidence_mode="given", tier="fast", deadline_s=30, **OFFLINE)
    assert guarded.claims and guarded.models == ["scripted:agree"]
    assert [(w.code, w.model) for w in guarded.warnings] == [("scripted_model", "scripted:agree")]


def test_a_record_written_before_the_codes_still_reads() -> None:
    """A kept verdict's plain-sentence warnings (MERMAID's memory write) are read as ``note``s."""
    verdict = Verdict.model_validate({"claim": "c", "method": "single", "label": "SUPPORTS", "decided_by": "single",
                                      "warnings": ["evidence memory not written: disk full"]})
    assert [w.model_dump() for w in verdict.warnings] == [
        {"code": "note", "message": "evidence memory not written: disk full", "model": None}]
    assert ResponseVerdict.model_validate({"response": "r", "method": "single", "label": None,
                                           "decided_by": "unparsed"}).warnings == []


def test_json_and_the_terminal_say_which_model_and_that_it_is_a_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["verify", "Paris is the capital of France.", "--json", *CLI]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["warnings"] == [SCRIPTED] and list(shown["usage_by_model"]) == ["scripted:agree"]
    assert run(["verify", "Paris is the capital of France.", "--brief", *CLI]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("decided by" in line and "· model scripted:agree" in line for line in lines), lines
    assert "note: " + SCRIPTED["message"] + "." in lines
    assert not [line for line in lines if line.startswith("warning:")], lines  # said once, as the note

    assert run(["check-response", "Paris is the capital of France.", "--json", *CLI]) == 0
    assert [w["code"] for w in json.loads(capsys.readouterr().out)["warnings"]] == ["scripted_model"]
    assert run(["check-response", "Paris is the capital of France.", *CLI]) == 0
    out = capsys.readouterr().out
    assert "· model scripted:agree" in out and "note: scripted:agree is a script, not a model" in out, out


def test_mcps_tools_name_the_model_and_carry_the_caution() -> None:
    verdict = factdebate.verify("Paris is the capital of France.", **OFFLINE)
    claim = summarize(verdict)
    assert claim["models"] == ["scripted:agree"] and claim["warnings"] == [SCRIPTED]
    response = summarize_response(factdebate.check_response("Paris is the capital of France.", **OFFLINE))
    assert response["models"] == ["scripted:agree"] and [w["code"] for w in response["warnings"]] == ["scripted_model"]
    guarded = factdebate.guard("Paris is the capital of France.", evidence=["Paris is the capital of France."],
                               evidence_mode="given", tier="fast", deadline_s=30, **OFFLINE)
    answer = summarize_answer(guarded)
    assert answer["models"] == ["scripted:agree"] and [w["code"] for w in answer["warnings"]] == ["scripted_model"]


def test_a_guard_check_says_the_question_and_the_method_it_was_read_with() -> None:
    """A chat reply's check reopened on the page showed Tool-MAD and an empty question; the
    result now says both, so the page's form can show them."""
    guarded = factdebate.guard("It is Paris.", question="What is the capital of France?",
                               evidence=["Paris is the capital of France."], evidence_mode="given", tier="fast",
                               deadline_s=30, **OFFLINE)
    assert guarded.question == "What is the capital of France?" and guarded.method == "single"
