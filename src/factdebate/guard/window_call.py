"""The fast tier's one call per reply window: the claims of the window (a whole reply, or the part of a stream
its sentences complete) and each one's verdict over the passages, asked together.

The model is shown the window's sentences numbered, as the extraction prompt shows them, and the passages the
fast tier would read, and answers one JSON object (held to its schema where the backend constrains output)::

    {"claims": [{"claim": ..., "sentences": [1], "label": ..., "passage": 2, "quote": ...}]}

The claims are read as an extraction's (response_level/extract.py: held to the text, sentences no claim
covers added as they stand); each claim's label, passage and quote as the fast tier reads its own reply
(guard/fast.py). A claim whose verdict cannot be read, or that the extraction adds itself, has no verdict
here and is asked alone, as the fast tier asks any claim; a claim that goes up a tier goes up as before. An
answer whose claims cannot be read at all is not re-asked in this form: the window is extracted as it is
without the fast tier in one call, so a model that cannot answer both at once still gets its claims checked.
The passages are those most similar to the window's text (the search engine asked with it), not to each
claim: one list the model reads once instead of once a claim.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from factdebate.core.errors import FactDebateError
from factdebate.core.runtime import count_reply, span
from factdebate.core.types import Document
from factdebate.guard.evidence import tier_resources, tier_settings
from factdebate.guard.fast import EXAMPLE_QUOTE, LABELS, gather, read_value, shown_passages, verdict_of
from factdebate.guard.tiers import Context, TierOutcome, fast_outcome
from factdebate.llm.ask import part_chars
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import enclosed
from factdebate.llm.model import LLM
from factdebate.prompts import render
from factdebate.response_level.extract import (
    CLAIM_TOKENS,
    MOST_SOURCES,
    ClaimsReply,
    ask_for_claims,
    numbered,
    parse_claims,
)
from factdebate.tools.given import given_evidence

AGENT = "guard-fast"
# A sentence's number, as a claim may write it back ("[S2] The tower ..."): not part of the claim.
_MARK = re.compile(r"\s*\[S(\d{1,4})\]\s*")
# Beyond the claim itself, each claim's verdict: a label, a passage number and a quote of up to a sentence.
VERDICT_TOKENS = 60
QUOTE_CHARS = 300
# Off by default (a switch, not yet an operator setting): off, the fast tier asks the extraction and each
# claim's verdict apart, as the tests that count those calls expect and the benchmark's "before" measures.
ENABLED: ContextVar[bool] = ContextVar("guard_window_call", default=False)

# The prompt's worked example (guard_window.j2): the extraction prompt's invented bridge, so that a copied
# claim is dropped as the extraction's example is (response_level/grounding.py), and the fast tier's
# invented quote, which no passage holds (guard/fast.py).
EXAMPLE = json.dumps({"claims": [
    {"claim": "The Quorvel Bridge spans the river Anselt.", "sentences": [1], "label": "NOT ENOUGH INFO",
     "passage": 0, "quote": ""},
    {"claim": "The Quorvel Bridge is in Tarnwick.", "sentences": [1], "label": "SUPPORTS", "passage": 2,
     "quote": EXAMPLE_QUOTE},
    {"claim": "The Quorvel Bridge opened in 1874.", "sentences": [2], "label": "REFUTES", "passage": 1,
     "quote": "The Quorvel Bridge opened to traffic in 1881."}]})


def window_schema(max_items: int, count: int, claim_chars: int, passages: int) -> dict[str, Any]:
    """The extraction's schema (response_level/extract.py's ``claims_schema``) with each claim's verdict."""
    numbers = {"type": "integer", "minimum": 1, "maximum": max(1, count)}
    item = {"type": "object", "additionalProperties": False,
            "required": ["claim", "sentences", "label", "passage", "quote"],
            "properties": {"claim": {"type": "string", "minLength": 1, "maxLength": claim_chars},
                           "sentences": {"type": "array", "minItems": 1, "maxItems": MOST_SOURCES,
                                         "items": numbers},
                           "label": {"type": "string", "enum": LABELS},
                           "passage": {"type": "integer", "minimum": 0, "maximum": max(0, passages)},
                           "quote": {"type": "string", "maxLength": QUOTE_CHARS}}}
    return {"type": "object", "additionalProperties": False, "required": ["claims"],
            "properties": {"claims": {"type": "array", "minItems": 1, "maxItems": max_items, "items": item}}}


def _items(answer: str) -> list[Any]:
    """The claims list of the answer, as JSON values (the answer was read by :func:`parse_claims` already)."""
    value = enclosed(answer, "{[")
    found = value.get("claims") if isinstance(value, dict) else value
    return found if isinstance(found, list) else []


def _folded(claim: str) -> str:
    return " ".join(claim.lower().split())


@dataclass
class WindowCall:
    """One window's call: asks as :class:`~factdebate.response_level.extract.AskClaims` does, and keeps each
    claim's fast-tier outcome, by its words folded, for :meth:`outcome_of`."""

    ctx: Context
    outcomes: dict[str, TierOutcome] = field(default_factory=dict)

    async def __call__(self, llm: LLM, text: str, units: Sequence[tuple[int, int]], room: int, *,
                       question: str | None, context: str | None) -> ClaimsReply:
        try:
            shown = await self._passages(text)
            reply = await self._ask(text, units, room, shown, question=question, context=context)
        except FactDebateError:
            reply = None  # the window's call failed: the extraction alone, below, says what it says
        if reply is not None:
            return reply
        return await ask_for_claims(llm, text, units, room, question=question, context=context)

    async def _passages(self, text: str) -> list[Document]:
        """The passages the fast tier reads, ranked for the window's text (without its sentence numbers)."""
        ctx = self.ctx
        mode = ctx.options.evidence_mode
        settings = tier_settings(ctx.settings, method=ctx.options.method, tier="fast", mode=mode, scope=ctx.scope)
        resources = tier_resources(ctx.resources, settings)
        with given_evidence(ctx.passages if ctx.passages else None):
            return shown_passages(await gather(text, resources, mode), resources)

    async def _ask(self, text: str, units: Sequence[tuple[int, int]], room: int, shown: list[Document], *,
                   question: str | None, context: str | None) -> ClaimsReply | None:
        """The window's claims with their verdicts kept; None when the answer's claims cannot be read."""
        max_tokens = (CLAIM_TOKENS + VERDICT_TOKENS) * room + 64
        claim_chars = part_chars(CLAIM_TOKENS * room + 64, room, len('{"claims": []}') + 40 * room)
        settings = tier_settings(self.ctx.settings, method=self.ctx.options.method, tier="fast",
                                 mode=self.ctx.options.evidence_mode, scope=self.ctx.scope)
        checker = tier_resources(self.ctx.resources, settings).llm("debater")
        prompt = render("guard_window", text=numbered(text, units), question=question, context=context,
                        documents=shown, max_claims=room, example=EXAMPLE)

        with span("claims and their fast verdicts", "extraction"):
            count_reply("guard_window", "asked")
            reply = await checker.complete(
                [{"role": "user", "content": prompt.text}],
                GenParams(temperature=0.0, max_tokens=max_tokens,
                          json_schema=window_schema(room, len(units), claim_chars, len(shown))),
                agent=AGENT, prompt=prompt.name)
        items, _ = parse_claims(reply.text, len(units))
        if items is None:
            count_reply("guard_window", "lost")
            return None
        self._keep(reply.text, shown)
        return ClaimsReply(items[:room], 0, reply.text)

    def _keep(self, answer: str, shown: list[Document]) -> None:
        """Each claim's outcome; a claim whose verdict cannot be read keeps none (it is asked alone)."""
        for item in _items(answer):
            if not isinstance(item, dict) or not isinstance(item.get("claim"), str):
                continue
            claim = " ".join(_MARK.sub(" ", item["claim"]).split())
            label, index, quote, problem = read_value(item, shown)
            count_reply("guard_fast", "asked")
            if label is None:
                count_reply("guard_fast", "lost")
                continue
            self.outcomes.setdefault(_folded(claim), fast_outcome(claim, verdict_of(label, index, quote, problem,
                                                                                     shown)))

    def outcome_of(self, claim: str) -> TierOutcome | None:
        """The verdict the window's call gave ``claim`` (each claim's once), or None."""
        return self.outcomes.pop(_folded(claim), None)


def done(outcome: TierOutcome) -> asyncio.Future[TierOutcome]:
    """``outcome`` as a finished head (guard/tiers.py's ``decide`` awaits it instead of asking again)."""
    future: asyncio.Future[TierOutcome] = asyncio.get_running_loop().create_future()
    future.set_result(outcome)
    return future


