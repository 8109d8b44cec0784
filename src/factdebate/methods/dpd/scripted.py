"""What ``--llm scripted:agree|disagree`` answers to DPD's prompts (with ``disagree`` the logical judge votes
for the negative side)."""

from __future__ import annotations

import json

from factdebate.llm.scripted_library import Asked, ScriptedReply


def queries(asked: Asked) -> str:
    return json.dumps({"support": asked.claim[:80], "refute": f"{asked.claim[:70]} false"})


def ballot(asked: Asked) -> str:
    against = asked.disagree and asked.call.agent == "logical"
    side = {"evidence": 0.8, "logic": 0.7, "neutrality": 0.9, "persuasiveness": 0.7}
    weak = {"evidence": 0.4, "logic": 0.5, "neutrality": 0.8, "persuasiveness": 0.4}
    return json.dumps({"why": "The better-supported side wins.", "affirmative": weak if against else side,
                       "negative": side if against else weak,
                       "vote": "negative" if against else "affirmative", "confidence": 0.6 if against else 0.9})


def statement(asked: Asked) -> str:
    return f"{asked.call.agent} (round {asked.call.round}): the evidence bears on whether {asked.claim.rstrip('.')}."


REPLIES: dict[str, ScriptedReply] = {"dpd_queries": queries, "dpd_judge": ballot, "dpd_analyst": statement,
                                     "dpd_rebutter": statement, "dpd_summarizer": statement}
