"""Whether the documents a debater is shown name what its claim is about.

The label guide (``label_guide.j2``) tells a small model that a document stating another value refutes the
claim. Over documents about someone or something else it reads that as licence to refute: "Steve Coogan
produced What Maisie Knew." over passages on Steve Wozniak, Steve Jobs and Steve Biko came back REFUTES
(benchmarks/decisions/label_guide.md). So the guide is given only where a document names the claim's subject.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from factdebate.core.types import Document

# A name as claims write it: capitalised words, joined by the short lower-case words names carry
# ("Bank of America", "Leonardo da Vinci"); digits and hyphens inside a word ("Coster-Waldau", "R2-D2").
_WORD = r"[A-Z\u00C0-\u00DE][\w'\u2019.-]*"
_JOIN = r"(?:of|the|and|de|da|di|del|der|den|van|von|la|le|du|al|y|in|on|for)"
_RUN = re.compile(rf"{_WORD}(?:\s+(?:{_JOIN}\s+)*{_WORD})*")
# What a web page's title adds after the page's own name ("Telemundo - Wikipedia", "Paris | Britannica").
_TITLE_TAIL = re.compile(r"\s+[-\u2013\u2014|:]\s+.*$|\s*\([^)]*\)\s*$")
# Words that open a sentence without naming anything.
_OPENERS = frozenset({"a", "an", "the", "in", "on", "at", "by", "for", "from", "this", "that", "these", "those",
                      "it", "its", "there", "here", "when", "while", "as"})


def _fold(text: str) -> str:
    return " ".join(re.findall(r"[\w'\u2019-]+", text.casefold()))


def claim_names(claim: str) -> list[str]:
    """The names ``claim`` writes, folded, each as a run of words; a run's opening word that only opens the
    sentence ("The", "In") is left out, and so is a run of one word that is only that."""
    found = []
    for match in _RUN.finditer(claim):
        words = match.group(0).split()
        if match.start() == len(claim) - len(claim.lstrip()) and words[0].casefold() in _OPENERS:
            words = words[1:]
        name = _fold(re.sub(r"['\u2019]s?$", "", " ".join(words)))  # "Austria's", "Stones'"
        if name:
            found.append(name)
    return found


def page_name(title: str) -> str:
    """A document's title, folded, without what a web page adds to its name or a parenthetical
    ("Mercury (planet)")."""
    return _fold(_TITLE_TAIL.sub("", title))


def _within(part: str, whole: str) -> bool:
    return f" {part} " in f" {whole} "


def names_subject(claim: str, documents: Iterable[Document]) -> bool:
    """Whether one of ``documents`` names what ``claim`` is about: its title is a name the claim writes, holds
    one of two words or more ("The Walt Disney Company", "Walt Disney") or is one of two words or more within
    one ("Fox Broadcasting" in "the Fox Broadcasting Company"); or its text writes the claim's first name (most
    often its subject) or another of two words or more: "American" later in a claim about Mitt Romney is not
    what it is about. A title of one word must be the name itself: the article "Guild" does not name the
    Directors Guild of America. A claim that writes no name names nothing to
    miss: true."""
    names = claim_names(claim)
    if not names:
        return True
    for document in documents:
        title = page_name(document.title)
        if title and any(title == name or (" " in name and _within(name, title))
                         or (" " in title and _within(title, name)) for name in names):
            return True
        text = f"{_fold(document.title)} {_fold(document.text)}"
        if any(_within(name, text) for name in names if name == names[0] or " " in name):
            return True
    return False
