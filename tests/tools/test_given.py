"""Dataset-provided evidence (``--evidence given|retrieved|both``): each loader declares what it provides,
the given-evidence tool serves the sample's own evidence to any method's agents (top-k by similarity when
there are many passages), tool-less methods read it in the claim, and summary.json records what was used."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factdebate.api import averify
from factdebate.core.types import Document
from factdebate.eval.datasets.loader import load_dataset
from factdebate.eval.runner import execute, make_plan
from factdebate.settings.load import load_settings
from factdebate.tools.given import GivenEvidenceTool, given_evidence, top_k
from factdebate.util.errors import InputError
from tests.eval.support import first_records, truthful
from tests.helpers import BagOfWordsEncoder, StaticTool, resources_for
from tests.paths import SHARED as SHARED_DIR

SHARED = SHARED_DIR / "datasets"


def prompts_with(backend: Any, text: str) -> list[str]:
    return [info.prompt for info, messages in backend.calls if any(text in m["content"] for m in messages)]


def searching(call: Any, messages: Any, params: Any) -> str:
    """``truthful``, except that ReAct searches once before it finishes."""
    if call.prompt == "react_step" and "Observation:" not in messages[0]["content"]:
        return "Thought: I should look it up.\nAction: search[the answer]"
    return truthful(call, messages, params)


async def run_halueval(tmp_path: Path, method: str, evidence: str) -> tuple[dict[str, Any], Any, Any]:
    settings = load_settings(overrides={"method": method, "llm": {"cache": False},
                                        "retrieval": {"evidence": evidence}}, environ={})
    plan = make_plan(settings, "halueval-qa", tmp_path / f"{method}-{evidence}", limit=1, seed=3)
    resources, backend, tools = resources_for(searching, method=method, retrieval={"evidence": evidence})
    summary = await execute(plan, resources, progress=False)
    return summary, backend, (plan.samples[0], tools)


@pytest.mark.parametrize("method", ["tool-mad", "react", "madke"])
async def test_halueval_knowledge_reaches_the_agents_prompt(tmp_path: Path, method: str) -> None:
    summary, backend, (sample, tools) = await run_halueval(tmp_path, method, "given")
    knowledge = sample.meta["knowledge"]
    assert knowledge and prompts_with(backend, knowledge[:80])  # an agent read the knowledge
    assert all(not tool.queries for tool in tools.values())  # no engine was searched
    assert summary["evidence"] == {"used": "given", "provided": "knowledge"}
    record = json.loads((tmp_path / f"{method}-given" / "results.jsonl").read_text().splitlines()[0])
    used = [d for r in record["rounds"] for t in r["turns"] for d in t["evidence"] + [e for s in t["steps"]
                                                                                     for e in s["evidence"]]]
    assert used and all(d["source"] == "dataset" for d in used)


async def test_retrieved_evidence_leaves_the_knowledge_out(tmp_path: Path) -> None:
    summary, backend, (sample, tools) = await run_halueval(tmp_path, "tool-mad", "retrieved")
    assert not prompts_with(backend, sample.meta["knowledge"][:80])
    assert tools["rag"].queries and summary["evidence"]["used"] == "retrieved"


@pytest.mark.parametrize("method", ["single", "cot", "vote", "mad"])
async def test_methods_without_tools_read_the_evidence_in_the_claim(tmp_path: Path, method: str) -> None:
    _, backend, (sample, _) = await run_halueval(tmp_path, method, "given")
    assert prompts_with(backend, sample.meta["knowledge"][:80])
    record = json.loads((tmp_path / f"{method}-given" / "results.jsonl").read_text().splitlines()[0])
    assert record["claim"] == sample.claim  # the verdict names the claim, not the claim plus evidence


async def test_both_gives_the_sample_evidence_then_the_engine() -> None:
    engine = StaticTool("local")
    tool = GivenEvidenceTool("search", BagOfWordsEncoder, inner=engine)
    with given_evidence([Document(id="g1", title="given", text="Lyon is in France.", source="dataset")]):
        found = await tool.search("Lyon", 3)
    assert [d.id for d in found] == ["g1", "local-1"] and engine.queries == ["Lyon"]
    assert tool.name == "given+local"
    assert await GivenEvidenceTool("rag", BagOfWordsEncoder).search("Lyon", 3) == []  # nothing given


async def test_many_passages_are_ranked_by_similarity_to_the_query() -> None:
    docs = [Document(id=str(i), title="s", text=text) for i, text in
            enumerate(["The cat sat.", "Paris is the capital of France.", "Rain fell.", "France borders Spain."])]
    best = await top_k("capital of France", docs, 2, BagOfWordsEncoder())
    assert [d.id for d in best] == ["1", "3"] and best[0].score >= best[1].score
    assert await top_k("x", docs[:2], 3, BagOfWordsEncoder()) == docs[:2]  # all fit: all, in order


def test_summarization_evidence_is_the_document_sentence_by_sentence(tmp_path: Path) -> None:
    # The sets' first records, read by their own loaders: the same first samples as the whole sets'.
    sample = first_records("halueval-summarization", tmp_path).samples[0]
    sentences = sample.meta["evidence"]
    assert len(sentences) > 3 and all(s["text"] in sample.claim for s in sentences[:3])
    dialogue = first_records("halueval-dialogue", tmp_path).samples[0].meta["evidence"]
    assert [d["title"] for d in dialogue] == ["dialogue history", "knowledge"]


def test_a_dataset_without_evidence_refuses_given(tmp_path: Path) -> None:
    path = tmp_path / "claims.jsonl"
    path.write_text(json.dumps({"id": "1", "claim": "Paris is in France.", "label": "SUPPORTS"}) + "\n")
    settings = load_settings(overrides={"retrieval": {"evidence": "given"}}, environ={})
    with pytest.raises(InputError, match="provides no evidence"):
        make_plan(settings, f"fever:{path}", tmp_path / "run", limit=None, seed=1)


def test_loaders_declare_their_evidence(tmp_path: Path) -> None:
    pubmed = tmp_path / "pubmed.json"
    pubmed.write_text(json.dumps({"1": {"QUESTION": "Does X help?", "final_decision": "yes",
                                        "CONTEXTS": ["X helped mice.", "X failed in rats."],
                                        "LABELS": ["RESULTS", "METHODS"]}}))
    dataset = load_dataset(f"pubmedqa:{pubmed}")
    assert dataset.evidence and dataset.samples[0].meta["evidence"][1] == {"title": "METHODS",
                                                                         "text": "X failed in rats."}
    claims = tmp_path / "claims_dev.jsonl"
    claims.write_text(json.dumps({"id": 1, "claim": "X cures Y.", "cited_doc_ids": [7],
                                  "evidence": {"7": [{"label": "SUPPORT", "sentences": [0]}]}}) + "\n")
    assert load_dataset(f"scifact:{claims}").evidence == ""  # no corpus beside it
    (tmp_path / "corpus.jsonl").write_text(json.dumps({"doc_id": 7, "title": "On X", "abstract": ["X cures Y.",
                                                                                                   "Done."]}) + "\n")
    scifact = load_dataset(f"scifact:{claims}")
    assert scifact.evidence and scifact.samples[0].meta["evidence"][0]["text"] == "X cures Y. Done."


@pytest.mark.skipif(not SHARED.exists(), reason="the shared benchmark samples are not on this machine")
def test_feverous_s_gold_evidence() -> None:
    dataset = load_dataset(f"feverous:{SHARED / 'feverous' / 'programfc_feverous_s_dev.json'}")
    first = dataset.samples[0].meta["evidence"]
    assert dataset.evidence and first and "[[" not in first[0]["text"] and first[0]["title"]


async def test_verify_takes_evidence_and_refuses_given_without_it() -> None:
    from factdebate.llm.scripted import ScriptedBackend

    backend = ScriptedBackend(truthful)
    verdict = await averify("Lyon is in France.", method="single", evidence=["Lyon is a city in France."],
                            evidence_mode="given", backends={"debater": backend}, cache=False)
    assert verdict.claim == "Lyon is in France." and verdict.config["retrieval"]["evidence"] == "given"
    assert "Lyon is a city in France." in backend.calls[0][1][0]["content"]
    with pytest.raises(InputError, match="no evidence came with this claim"):
        await averify("Lyon is in France.", method="single", evidence_mode="given", backends={"debater": backend},
                      cache=False)
