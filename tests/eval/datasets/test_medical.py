"""The medical setting: the scholarly search pipeline (keywords -> 3 abstracts -> summaries) and multiple
choice by checking every option."""

from __future__ import annotations

import json
from pathlib import Path

from factdebate.core.types import Document
from factdebate.eval.report.summary import latest_records
from factdebate.eval.runner import execute, make_plan
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.settings.load import load_settings
from factdebate.tools.openalex import OpenAlexTool
from factdebate.tools.scholar import ScholarPipeline, parse_keywords
from tests.eval.support import resources_for
from tests.helpers import StaticTool
from tests.paths import FIXTURES
from tests.recorded_http import RecordedServer, answer

ABSTRACTS = [Document(id=f"W{i}", title=f"Paper {i}", text=f"Long abstract {i}. " * 40) for i in range(5)]


def test_parse_keywords() -> None:
    assert parse_keywords("Keywords: vitamin C, common cold; zinc\nmore text") == "vitamin C common cold zinc"
    assert parse_keywords("   \n") is None


async def test_pipeline_extracts_keywords_fetches_three_abstracts_and_summarises() -> None:
    def reply(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        text = messages[0]["content"]
        if call.prompt == "medical_keywords":
            return "vitamin C, common cold"
        assert call.prompt == "medical_summary" and "Question: does vitamin C prevent colds" in text
        return "Summary of " + text.split("Title: ")[1].splitlines()[0]

    resources, backend, _ = resources_for(reply)
    inner = StaticTool("openalex", ABSTRACTS)
    tool = ScholarPipeline(inner, resources.debater)
    docs = await tool.search("does vitamin C prevent colds", k=5)
    assert inner.queries == ["vitamin C common cold"] and tool.name == "openalex+summary"
    assert [d.text for d in docs] == ["Summary of Paper 0", "Summary of Paper 1", "Summary of Paper 2"]
    assert [d.id for d in docs] == ["W0", "W1", "W2"]
    assert [info.prompt for info, _ in backend.calls].count("medical_summary") == 3


async def test_pipeline_falls_back_to_the_query_when_no_keywords() -> None:
    resources, _, _ = resources_for(lambda c, m, p: "" if c.prompt.startswith("medical_keywords") else "S.")
    inner = StaticTool("pubmed", ABSTRACTS)
    docs = await ScholarPipeline(inner, resources.debater, summarize=False).search("aspirin stroke", k=3)
    assert inner.queries == ["aspirin stroke"] and docs[0].text == ABSTRACTS[0].text


async def test_pipeline_over_the_real_openalex_client_on_a_recorded_response(recorded: RecordedServer) -> None:
    fixture = FIXTURES / "http" / "openalex_works.json"
    route = recorded.get("/works", answer(json=json.loads(fixture.read_text())))

    def reply(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        return "vitamin C, common cold" if call.prompt == "medical_keywords" else "Short summary."

    resources, _, _ = resources_for(reply)
    engine = OpenAlexTool(base_url=recorded.url, base_delay=0)
    docs = await ScholarPipeline(engine, resources.debater).search("Does vitamin C help?", 5)
    params = route.last.params
    assert params["search"] == "vitamin C common cold" and params["per-page"] == "3"
    assert [d.title for d in docs] == ["Vitamin C for preventing and treating the common cold",
                                       "Zinc lozenges and the duration of common cold symptoms"]
    assert all(d.text == "Short summary." for d in docs)


def medqa(tmp_path: Path) -> str:
    rows = [{"question": "Which drug causes ototoxicity?", "answer_idx": "D",
             "options": {"A": "Bortezomib", "B": "Paclitaxel", "C": "Bleomycin", "D": "Cisplatin"}},
            {"question": "Most common cause of X?", "answer_idx": "A",
             "options": {"A": "alpha", "B": "beta", "C": "gamma", "D": "delta"}}]
    path = tmp_path / "medqa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return f"medqa:{path}"


async def test_multiple_choice_checks_each_option_then_chooses(tmp_path: Path) -> None:
    def reply(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        text = messages[0]["content"]
        if call.prompt == "medical_choice":
            assert "(A) REFUTES" in text and "(B) SUPPORTS" in text
            return "Between B and C, the checks favour B.\n**B**"
        if any(f"correct answer is {option}" in text for option in ("(D) Cisplatin", "(B) beta", "(C) gamma")):
            return "Fits.\nSUPPORTS"
        return "Does not fit.\nREFUTES"

    settings = load_settings(overrides={"method": "cot", "llm": {"cache": False}}, environ={})
    plan = make_plan(settings, medqa(tmp_path), tmp_path / "run", limit=None, seed=0)
    resources, backend, _ = resources_for(reply, method="cot")
    summary = await execute(plan, resources, progress=False)
    records = latest_records(plan.output / "results.jsonl")
    first = records["0"]
    assert first["label"] == "D" and first["decided_by"] == "single-supported" and first["predicted"] == "D"
    assert set(first["option_verdicts"]) == {"A", "B", "C", "D"} and first["usage"]["llm_calls"] == 4
    second = records["1"]  # B and C both SUPPORTS: one judge call picks
    assert second["decided_by"] == "judge" and second["predicted"] == "B" and second["usage"]["llm_calls"] == 5
    assert summary["metrics"]["correct"] == 1 and summary["labels"] == ["A", "B", "C", "D"]
    assert [info.prompt for info, _ in backend.calls].count("medical_choice") == 1


async def test_multiple_choice_without_a_readable_pick_is_unparsed(tmp_path: Path) -> None:
    resources, _, _ = resources_for(lambda c, m, p: "unsure", method="single")
    settings = load_settings(overrides={"method": "single", "llm": {"cache": False}}, environ={})
    summary = await execute(make_plan(settings, medqa(tmp_path), tmp_path / "run", limit=1, seed=0), resources,
                            progress=False)
    assert summary["metrics"]["correct"] == 0 and len(summary["metrics"]["unparsed"]) == 1
