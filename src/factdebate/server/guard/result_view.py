"""A check's result as every door's answer carries it beside its text (the chat answer's and stream's
``factdebate`` object, LiteLLM's ``factdebate`` list), and which actions replace the reply's text."""

from __future__ import annotations

from typing import Any

from factdebate.engine import GuardResult

# The fields of a result a reply carries; the texts before and after the policy stay in the kept check.
REPLY_EXCLUDE = {"original_text", "text"}
CHANGED = ("flagged", "held", "rewritten", "blocked")  # actions whose text replaces the answer's


def result_view(result: GuardResult) -> dict[str, Any]:
    """A result as an answer carries it beside its text: everything but the two texts."""
    return result.model_dump(mode="json", exclude=REPLY_EXCLUDE)
