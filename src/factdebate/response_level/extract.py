"""Splitting a response into atomic claims, with an optional pre-step that removes subjective content.

Both steps ask for one JSON object, held to its schema where the backend can. An unreadable reply is re-asked
once; if that fails too, the failure is recorded (``parsed`` false) and no claim is made up. The claims read are
held to the text (grounding.py; the others go to ``ungrounded``). A failed subjective filter falls back to the
whole response and says so (``subjective_removed`` false).

The extractor is shown the text's sentences numbered ("[S1] ...") and answers with each claim the numbers it
drew it from: the claim's place and its sentences' coverage. A plain list of strings is still read, a claim
placed by its words then (response_level/placing.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from factdebate.core.types import ClaimExtraction
from factdebate.llm.ask import Reask, Unreadable, ask, part_chars
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import enclosed
from factdebate.llm.model import LLM
from factdebate.prompts import render
from factdebate.response_level.grounding import (
    among,
    content_words,
    forms,
    grounded,
    in_english,
    reply_subject,
    subject_in_place,
    uncovered_places,
    without_label,
)
from factdebate.response_level.offload import read_text
from factdebate.response_level.repeats import end_when_repeating
from factdebate.response_level.room import claim_room, filled
from factdebate.response_level.spans import sentences
from factdebate.response_level.worthiness import short_answer

AGENT = "extractor"
# One claim in the list: a sentence of up to about 40 words, quoted, in its object with the numbers of the
# sentences it is drawn from.
CLAIM_TOKENS = 92
MOST_SOURCES = 4  # sentences one claim may name as its source
# A sentence's number as the extractor is shown it, and as a claim may write it back ("[S2] The tower ...").
_MARK = re.compile(r"\s*\[S(\d{1,4})\]\s*")
_NUMBER = re.compile(r"^\s*\[?\s*S?\s*(\d{1,4})\s*\]?\s*$", re.I)


def list_schema(key: str, max_items: int, min_items: int = 0, item_chars: int | None = None) -> dict[str, Any]:
    """``{"<key>": [strings]}``; ``item_chars`` bounds each string so the longest list closes within its cap."""
    item: dict[str, Any] = {"type": "string", "minLength": 1}
    if item_chars is not None:
        item["maxLength"] = item_chars
    return {"type": "object", "additionalProperties": False, "required": [key],
            "properties": {key: {"type": "array", "minItems": min_items, "maxItems": max_items, "items": item}}}


def fitting_item_chars(key: str, max_items: int, max_tokens: int) -> int:
    """The longest item that lets ``max_items`` of them, quoted and separated, close within ``max_tokens``."""
    return part_chars(max_tokens, max_items, len(f'{{"{key}": []}}') + 4 * max_items)


def _keyed_value(text: str, key: str) -> tuple[Any, str]:
    """``{"<key>": value}`` (or a bare JSON list) in ``text`` -> (value, "") or (None, problem); JSON only."""
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
    return value, ""


def parse_string_list(text: str, key: str) -> tuple[list[str] | None, str]:
    """``{"<key>": [...]}`` (or a bare JSON list) somewhere in ``text`` -> (strings, "") or (None, problem)."""
    value, problem = _keyed_value(text, key)
    if problem:
        return None, problem
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None, f'"{key}" must be a list of strings'
    seen: dict[str, None] = {}
    for item in value:
        cleaned = " ".join(item.split())
        if cleaned and cleaned.lower() not in (s.lower() for s in seen):
            seen[cleaned] = None
    return list(seen), ""


def numbered(text: str, units: Sequence[tuple[int, int]]) -> str:
    """``text`` with each of ``units`` (its sentences' offsets) opened by its number, "[S1] " for the first."""
    out: list[str] = []
    at = 0
    for n, (start, _) in enumerate(units, 1):
        out += [text[at:start], f"[S{n}] "]
        at = start
    out.append(text[at:])
    return "".join(out)


def claims_schema(max_items: int, count: int, item_chars: int) -> dict[str, Any]:
    """``{"claims": [{"claim": text, "sentences": [numbers from 1 to count]}]}``."""
    numbers = {"type": "integer", "minimum": 1, "maximum": max(1, count)}
    item = {"type": "object", "additionalProperties": False, "required": ["claim", "sentences"],
            "properties": {"claim": {"type": "string", "minLength": 1, "maxLength": item_chars},
                           "sentences": {"type": "array", "minItems": 1, "maxItems": MOST_SOURCES,
                                         "items": numbers}}}
    return {"type": "object", "additionalProperties": False, "required": ["claims"],
            "properties": {"claims": {"type": "array", "minItems": 1, "maxItems": max_items, "items": item}}}


@dataclass(frozen=True)
class Drawn:
    """A claim as the extractor wrote it, with the numbers (from 1) of its sentences (empty: not said)."""

    claim: str
    sentences: tuple[int, ...] = ()


def _numbers(value: object, count: int) -> tuple[int, ...]:
    """The sentence numbers ``value`` names (3, "3", "S3", "[S3]" or a list of them) that the text has."""
    items = value if isinstance(value, list) else [value]
    out: list[int] = []
    for item in items:
        if isinstance(item, bool):
            continue
        number = item if isinstance(item, int) else int(m.group(1)) if isinstance(item, str) and (
            m := _NUMBER.match(item)) else None
        if number is not None and 1 <= number <= count and number not in out:
            out.append(number)
    return tuple(out[:MOST_SOURCES])


def _drawn(item: object, count: int) -> Drawn | None:
    """One item of the claims list: a claim with its sentences, or a string (whose markers give them)."""
    if isinstance(item, str):
        marks = _numbers([f"S{m}" for m in _MARK.findall(item)], count)
        return Drawn(" ".join(_MARK.sub(" ", item).split()), marks)
    if not isinstance(item, dict):
        return None
    claim = next((item[k] for k in ("claim", "text", "statement") if isinstance(item.get(k), str)), None)
    if claim is None:
        return None
    where = next((item[k] for k in ("sentences", "sentence", "sources", "source", "from") if k in item), None)
    marks = _numbers([f"S{m}" for m in _MARK.findall(claim)], count)
    return Drawn(" ".join(_MARK.sub(" ", claim).split()), _numbers(where, count) or marks)


def parse_claims(text: str, count: int) -> tuple[list[Drawn] | None, str]:
    """``{"claims": [...]}`` (or a bare JSON list) in ``text`` -> (claims with their sentences, "") or (None,
    problem); ``count``: the numbered sentences shown. A claim said twice is kept once. Only JSON is read."""
    value, problem = _keyed_value(text, "claims")
    if problem:
        return None, problem
    if not isinstance(value, list):
        return None, '"claims" must be a list'
    read = [_drawn(item, count) for item in value]
    if any(d is None for d in read):
        return None, '"claims" must hold objects {"claim": "...", "sentences": [numbers]}'
    kept: dict[str, Drawn] = {}
    for drawn in read:
        if drawn is None or not drawn.claim:
            continue
        key = drawn.claim.casefold()
        before = kept.get(key)
        kept[key] = drawn if before is None else Drawn(before.claim, tuple(dict.fromkeys(
            before.sentences + drawn.sentences))[:MOST_SOURCES])
    return list(kept.values()), ""


@dataclass
class ListReply:
    items: list[str] | None
    retries: int
    raw: str


async def ask_for_list(llm: LLM, prompt_name: str, reask_name: str, key: str, *, max_items: int,
                       max_tokens: int, what: str, min_items: int = 0, schema_min_items: int | None = None,
                       agent: str = AGENT, check: Callable[[str], str | None] | None = None,
                       item_chars: int | None = None, **variables: Any) -> ListReply:
    """One JSON-list question with at most one re-ask; ``items`` None when neither reply could be read (a
    malformed list, one shorter than ``min_items``, or an item ``check`` refuses). ``schema_min_items``: the
    schema's least, not enforced on other backends. ``item_chars``: the longest item (default: what fits
    ``max_tokens``)."""

    def read(text: str) -> list[str]:
        items, problem = parse_string_list(text, key)
        if items is None:
            raise Unreadable(problem)
        if len(items) < min_items:  # {"queries": []} answers nothing, and must not read as a success
            raise Unreadable(f'the "{key}" list has {len(items)} item(s); give at least {min_items}')
        refused = next((why for why in map(check, items[:max_items]) if why is not None), None) if check else None
        if refused is not None:
            raise Unreadable(f"one of the {key} says nothing: {refused}")
        return items[:max_items]

    least = min_items if schema_min_items is None else schema_min_items
    asked = await ask(llm, render(prompt_name, **variables), read, what=what, agent=agent,
                      params=GenParams(temperature=0.0, max_tokens=max_tokens,
                                       json_schema=list_schema(key, max_items, least, item_chars or
                                                               fitting_item_chars(key, max_items, max_tokens))),
                      reask=Reask(template=reask_name, variables={"max_claims": max_items}))
    return ListReply(asked.value, asked.retries, asked.raw)


async def remove_subjective(text: str, llm: LLM) -> tuple[str, bool, int]:
    """(text to extract claims from, whether the filter's output was read, re-asks)."""
    # The text's sentences copied back: as long as a sentence is (its 60 sentences at most are not held to
    # the cap; few texts have that many).
    reply = await ask_for_list(llm, "subjective_filter", "subjective_reask", "sentences", max_items=60,
                               max_tokens=1024, what="subjective_filter", item_chars=400, text=text)
    if reply.items is None:
        return text, False, reply.retries
    return " ".join(reply.items), True, reply.retries


async def aextract_claims(response: str, *, question: str | None = None, llm: LLM, max_claims: int = 12,
                          drop_subjective: bool = False, context: str | None = None,
                          opening: str | None = None, fit: bool = True,
                          units: Sequence[tuple[int, int]] | None = None,
                          ask_claims: AskClaims | None = None) -> ClaimExtraction:
    """The atomic claims of ``response``. ``context``: what it continues, shown so that pronouns become names;
    no claim is taken from it. ``opening``: the whole reply's first sentence when ``response`` is a part of
    it. ``fit``: ask for no more claims than the text can state (:func:`claim_room`), else ``max_claims``.
    ``units``: the offsets of the sentences to number (default: its sentences). ``ask_claims``: who asks the
    model (default :func:`ask_for_claims`; the guard's fast tier asks for verdicts in the same call)."""
    text, removed, retries = response, None, 0
    if drop_subjective:
        text, removed, retries = await remove_subjective(response, llm)
        units = None  # the filter's text is not the response: its own sentences are numbered
    if not text.strip():  # the filter kept nothing: there is no factual content to check
        return ClaimExtraction(claims=[], parse_retries=retries, subjective_removed=removed, checked_text=text)
    shown = list(units) if units is not None else sentences(text)
    # At least one claim where the backend holds the schema: small models otherwise answer an empty list for
    # any text. An empty list from another backend is still a reading: the text's own sentences are added below.
    room = claim_room(text, max_claims, shown) if fit else max_claims
    reply = await (ask_claims or ask_for_claims)(llm, text, shown, room, question=question, context=context)
    source = " ".join(filter(None, (text, question, context)))
    held = await read_text(len(source), _held_to_text, reply.items, text, source, max_claims, opening, shown)
    return ClaimExtraction(claims=held.claims, sentences=held.sentences, parsed=reply.items is not None,
                           parse_retries=retries + reply.retries, raw="" if reply.items is not None else reply.raw,
                           subjective_removed=removed, checked_text=text if drop_subjective else None,
                           ungrounded=held.ungrounded, ungrounded_sentences=held.ungrounded_sentences,
                           cut=cut_short(reply.items or [], shown, room))


def cut_short(items: Sequence[Drawn], units: Sequence[tuple[int, int]], room: int) -> list[int]:
    """The numbers of the ``units`` whose claims the call's limit may have cut short: all of them when the
    extractor gave ``room`` ``items``, else none."""
    return list(range(1, len(units) + 1)) if filled(len(items), room) else []


@dataclass
class ClaimsReply:
    items: list[Drawn] | None
    retries: int
    raw: str


def _item_frame(count: int) -> int:
    """The characters of one claim's object besides its text (keys, quotes, its longest list of numbers)."""
    numbers = MOST_SOURCES * (len(str(max(1, count))) + 3)  # each with its separator and a sign's room
    return len('{"claim": "", "sentences": []}, ') + numbers


class AskClaims(Protocol):
    """Asks the model for the claims of ``text``, its ``units`` numbered, at most ``room`` of them."""

    async def __call__(self, llm: LLM, text: str, units: Sequence[tuple[int, int]], room: int, *,
                       question: str | None, context: str | None) -> ClaimsReply: ...


def claim_chars(share: int, text: str, units: Sequence[tuple[int, int]]) -> int:
    """The longest claim a schema lets the extractor write: ``share`` (the longest that lets the call's room of
    claims close within its cap), or the longest sentence, up to twice ``share``. A claim held to less than the
    sentence it copies is cut mid-word ("... and the use of silver as currency to") and checked as a fragment,
    and a list holds few such sentences, so the cap still closes."""
    longest = max((b - a for a, b in units), default=0) + 8
    return max(share, min(longest, 2 * share))


async def ask_for_claims(llm: LLM, text: str, units: Sequence[tuple[int, int]], room: int, *,
                          question: str | None, context: str | None) -> ClaimsReply:
    """The extractor's claims of ``text`` (its ``units`` numbered), at most ``room``, with one re-ask."""
    max_tokens = CLAIM_TOKENS * room + 64
    item_chars = claim_chars(part_chars(max_tokens, room, len('{"claims": []}') + _item_frame(len(units)) * room),
                             text, units)

    def read(answer: str) -> list[Drawn]:
        items, problem = parse_claims(answer, len(units))
        if items is None:
            raise Unreadable(problem)
        return items[:room]

    asked = await ask(llm, render("claims_extract", text=numbered(text, units), question=question, context=context,
                                  max_claims=room), read, what="claims", agent=AGENT,
                      params=GenParams(temperature=0.0, max_tokens=max_tokens,
                                       json_schema=claims_schema(room, len(units), item_chars),
                                       ended=end_when_repeating([text[a:b] for a, b in units])),
                      reask=Reask(template="claims_reask", variables={"max_claims": room}))
    return ClaimsReply(asked.value, asked.retries, asked.raw)


@dataclass
class Held:
    """The claims kept of an extraction and those dropped, each with its sentences' numbers."""

    claims: list[str]
    sentences: list[list[int]]
    ungrounded: list[str]
    ungrounded_sentences: list[list[int]]


# A claim's stated sentences are taken as said unless another sentence holds at least ``_MOSTLY`` of its content
# words and ``_CLEARLY`` more of them than any stated one: a small model numbers a claim by its place in the list
# it writes (the second claim "from sentence 2" though it copies sentence 3), which would mark the sentence it
# names covered and the sentence it copies unchecked.
_MOSTLY = 0.8
_CLEARLY = 0.3


def _share(words: set[str], unit: str) -> float:
    """The share of ``words`` (a claim's content words) that ``unit`` writes, by lemma and stem."""
    found = forms(content_words(unit))
    return sum(among(w, found) for w in words) / len(words) if words else 0.0


def placed_right(drawn: Drawn, text: str, units: Sequence[tuple[int, int]], subject: str | None = None) -> Drawn:
    """``drawn`` with its sentences corrected where they plainly are not the ones it was drawn from (see
    :data:`_MOSTLY`). A sentence opening with "It" is read with ``subject`` (the reply's) in its place: "The
    Eiffel Tower stands in Paris." numbered 1 is drawn from "It stands in Paris.", not from "The Eiffel Tower was
    finished in 1899.", which would leave the second sentence uncovered and its "It" unresolved."""
    words = content_words(drawn.claim)
    if not drawn.sentences or not words or len(units) < 2:
        return drawn
    shares = [_share(words, subject_in_place(text[a:b], subject)) for a, b in units]
    said = max((shares[n - 1] for n in drawn.sentences if n <= len(units)), default=0.0)
    best = max(range(len(units)), key=lambda i: shares[i])
    if shares[best] < _MOSTLY or shares[best] - said < _CLEARLY:
        return drawn
    return Drawn(drawn.claim, (best + 1,))


def _held_to_text(items: list[Drawn] | None, text: str, source: str, max_claims: int,
                  opening: str | None = None, units: Sequence[tuple[int, int]] = ()) -> Held:
    """The claims ``source`` grounds plus the text's uncovered sentences, each with its sentences; those dropped."""
    # A claim the extractor copied with its line's label ("Answer: Paris is ...") is the statement after it.
    subject = reply_subject(text, opening)
    drawn = {without_label(d.claim): placed_right(d, text, units, subject) for d in items or []}
    claims, ungrounded = grounded(list(drawn), source, translated={
        c for c, d in drawn.items() if not _drawn_in_english(text, units, d.sentences)}, answered={
        c for c, d in drawn.items() if _drawn_from_short_answers(text, units, d.sentences)})
    where = [list(drawn[c].sentences) for c in claims]
    if items is not None:
        # A sentence a kept claim was drawn from is covered: it is not added again as it stands.
        covered = [units[n - 1] for numbers in where for n in numbers if n <= len(units)]
        for sentence, start, end in uncovered_places(text, claims, max_claims - len(claims), opening=opening,
                                                     covered=covered):
            claims.append(sentence)
            where.append([n for n, (a, b) in enumerate(units, 1) if a < end and start < b][:MOST_SOURCES])
    return Held(claims, where, ungrounded, [list(drawn[c].sentences) for c in ungrounded])


def _drawn_from_short_answers(text: str, units: Sequence[tuple[int, int]], numbers: Sequence[int]) -> bool:
    """Whether the sentences a claim is drawn from (``numbers`` of ``units``) are all short answers (none: no)."""
    said = [text[units[n - 1][0]:units[n - 1][1]] for n in numbers if 1 <= n <= len(units)]
    return bool(said) and all(short_answer(sentence) for sentence in said)


def _drawn_in_english(text: str, units: Sequence[tuple[int, int]], numbers: Sequence[int]) -> bool:
    """Whether the sentences a claim is drawn from (none said: the whole text) read as English."""
    said = [text[units[n - 1][0]:units[n - 1][1]] for n in numbers if 1 <= n <= len(units)]
    return any(in_english(sentence) for sentence in said) if said else in_english(text)
