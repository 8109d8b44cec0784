"""Where in a text each extracted claim is said, as character offsets the caller can slice with.

An extractor returns claims in its own words. Three tries, most exact first: the claim verbatim; the
claim ignoring case, runs of whitespace and its closing punctuation; then the sentence of the text that
shares most of the claim's content words, when it shares at least half of them (the claim was reworded
from that sentence). Otherwise no span, and a note saying why: the offsets never point at text that does
not say the claim.
"""

from __future__ import annotations

import re

from factdebate.core.types import Span

# A sentence ends at . ! or ? (and any closing quote or bracket) followed by whitespace, or at a line break;
# "3.6" or "e.g.x" do not end one.
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]*[ \t]+|\s*\n\s*")
_WORD = re.compile(r"[^\W_]+")
_FUNCTION = frozenset(("the", "a", "an", "of", "in", "on", "at", "to", "is", "was", "are", "were", "be", "and",
                       "or", "for", "by", "with", "as", "it", "its", "that", "this", "from", "has", "have", "had"))
OVERLAP = 0.5  # share of the claim's content words a sentence must hold to be its place
NOT_FOUND = "the extractor reworded this claim beyond finding it in the text"


# A full stop after these (or after one initial, "J.") is not a sentence's end.
_ABBREVIATIONS = frozenset(("dr.", "mr.", "mrs.", "ms.", "prof.", "st.", "mt.", "ft.", "jr.", "sr.", "vs.", "no.",
                            "e.g.", "i.e.", "approx.", "ca.", "inc.", "ltd.", "co.", "u.s.", "u.k."))
_LAST_WORD = re.compile(r"(\S+)$")


def boundaries(text: str, pos: int = 0) -> list[re.Match[str]]:
    """Where the sentences of ``text`` end, from ``pos`` on (each match is the gap after a sentence)."""
    out = []
    for match in _BOUNDARY.finditer(text, pos):
        if "\n" not in match.group():
            last = _LAST_WORD.search(text, 0, match.start())
            word = last.group(1).lower() if last else ""
            if word in _ABBREVIATIONS or re.fullmatch(r"[^\W\d_]\.", word):
                continue
        out.append(match)
    return out


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line of ``text``, without surrounding whitespace."""
    out = []
    start = 0
    for match in [*boundaries(text), None]:
        end = match.start() if match is not None else len(text)
        if match is not None and match.group().startswith(("\"", "'", "\u201d", "\u2019", ")", "]")):
            end += len(match.group().rstrip())  # the closing quote belongs to the sentence
        piece_start, piece_end = start, end
        while piece_start < piece_end and text[piece_start].isspace():
            piece_start += 1
        while piece_end > piece_start and text[piece_end - 1].isspace():
            piece_end -= 1
        if piece_end > piece_start:
            out.append((piece_start, piece_end))
        if match is not None:
            start = match.end()
    return out


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased with each whitespace run as one space, and the original index of each character."""
    chars: list[str] = []
    where: list[int] = []
    for i, c in enumerate(text):
        if c.isspace():
            if chars and chars[-1] == " ":
                continue
            c = " "
        chars.append(c.lower())
        where.append(i)
    return "".join(chars), where


def _content(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text) if w.casefold() not in _FUNCTION}


def _first_from(haystack: str, needle: str, after: int) -> int:
    at = haystack.find(needle, after)
    return at if at >= 0 else haystack.find(needle)


def find_span(claim: str, text: str, *, after: int = 0) -> tuple[Span | None, str | None]:
    """(span, note) of ``claim`` in ``text``; ``after``: prefer a place at or after this offset (claims come
    in the text's order). The note is None for an exact place, says "approximate" for a sentence found by
    shared words, and says why when there is no span."""
    claim = claim.strip()
    if not claim or not text:
        return None, NOT_FOUND
    bare = claim.rstrip(".!?;: ")
    for needle in dict.fromkeys((claim, bare)):
        if needle and (at := _first_from(text, needle, after)) >= 0:
            return Span(start=at, end=at + len(needle)), None
    folded, where = _folded(text)
    needle = " ".join(bare.split()).lower()
    if needle and (at := _first_from(folded, needle, max(0, next((j for j, i in enumerate(where) if i >= after),
                                                                   len(where))))) >= 0:
        return Span(start=where[at], end=where[at + len(needle) - 1] + 1), None
    words = _content(claim)
    if words:
        # Most shared words first; among equals, the nearest sentence at or after ``after``.
        scored = [((len(words & _content(text[start:end])) / len(words), start >= after, -abs(start - after)),
                   start, end) for start, end in sentences(text)]
        if scored:
            rank, start, end = max(scored)
            if rank[0] >= OVERLAP:
                return Span(start=start, end=end), "approximate: the sentence the claim was reworded from"
    return None, NOT_FOUND


def claim_spans(claims: list[str], text: str) -> list[tuple[Span | None, str | None]]:
    """Each claim's place, in order: each search prefers a place after where the previous claim was found."""
    out = []
    after = 0
    for claim in claims:
        found, note = find_span(claim, text, after=after)
        if found is not None:
            after = found.start + 1  # the next claim is said later (the same words again: the next time)
        out.append((found, note))
    return out
