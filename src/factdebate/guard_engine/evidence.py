"""The bot's own evidence, and the settings and resources each tier runs with.

Given evidence is split into passages (corpus/chunking.py: a long tool result or document becomes several
passages, none cut off) and put in the given-evidence context (tools/given.py) for the claim being checked:
the given-evidence tool ranks the passages for each query (the ``k`` most similar) and, with ``both``,
searches the configured engine after them. A tier runs the requested method on resources derived from the
caller's: the same models, services and engines, a tool factory that serves the given evidence in the
request's ``evidence_mode``, and settings narrowed to the tier (``standard``: one round).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from factdebate.core.injection import instruction_to_model
from factdebate.core.types import Document
from factdebate.embeddings import TextEncoder
from factdebate.guard_engine.types import ClaimEvidence, EvidenceMode, GuardEvidence, Tier
from factdebate.methods.base import Method
from factdebate.methods.resources import Resources
from factdebate.response_level.grounding import PRONOUN_OPENING
from factdebate.settings.model import Settings
from factdebate.tools.base import Tool
from factdebate.tools.given import GivenEvidenceTool, with_given_evidence

MAX_QUOTE_CHARS = 400
_WORD = re.compile(r"[^\W_]+")
_FUNCTION = frozenset(("the", "a", "an", "of", "in", "on", "at", "to", "is", "was", "are", "were", "and", "or",
                       "for", "by", "with", "as", "it", "its", "that", "this", "from"))


def passages(evidence: Sequence[GuardEvidence], first: int = 1) -> list[Document]:
    """Each item as one passage or, when long, several (every word kept, in order), titled by its item;
    numbered from ``first`` (a conversation's tool results follow the caller's evidence)."""
    return [doc for number, item in enumerate(evidence, start=first) for doc in item.passages(number)]


def evidence_digest(docs: Sequence[Document]) -> str:
    """A short fingerprint of the given passages (part of a conversation's verdict cache key)."""
    digest = hashlib.sha256()
    for doc in docs:
        digest.update(f"{doc.title}\0{doc.text}\0{doc.source}\1".encode())
    return digest.hexdigest()[:16]


def _one_round(section: Any) -> Any:
    """A method's settings with one round of debate (DPD: the opening and one rebuttal round at most);
    a method without rounds (MERMAID's and ReAct's steps, one-call methods) runs as it is."""
    if not isinstance(section, BaseModel):
        return section
    fields = type(section).model_fields
    update: dict[str, int] = {}
    if "rounds" in fields:
        update["rounds"] = 1
    if "max_rounds" in fields:
        update["max_rounds"] = 1
        update["min_rounds"] = min(int(getattr(section, "min_rounds", 0)), 1)
    return section.model_copy(update=update) if update else section


def tier_settings(settings: Settings, *, method: str, tier: Tier, mode: EvidenceMode,
                  scope: str | None = None) -> Settings:
    """The settings ``tier`` runs ``method`` with: the request's evidence mode; ``standard``: one round;
    ``scope`` (a conversation of one caller): the method's per-caller state narrowed to it (MERMAID's
    evidence memory namespace)."""
    methods = dict(settings.methods)
    if tier == "standard" and method in methods:
        methods[method] = _one_round(methods[method])
    derived = settings.model_copy(update={
        "method": method, "methods": methods,
        "retrieval": settings.retrieval.model_copy(update={"evidence": mode})})
    return Method.named(method).for_caller(derived, scope) if scope is not None else derived


def tier_resources(resources: Resources, settings: Settings) -> Resources:
    """``resources``' models, encoder and services with tools that serve the given evidence as ``settings``
    say (``retrieval.evidence``). The engines themselves are the caller's (opened once)."""

    def engine(kind: str) -> Tool:
        tool = resources.tool(kind)
        if isinstance(tool, GivenEvidenceTool):  # the caller's resources serve given evidence already
            if tool.inner is not None:
                return tool.inner
            from factdebate.run.build import make_tool

            return make_tool(kind, settings, resources.debater)
        return tool

    return Resources(settings=settings, llm_factory=resources.llm, encoder_factory=lambda: resources.encoder,
                     tool_factory=with_given_evidence(settings.retrieval.evidence, engine, lambda: resources.encoder),
                     services=resources.services, run=None)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text) if w.casefold() not in _FUNCTION}


# A sentence of fewer words than this, or one that opens with a pronoun, names too little to rank passages by.
ALONE_WORDS = 8
# How much what a sentence is about counts beside its own words (a passage's cosine with each, summed): a
# sentence that says enough alone is ranked by its own words, what it is about breaking near ties; one whose
# words match nothing ("No, it isn't.") is ranked by what it is about alone.
ABOUT_WEIGHT = 0.5


def says_little(sentence: str) -> bool:
    """Whether ``sentence`` names too little to find its passages by ("No, it isn't.", "It opened in 1889.")."""
    return len(_WORD.findall(sentence)) < ALONE_WORDS or PRONOUN_OPENING.match(sentence.strip()) is not None


@dataclass(frozen=True)
class Query:
    """What one sentence's or claim's passages are ranked by: its own words (``own``), and what it is about
    (``about``: the subject it leaves unsaid and the question it answers; "" when neither is known)."""

    own: str
    about: str = ""

    @property
    def search(self) -> str:
        """The search engine's query: the sentence, after what it is about when it says little alone (an engine
        ranks one string; "No, it isn't." alone finds nothing about the question it answers)."""
        return f"{self.about} {self.own}" if self.about and says_little(self.own) else self.own


async def ranked(queries: Sequence[Query], documents: list[Document], k: int,
                 encoder: TextEncoder) -> list[list[Document]]:
    """Each query's ``k`` passages of ``documents`` most similar to it, best first, scored: a passage's cosine
    with the query's own words plus :data:`ABOUT_WEIGHT` times its cosine with what it is about (tools/given.py's
    ``top_k`` where nothing is known of that), the passages encoded once for all the queries."""
    if len(documents) <= k:
        return [list(documents) for _ in queries]
    import numpy as np  # as tools/given.py: only a check with more given passages than k ranks them

    abouts = [q.about for q in queries if q.about]
    vectors = await encoder.aencode([*(q.own for q in queries), *abouts, *(d.text for d in documents)])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit = vectors / norms
    docs = unit[len(queries) + len(abouts):]
    out = []
    about_row = len(queries)
    for n, query in enumerate(queries):
        scores = docs @ unit[n]
        if query.about:
            scores = scores + ABOUT_WEIGHT * (docs @ unit[about_row])
            about_row += 1
        order = np.argsort(-scores, kind="stable")[:k]
        out.append([documents[i].model_copy(update={"score": float(scores[i])}) for i in order])
    return out


def best_quote(claim: str, text: str) -> str:
    """The sentence of ``text`` sharing most words with ``claim`` (its opening when none shares any); of those
    sharing as many, one that writes a number when the claim does: a claim refuted on a date or a quantity is
    corrected from the sentence that gives it, not from the passage's opening about the same subject."""
    from factdebate.prompts.numbers import numbers_in
    from factdebate.response_level.spans import sentences

    wanted = _words(claim)
    counts = bool(numbers_in(claim))
    pieces = [text[s:e] for s, e in sentences(text)] or [text]
    best = max(pieces, key=lambda p: (len(wanted & _words(p)), counts and bool(numbers_in(p))))
    if not wanted & _words(best):
        best = pieces[0]
    return best[:MAX_QUOTE_CHARS]


def shares_words(a: str, b: str) -> bool:
    return bool(_words(a) & _words(b))


def claim_evidence(claim: str, docs: Sequence[Document], most: int = 3,
                   cited: frozenset[str] = frozenset()) -> list[ClaimEvidence]:
    """Up to ``most`` distinct passages as evidence of ``claim``: title, address (when it is one), quote, the
    words that address the model when the passage holds an instruction to it (marked, still evidence), and
    whether the verdict cites it (its text is in ``cited``)."""
    out: list[ClaimEvidence] = []
    seen: set[str] = set()
    for doc in docs:
        if doc.text in seen or not doc.text.strip():
            continue
        seen.add(doc.text)
        url = doc.source if doc.source.startswith(("http://", "https://")) else None
        out.append(ClaimEvidence(title=doc.title[:300], url=url, quote=best_quote(claim, doc.text),
                                 injection=instruction_to_model(doc.text), cited=doc.text in cited))
        if len(out) == most:
            break
    return out
