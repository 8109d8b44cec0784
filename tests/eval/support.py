"""Shared doubles for the evaluation tests: a responder that answers every prompt of every method. The
resource builder is tests.helpers.resources_for (one builder for the whole suite)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from tests.helpers import resources_for

__all__ = ["claim_of", "prompts", "resources_for", "truthful"]

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
