"""Text in scripts written without spaces between words (Japanese, Chinese, Thai...): word counts and
"is it English" by the characters' Unicode blocks, with no segmentation library."""

from __future__ import annotations

import re

# Letters of the scripts written without spaces: CJK ideographs (and their extensions and compatibility forms),
# Hiragana, Katakana (and its half-width forms), Thai, Lao, Khmer, Burmese.
UNSPACED = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\u0e00-\u0e7f\u0e80-\u0eff\u1780-\u17ff\u1000-\u109f\U00020000-\U0003134f]")
# A run of such letters counts as one word per this many characters: a Japanese or Chinese word is one to
# three characters long, most often two.
CHARACTERS_A_WORD = 2
_SPACED_WORD = re.compile(r"[^\W_]+")


def unspaced_letters(text: str) -> int:
    """How many letters of ``text`` belong to a script written without spaces."""
    return len(UNSPACED.findall(text))


def latin(text: str) -> bool:
    """Whether most letters of ``text`` are Latin (a text with no letters counts as Latin)."""
    letters = [c for c in text if c.isalpha()]
    return 2 * sum(c < "\u0250" for c in letters) >= len(letters)


def word_count(text: str) -> int:
    """How many words ``text`` writes, an unspaced script's run counting one per :data:`CHARACTERS_A_WORD`."""
    runs = _SPACED_WORD.findall(text)
    if not UNSPACED.search(text):  # the common case, read once: words between spaces
        return len(runs)
    count = 0
    for run in runs:
        joined = unspaced_letters(run)
        if not joined:
            count += 1
            continue
        rest = UNSPACED.sub(" ", run).split()  # the digits and Latin words among them ("4,776", "km")
        count += -(-joined // CHARACTERS_A_WORD) + len(rest)
    return count
