"""Years a text states without writing them ("in 1879 ... the following year" states 1880), counted among
the text's numbers for the grounding filter: only from years the text writes, by years it writes too."""

from __future__ import annotations

import re

_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30, "fifty": 50, "hundred": 100}
# "the following year", "the next year", "a year later", "two years later", "3 years earlier", "the previous
# year", "the year before": how many years, and which way.
_RELATIVE = re.compile(
    r"\b(?:the\s+(?P<on>following|next|subsequent)\s+year|the\s+(?P<back>previous|preceding)\s+year|"
    r"the\s+year\s+(?P<which>before|after)|(?P<count>a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|twenty|thirty|fifty|hundred|\d{1,3})\s+years?\s+(?P<way>later|after(?:wards)?|on|earlier|before|"
    r"prior))\b", re.I)
_YEAR = re.compile(r"(?<![\d.,])\d{4}(?![\d.,]\d)")


def shifts(text: str) -> set[int]:
    """The shifts in years the relative phrases of ``text`` name (+1 for "the following year")."""
    out: set[int] = set()
    for match in _RELATIVE.finditer(text):
        if match.group("on") or (match.group("which") or "").lower() == "after":
            out.add(1)
        elif match.group("back") or match.group("which"):
            out.add(-1)
        else:
            count = match.group("count").lower()
            years = int(count) if count.isdigit() else _COUNTS.get(count, 1 if count == "an" else 0)
            way = match.group("way").lower()
            out.add(-years if way in ("earlier", "before", "prior") else years)
    return out


def relative_years(text: str) -> set[str]:
    """The years ``text`` states by a relative phrase from a year it writes, as ``grounding.numbers`` writes them."""
    moves = shifts(text)
    if not moves:
        return set()
    return {str(int(year) + move) for year in _YEAR.findall(text) for move in moves if int(year) + move > 0}
