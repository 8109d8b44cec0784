"""A conversation's own tool results as evidence, in sessions of any length.

An agent session carries one tool result per call. Past the evidence limits (less what the caller's own
``evidence`` takes) they are not refused: each claim gets the results that share most content words with it
(by stem, ties to the newer), while they fit; the check says how many were left out
(``GuardResult.evidence_dropped``). Within the limits every result is every claim's evidence."""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.core.types import Document
from factdebate.guard_engine.evidence import passages
from factdebate.guard_engine.types import GuardEvidence, ResolvedGuardOptions
from factdebate.response_level.grounding import content_words, stem
from factdebate.settings.model import Settings


def _size(item: GuardEvidence) -> int:
    return len(item.text) + len(item.title)  # as GuardOptions.resolve counts the caller's


class SessionEvidence:
    """The conversation's tool results of one check, and the passages each claim gets from them."""

    def __init__(self, options: ResolvedGuardOptions, settings: Settings) -> None:
        guard = settings.guard
        self.items: list[GuardEvidence] = options.conversation_evidence
        self.first = len(options.evidence) + 1  # numbered after the caller's passages
        self.items_left = max(0, guard.max_evidence_items - len(options.evidence))
        self.chars_left = max(0, guard.max_evidence_chars - sum(_size(e) for e in options.evidence))
        self.fits = len(self.items) <= self.items_left and sum(map(_size, self.items)) <= self.chars_left
        self.dropped = 0  # the most left out of one claim's check
        self._words: list[set[str]] | None = None
        self._passages: dict[int, list[Document]] = {}

    @property
    def trimmed(self) -> bool:
        return bool(self.items) and not self.fits

    def all_passages(self) -> list[Document]:
        """Every result as passages (what every claim gets when they fit the limits)."""
        return passages(self.items, first=self.first)

    def chosen(self, query: str) -> list[int]:
        """The results ``query`` (a claim) gets, best first while they fit; in the conversation's order."""
        if self.fits:
            return list(range(len(self.items)))
        if self._words is None:
            self._words = [{stem(w) for w in content_words(f"{e.title} {e.text}")} for e in self.items]
        words, wanted = self._words, {stem(w) for w in content_words(query)}
        order = sorted(range(len(self.items)), key=lambda i: (-len(wanted & words[i]), -i))
        kept: list[int] = []
        chars = 0
        for i in order:
            if len(kept) == self.items_left:
                break
            if chars + _size(self.items[i]) <= self.chars_left:
                kept.append(i)
                chars += _size(self.items[i])
        self.dropped = max(self.dropped, len(self.items) - len(kept))
        return sorted(kept)

    def passages_for(self, query: str) -> list[Document]:
        """The passages of the results ``query`` gets (each result split once per check)."""
        out: list[Document] = []
        for i in self.chosen(query):
            if i not in self._passages:
                self._passages[i] = passages([self.items[i]], first=self.first + i)
            out += self._passages[i]
        return out

    def note(self, settings: Settings) -> str:
        guard = settings.guard
        return (f"the conversation's {len(self.items)} tool results are over the evidence limits "
                f"(guard.max_evidence_items = {guard.max_evidence_items}, guard.max_evidence_chars = "
                f"{guard.max_evidence_chars}, less the evidence sent): each claim was checked with those that "
                f"share most words with it; {self.dropped} were left out of a claim's check")


def query_of(claims: Sequence[str], text: str) -> str:
    """What the results are ranked against when the check has no claim to rank them for: the reply."""
    return " ".join(claims) or text
