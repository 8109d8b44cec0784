"""A correction for a refuted claim: one sentence, grounded in the passage that refutes it.

One model call, one JSON object. A sentence that shares no content word with the quote is not grounded in
it and is dropped (no correction rather than an invented one); so is an unreadable reply.
"""

from __future__ import annotations

import json

from factdebate.core.runtime import count_reply
from factdebate.guard.evidence import shares_words
from factdebate.guard.types import ClaimEvidence, Correction
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import enclosed
from factdebate.llm.model import LLM
from factdebate.prompts import render

AGENT = "guard-corrector"
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["sentence"],
          "properties": {"sentence": {"type": "string", "minLength": 1, "maxLength": 500}}}


def read_sentence(text: str) -> str | None:
    try:
        value = enclosed(text, "{")
    except json.JSONDecodeError:
        return None
    sentence = value.get("sentence") if isinstance(value, dict) else None
    return " ".join(sentence.split()) if isinstance(sentence, str) and sentence.strip() else None


async def correct(claim: str, evidence: ClaimEvidence, llm: LLM) -> Correction | None:
    """The corrected sentence for ``claim`` from ``evidence``'s quote, or None."""
    if not evidence.quote.strip():
        return None
    prompt = render("guard_correct", claim=claim, title=evidence.title or "passage", quote=evidence.quote)
    count_reply("guard_correction", "asked")
    reply = await llm.complete([{"role": "user", "content": prompt.text}],
                               GenParams(temperature=0.0, max_tokens=200, json_schema=SCHEMA),
                               agent=AGENT, prompt=prompt.name)
    sentence = read_sentence(reply.text)
    if sentence is None or not shares_words(sentence, evidence.quote):
        count_reply("guard_correction", "lost")
        return None
    return Correction(text=sentence, quote_source=evidence.quote)
