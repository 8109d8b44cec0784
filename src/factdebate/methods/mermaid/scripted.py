"""What ``--llm scripted:agree|disagree`` answers to MERMAID's prompts (``Mermaid.scripted_replies``): a
decomposition split at the first verb, one search with the first search tool listed, then "True"."""

from __future__ import annotations

import json
import re

from factdebate.llm.scripted_library import Asked, ScriptedReply

_VERB = re.compile(r"\s(is|was|are|were|has|had)\s", re.I)
_TOOL = re.compile(r"^- (search_\w+):", re.M)


def decompose(asked: Asked) -> str:
    parts = _VERB.split(asked.claim.rstrip("."), maxsplit=1)
    subject, verb, obj = (parts[0], parts[1], parts[2]) if len(parts) == 3 else (asked.claim, "states", "")
    return json.dumps({"triplets": [{"subject": subject, "relation": verb, "object": obj, "attributes": ""}],
                       "topic": "General"})


def execute(asked: Asked) -> str:
    tool = _TOOL.search(asked.text)
    if asked.prompt == "mermaid_step" and "(none yet)" in asked.text and tool:
        return json.dumps({"thought": "Look for evidence first.",
                           "action": {"name": tool.group(1), "reason": "no evidence yet",
                                      "input": {"query": asked.claim}}})
    return json.dumps({"thought": "The evidence found agrees with the claim.", "answer": "True"})


REPLIES: dict[str, ScriptedReply] = {"mermaid_decompose": decompose, "mermaid_step": execute,
                                     "mermaid_force": execute, "mermaid_reask": execute}
