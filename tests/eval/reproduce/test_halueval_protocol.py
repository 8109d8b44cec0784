"""The DPD paper's HaluEval row follows HaluEval's few-shot protocol: QA shows the question
and answer, dialogue the history and reply, and neither is given the sample's knowledge passage. The cell is
run as ``reproduce`` runs it (papers.toml's options through the evaluation runner, which hands a sample's
evidence to methods under ``--evidence given``); the same run with ``evidence = "given"`` is the control that
shows the knowledge would reach the prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.datasets import Dataset
from factdebate.eval.datasets.loader import load_dataset
from factdebate.eval.reproduce.differences import OFFLINE
from factdebate.eval.reproduce.spec import papers
from factdebate.eval.runner import execute, make_plan
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.run.build import build_resources
from factdebate.settings.load import load_settings
from factdebate.settings.options import Option
from tests.helpers import BagOfWordsEncoder, ScriptedBackend, StaticTool


async def prompts_of_the_row(dataset: str, tmp_path: Path, **extra: Any) -> tuple[list[str], Dataset]:
    run = papers()["dpd"].runs["halueval-fewshot"]
    options = {"method": run.method, **OFFLINE, **run.options, **extra}
    overrides = Option.overrides(options)
    overrides["llm"] = {**overrides.get("llm", {}), "cache": False}
    settings = load_settings(overrides=overrides, environ={})
    prompts: list[str] = []

    def reply(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        prompts.append(" ".join(str(m["content"]) for m in messages))
        return "Hallucination: No"

    full = load_dataset(dataset)
    data = Dataset(kind=full.kind, labels=full.labels, samples=full.samples[:3],
                   max_claim_chars=full.max_claim_chars, evidence=full.evidence)
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources = build_resources(settings, backends={"debater": ScriptedBackend(reply)},
                                tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)
    plan = make_plan(settings, data, tmp_path / "out", limit=None, seed=0, samples=data.samples)
    async with resources:
        await execute(plan, resources, progress=False)
    return [" ".join(p.split()) for p in prompts], data


def knowledge_of(sample: Any) -> str:
    return " ".join(str(sample.meta["knowledge"]).split())[:80]


@pytest.mark.parametrize("dataset", ["halueval-qa", "halueval-dialogue"])
async def test_qa_and_dialogue_prompts_carry_no_knowledge(dataset: str, tmp_path: Path) -> None:
    prompts, data = await prompts_of_the_row(dataset, tmp_path)
    assert len(prompts) == len(data.samples)
    for sample in data.samples:
        assert knowledge_of(sample)  # the records do have knowledge to leave out
        assert not [p for p in prompts if knowledge_of(sample) in p], (dataset, sample.id)
    assert "evidence" not in papers()["dpd"].runs["halueval-fewshot"].options


async def test_the_control_given_evidence_would_paste_the_knowledge(tmp_path: Path) -> None:
    prompts, data = await prompts_of_the_row("halueval-qa", tmp_path, evidence="given")
    assert all(any(knowledge_of(s) in p for p in prompts) for s in data.samples)
