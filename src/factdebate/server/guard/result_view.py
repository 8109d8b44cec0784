"""A check's result as every door's answer carries it beside its text (the chat answer's and stream's
``factdebate`` object, LiteLLM's ``factdebate`` list), and which actions replace the reply's text."""

from __future__ import annotations

import json
from typing import Any

from factdebate.engine import GuardResult

# The fields of a result a reply carries; the texts before and after the policy stay in the kept check.
REPLY_EXCLUDE = {"original_text", "text"}
CHANGED = ("flagged", "held", "rewritten", "blocked")  # actions whose text replaces the answer's


def result_view(result: GuardResult) -> dict[str, Any]:
    """A result as an answer carries it beside its text: everything but the two texts."""
    return result.model_dump(mode="json", exclude=REPLY_EXCLUDE)


def json_refusal(result: GuardResult) -> str | None:
    """The words of a refused JSON answer's refusal, for OpenAI's ``refusal`` field beside its content (the JSON
    error object guard_engine/policy.py's ``refused_text`` writes): a structured-outputs client reads a refusal
    there, and the OpenAI SDK's ``parse`` gives it instead of failing on the error object. None for any other
    reply."""
    if result.action_taken != "blocked" or result.answer_format != "json":
        return None
    try:
        error = json.loads(result.text).get("error")
    except (ValueError, AttributeError):  # not the error object: nothing to say there
        return None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else None
