"""Split documents into passages small enough for MiniLM (it truncates at 256 word pieces).

Passages break on sentences and overlap by about one, so a fact is whole in one of them; each keeps its
document's title, often the subject the passage never names."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from factdebate.core.types import Document

DEFAULT_MAX_WORDS = 180
DEFAULT_OVERLAP = 30
# MiniLM reads 256 word pieces and ignores the rest, and text without spaces is one "word": a passage is also
# capped by an estimate of its word pieces (one per CJK character, one per 4.5 other characters). Ordinary
# prose stays under the cap (the builtin corpus peaks at 235).
MAX_PIECES = 240
_WIDE = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\u3040-\u30ff]")

# A sentence ends at . ! or ? (optionally followed by a closing quote or bracket), then whitespace;
# only the whitespace is consumed, so quotes stay with their sentence.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'\u201d\u2019)\]]))\s+")


def split_sentences(text: str) -> list[str]:
    """Rough sentence split; good enough for passage boundaries, not for linguistics."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _units(text: str, max_words: int, overlap: int) -> list[list[str]]:
    """Sentences as word lists; a sentence longer than ``max_words`` becomes overlapping word windows."""
    units: list[list[str]] = []
    for sentence in split_sentences(text):
        words = sentence.split()
        if len(words) <= max_words:
            units.append(words)
            continue
        step = max_words - overlap
        for start in range(0, len(words), step):
            units.append(words[start : start + max_words])
            if start + max_words >= len(words):
                break
    return units


def chunk_text(text: str, max_words: int = DEFAULT_MAX_WORDS, overlap: int = DEFAULT_OVERLAP) -> list[str]:
    """Passages of at most about ``max_words`` words; consecutive passages share up to ``overlap`` words."""
    if max_words < 1 or not 0 <= overlap < max_words:
        raise ValueError(f"need max_words >= 1 and 0 <= overlap < max_words (got {max_words}, {overlap})")
    stripped = text.strip()
    if not stripped:
        return []
    if len(stripped.split()) <= max_words:
        return _capped([stripped])  # the common case keeps the original formatting untouched

    passages: list[list[list[str]]] = []
    current: list[list[str]] = []
    size = 0
    for unit in _units(stripped, max_words, overlap):
        if current and size + len(unit) > max_words:
            passages.append(current)
            # Carry whole trailing sentences that fit in the overlap budget into the next passage.
            carry: list[list[str]] = []
            carried = 0
            for previous in reversed(current):
                if carried + len(previous) > overlap:
                    break
                carry.insert(0, previous)
                carried += len(previous)
            # Never let the carried context push the new passage over the limit.
            while carry and carried + len(unit) > max_words:
                carried -= len(carry.pop(0))
            current, size = carry, carried
        current.append(unit)
        size += len(unit)
    if current:
        passages.append(current)
    return _capped([" ".join(word for unit in passage for word in unit) for passage in passages])


def pieces(text: str) -> float:
    """A cheap estimate of the word pieces MiniLM makes of ``text``."""
    wide = len(_WIDE.findall(text))
    other = len(text) - wide - text.count(" ")
    return wide + other / 4.5


def _windows(text: str, max_pieces: float) -> list[str]:
    """``text`` cut into consecutive spans of at most ``max_pieces`` estimated pieces, overlapping by a
    tenth, preferring to cut after whitespace or CJK punctuation."""
    out: list[str] = []
    start = 0
    while start < len(text):
        cost, end, cut = 0.0, start, -1
        while end < len(text) and cost < max_pieces:
            char = text[end]
            cost += 1.0 if _WIDE.match(char) else (0.0 if char == " " else 1 / 4.5)
            end += 1
            if char in " 。！？、，\n":
                cut = end
        if end < len(text) and cut > start + (end - start) // 2:
            end = cut
        out.append(text[start:end].strip())
        if end >= len(text):
            break
        start = max(start + 1, end - (end - start) // 10)
    return [piece for piece in out if piece]


def _capped(passages: list[str], max_pieces: float = MAX_PIECES) -> list[str]:
    return [window for passage in passages
            for window in (_windows(passage, max_pieces) if pieces(passage) > max_pieces else [passage])]


def chunk_document(
    doc: Document, max_words: int = DEFAULT_MAX_WORDS, overlap: int = DEFAULT_OVERLAP
) -> list[Document]:
    """Passages ``{doc.id}#0``, ``{doc.id}#1``...; a document with blank text yields none."""
    return [
        Document(id=f"{doc.id}#{n}", title=doc.title, text=passage, source=doc.source)
        for n, passage in enumerate(chunk_text(doc.text, max_words, overlap))
    ]


def chunk_documents(
    docs: Iterable[Document], max_words: int = DEFAULT_MAX_WORDS, overlap: int = DEFAULT_OVERLAP
) -> Iterator[Document]:
    for doc in docs:
        yield from chunk_document(doc, max_words, overlap)
