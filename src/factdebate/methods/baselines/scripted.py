"""What ``--llm scripted:agree|disagree`` answers to the single-pass baselines' own prompts, in their output
formats; both find the claim true (there is no debate for ``disagree`` to split)."""

from __future__ import annotations

import json

from factdebate.llm.scripted_library import Asked, ScriptedReply


def _queries(asked: Asked) -> str:
    return json.dumps({"queries": [asked.claim]})


def _verify(asked: Asked) -> str:
    return json.dumps({"reasoning": "The evidence agrees with the claim.", "factual": True})


def _detector(asked: Asked) -> str:
    return "The statement says nothing the source does not.\nHallucination: No"


FACTOOL_REPLIES: dict[str, ScriptedReply] = {"factool_queries": _queries, "factool_verify": _verify}
HALUEVAL_REPLIES: dict[str, ScriptedReply] = {"halueval_fewshot": _detector}
