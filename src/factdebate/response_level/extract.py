"""Splitting a response into atomic claims, with an optional pre-step that removes subjective content.

Both steps ask for one JSON object, held to its schema where the backend can constrain output. A reply that
cannot be read is re-asked once with the problem named; if the re-ask fails too, the failure is recorded
(``parsed`` false, the reply kept) and no claim is made up. A failed subjective filter falls back to the
whole response, which is the input itself and not an invention, and says so (``subjective_removed`` false).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from factdebate.core.types import ClaimExtraction
from factdebate.llm.ask import Reask, Unreadable, ask
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import enclosed
from factdebate.llm.model import LLM
from factdebate.prompts import render

AGENT = "extractor"


def list_schema(key: str, max_items: int, min_items: int = 0) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": [key],
            "properties": {key: {"type": "array", "minItems": min_items, "maxItems": max_items,
                                 "items": {"type": "string", "minLength": 1}}}}


def parse_string_list(text: str, key: str) -> tuple[list[str] | None, str]:
    """``{"<key>": [...]}`` (or a bare JSON list) somewhere in ``text`` -> (strings, "") or (None, problem).
    Only JSON is read: never ``eval``."""
    if "{" not in text and "[" not in text:
        return None, "no JSON object in the reply"
    try:
        value = enclosed(text, "{[")
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg})"
    if isinstance(value, dict):
        if key not in value:
            return None, f'the object has no "{key}" list'
        value = value[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None, f'"{key}" must be a list of strings'
    seen: dict[str, None] = {}
    for item in value:
        cleaned = " ".join(item.split())
        if cleaned and cleaned.lower() not in (s.lower() for s in seen):
            seen[cleaned] = None
    return list(seen), ""


@dataclass
class ListReply:
    items: list[str] | None
    retries: int
    raw: str


async def ask_for_list(llm: LLM, prompt_name: str, reask_name: str, key: str, *, max_items: int,
                       max_tokens: int, what: str, min_items: int = 0, agent: str = AGENT,
                       check: Callable[[str], str | None] | None = None, **variables: Any) -> ListReply:
    """One JSON-list question with at most one re-ask; ``items`` None when neither reply could be read.
    ``check``: why an item says nothing (a copied placeholder, a label as a query), or None; an item it
    refuses makes the reply unreadable, as a malformed list does."""

    def read(text: str) -> list[str]:
        items, problem = parse_string_list(text, key)
        if items is None:
            raise Unreadable(problem)
        refused = next((why for why in map(check, items[:max_items]) if why is not None), None) if check else None
        if refused is not None:
            raise Unreadable(f"one of the {key} says nothing: {refused}")
        return items[:max_items]

    asked = await ask(llm, render(prompt_name, **variables), read, what=what, agent=agent,
                      params=GenParams(temperature=0.0, max_tokens=max_tokens,
                                       json_schema=list_schema(key, max_items, min_items)),
                      reask=Reask(template=reask_name, variables={"max_claims": max_items}))
    return ListReply(asked.value, asked.retries, asked.raw)


async def remove_subjective(text: str, llm: LLM) -> tuple[str, bool, int]:
    """(text to extract claims from, whether the filter's output was read, re-asks)."""
    reply = await ask_for_list(llm, "subjective_filter", "subjective_reask", "sentences", max_items=60,
                               max_tokens=1024, what="subjective_filter", text=text)
    if reply.items is None:
        return text, False, reply.retries
    return " ".join(reply.items), True, reply.retries


async def aextract_claims(response: str, *, question: str | None = None, llm: LLM, max_claims: int = 12,
                          drop_subjective: bool = False, context: str | None = None) -> ClaimExtraction:
    """The atomic claims of ``response`` (see the module docstring for failures). ``context``: what the
    response continues (a dialogue's history), shown to the extractor so that a reply's pronouns become
    names in its claims; no claim is taken from it."""
    text, removed, retries = response, None, 0
    if drop_subjective:
        text, removed, retries = await remove_subjective(response, llm)
    if not text.strip():  # the filter kept nothing: there is no factual content to check
        return ClaimExtraction(claims=[], parse_retries=retries, subjective_removed=removed, checked_text=text)
    # At least one claim where the backend holds the schema: small models otherwise answer an empty list
    # for any text. A text with nothing checkable then yields a claim the method can call NOT ENOUGH INFO.
    reply = await ask_for_list(llm, "claims_extract", "claims_reask", "claims", max_items=max_claims, min_items=1,
                               max_tokens=80 * max_claims + 64, what="claims", text=text, question=question,
                               context=context, max_claims=max_claims)
    claims, ungrounded = grounded(reply.items or [], " ".join(filter(None, (text, question, context))))
    return ClaimExtraction(claims=claims, parsed=reply.items is not None,
                           parse_retries=retries + reply.retries, raw="" if reply.items is not None else reply.raw,
                           subjective_removed=removed, checked_text=text if drop_subjective else None,
                           ungrounded=ungrounded)


_WORD = re.compile(r"[^\W_]+")
_COMMON = frozenset((
    "about", "after", "also", "been", "before", "being", "between", "both", "could", "does", "from", "have",
    "into", "just", "more", "most", "other", "over", "same", "some", "such", "than", "that", "their", "them",
    "then", "there", "these", "they", "this", "those", "through", "very", "were", "what", "when", "where",
    "which", "while", "will", "with", "would", "your"))


def _content_words(text: str) -> set[str]:
    """Words that carry content: numbers, and words of four letters or more that are not function words,
    without a plural -s (so "snowplows" meets "snowplow")."""
    words = (w.casefold() for w in _WORD.findall(text))
    return {w.removesuffix("s") if len(w) > 4 else w for w in words
            if w.isdigit() or (len(w) >= 4 and w not in _COMMON)}


_NAME = re.compile(r"\b(?:[A-Z][\w'-]*|\d[\d.,]*)")  # a capitalised word or a number, as a claim writes it
# Capitalised at a sentence's start, these name nothing.
_NOT_NAMES = frozenset(("a", "an", "and", "as", "at", "but", "by", "for", "he", "her", "his", "in", "it", "its",
                        "of", "on", "or", "she", "the", "their", "there", "these", "they", "this", "to", "we"))
_FIRST_PERSON = re.compile(r"\b(?:I|my|me|mine|myself)\b")


def _names(text: str) -> set[str]:
    """The names and numbers ``text`` writes, folded as the source's words are: "1,788" as "1788", "3.5" as
    "3" and "5", "Fuji's" as "fuji"."""
    names: set[str] = set()
    for match in _NAME.finditer(text):
        token = match.group(0).rstrip(".,").removesuffix("'s").casefold()
        names.update(re.findall(r"\d+", token.replace(",", "")) if token[:1].isdigit() else _WORD.findall(token))
    return names - _NOT_NAMES


def grounded(claims: list[str], source: str) -> tuple[list[str], list[str]]:
    """(claims taken from ``source``, the others). A claim about the text names something the text names;
    every name and number in it must appear in the text (an invented "founded in 1788 by Captain James
    Cook" does not), so the prompt's worked example ("Mount Fuji ...") is never kept for a text that does
    not name it; and a claim in the first person ("I think it is the most beautiful ...") is the writer's
    opinion, not a fact to check."""
    known = _content_words(source)
    source_names = {w.casefold() for w in _WORD.findall(source.replace(",", ""))}
    kept = [c for c in claims
            if (_content_words(c) & known or not _content_words(c))
            and _names(c) <= source_names | {w.removesuffix("s") for w in source_names}
            and not _FIRST_PERSON.search(c)]
    return kept, [c for c in claims if c not in kept]


def extract_claims(response: str, *, question: str | None = None, llm: LLM, max_claims: int = 12,
                   drop_subjective: bool = False, context: str | None = None) -> ClaimExtraction:
    """Synchronous :func:`aextract_claims` (for scripts; inside an event loop use the async one)."""
    import asyncio

    return asyncio.run(aextract_claims(response, question=question, llm=llm, max_claims=max_claims,
                                       drop_subjective=drop_subjective, context=context))
