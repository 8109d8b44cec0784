"""Shared doubles for the evaluation tests: a responder that answers every prompt of every method, and the
first records of a built-in HaluEval set. The resource builder is tests.helpers.resources_for (one builder for
the whole suite)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path

from factdebate.eval.datasets import Dataset
from factdebate.eval.datasets.builtin_data import halueval_dialogue, halueval_file, halueval_qa, halueval_summarization
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from tests.helpers import resources_for

__all__ = ["claim_of", "first_records", "prompts", "resources_for", "truthful"]

Responder = Callable[[CallInfo, list[Message], GenParams], str]
_CLAIM = re.compile(r"^Claim: (.*)$", re.M)


def claim_of(messages: list[Message]) -> str:
    match = _CLAIM.search(messages[0]["content"])
    return match.group(1).strip() if match else ""


def prompts(backend: ScriptedBackend) -> list[tuple[str, str, int]]:
    return [(info.prompt, info.agent, info.round) for info, _ in backend.calls]


def truthful(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    """Answers every prompt of every method in its requested format: claims containing "Paris" or
    "true" are SUPPORTS, others REFUTES. Scorers are fully supportive, so Tool-MAD agrees at once."""
    text = messages[-1]["content"] if call.prompt.endswith("reask") else messages[0]["content"]
    claim = claim_of(messages) or text
    label = "SUPPORTS" if ("Paris" in claim or " true" in claim) else "REFUTES"
    prompt = call.prompt.split(":")[0]
    if prompt == "faithfulness_statements":
        return "1. A statement about the claim."
    if prompt == "faithfulness_verdicts":
        return "1: yes"
    if prompt == "relevance_questions":  # the answer's first line is the claim itself: relevance 1
        answer = text.split("Answer:", 1)[-1].strip().splitlines()[0]
        return "\n".join(f"{i}. {answer}" for i in (1, 2, 3))
    if prompt == "query_select":
        return f"[{claim}]"
    if prompt == "react_step":
        return f"Thought: I know it.\nAction: finish[{label}]"
    if prompt == "mad_moderator":
        return f"Preference: yes\nReason: clear.\n{label}"
    if prompt == "dpd_queries":
        return json.dumps({"support": claim[:40], "refute": claim[:40]})
    if prompt == "dpd_judge":
        vote = "affirmative" if label == "SUPPORTS" else "negative"
        side = '{"evidence": 0.8, "logic": 0.8, "neutrality": 0.8, "persuasiveness": 0.8}'
        return f'{{"why": "clear", "affirmative": {side}, "negative": {side}, "vote": "{vote}", "confidence": 0.9}}'
    if prompt == "medical_choice":
        return "Option B fits best.\nB"
    if prompt == "claims_extract":  # the text to split is the one claim
        return json.dumps({"claims": [text.split("Text:\n", 1)[-1].split("\n\nReply with", 1)[0].strip()]})
    if prompt == "factool_queries":
        return json.dumps({"queries": [claim]})
    if prompt == "factool_verify":
        return json.dumps({"reasoning": "The evidence agrees.", "factual": label == "SUPPORTS"})
    if prompt in ("halueval_fewshot", "selfcheck_consistency"):  # yes/no: "hallucinated?", "supported?"
        return "Yes" if (label == "SUPPORTS") == (prompt == "selfcheck_consistency") else "No"
    return f"{claim}\n{label}"


def first_records(name: str, tmp_path: Path, lines: int = 20) -> Dataset:
    """The built-in HaluEval set ``name`` read by its own loader from its file's first ``lines`` records: the
    same first samples, ids and labels as the whole set (its draw of the right or hallucinated output is seeded
    line by line), without reading all 10,000 (0.8 CPU-s for the summarisation set, each time)."""
    task = name.removeprefix("halueval-")
    head = tmp_path / f"halueval-{task}-head.jsonl"
    with halueval_file(task).open(encoding="utf-8") as whole:
        head.write_text("".join(itertools.islice(whole, lines)), encoding="utf-8")
    # Each takes the file to read (the registry's type names only the call without it).
    loaders: dict[str, Callable[..., Dataset]] = {
        "halueval-qa": halueval_qa, "halueval-dialogue": halueval_dialogue,
        "halueval-summarization": halueval_summarization}
    return loaders[name](head)
