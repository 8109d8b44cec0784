"""How many claims the extractor is asked for, counted from the units it is shown. The room fails closed: it
is wide enough for what each unit states, and an extractor that fills it all the same is read as cut short."""

from __future__ import annotations

import re
from collections.abc import Sequence

from factdebate.response_level.spans import sentences
from factdebate.response_level.structured import cells, members, table_row

# The least room a unit has: a compound sentence ("... completed in 1889 and is 330 m tall") states two or three.
CLAIMS_PER_SENTENCE = 3
# What parts a sentence states one fact each: a clause or an apposition after a comma, a semicolon, "and",
# "but", "while" ("The Eiffel Tower, in Paris, opened in 1889, is 330 metres tall and remained ..." is five),
# an enumeration comma of text written without spaces ("、", "，"), or a space between Thai words (Thai puts
# one between clauses and sentences, and none between words).
_PART = re.compile(r"[,;]\s|\s(?:and|but|while|whereas|as well as)\s|[\u3001\uff0c\uff1b]|"
                   r"(?<=[\u0e00-\u0e7f])\s+(?=[\u0e00-\u0e7f])")


def unit_room(unit: str) -> int:
    """How many claims one unit the extractor is shown has room for: one a part of a sentence, a cell of a table
    row, a member of a JSON object, and never fewer than :data:`CLAIMS_PER_SENTENCE`."""
    text = unit.strip()
    parts = len(cells(text)) if table_row(text) else max(1 + len(_PART.findall(text)), members(text))
    return max(CLAIMS_PER_SENTENCE, parts)


def claim_room(text: str, max_claims: int, units: Sequence[tuple[int, int]] | None = None) -> int:
    """How many claims ``text`` can state: each of its ``units`` its :func:`unit_room`, plus one, at most
    ``max_claims`` (a small model asked for more writes items until its token cap)."""
    shown = sentences(text) if units is None else units
    # One more than the units' rooms: only an extractor that writes past what the text was counted to state
    # fills it, and that is read as a cut.
    return max(1, min(max_claims, 1 + sum(unit_room(text[start:end]) for start, end in shown)))


def filled(taken: int, room: int) -> bool:
    """Whether an extractor that gave ``taken`` claims filled its ``room`` (then it may have left facts out)."""
    return taken >= room
