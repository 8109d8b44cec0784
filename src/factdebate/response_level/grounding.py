"""Which of the claims an extractor wrote are taken from the text, and which of the text's own sentences
still need checking once they are read (issues 30 and 39).

A small model's claims go wrong in known ways, each measured on served and embedded SmolLM2:

- it copies the prompt's worked example into an unrelated text ("The Berlin TV Tower last erupted in
  1969": "erupted" is the example's word), or invents a name or a number;
- it keeps opinions that name no "I" ("Honestly, nothing compares to it at night.", "Everyone should see
  it once.");
- it leaves plain facts out ("26 m", "1791").

So a claim is kept when every name and number it writes is one the text writes (numbers in words count:
"twenty-six" is 26; a word is found in the text by its stem, so "Construction" meets "constructed"; the
claim's first word is capitalised by position, so an ordinary word there is no name), no word of the
worked example appears in it that the text lacks, and it is not an opinion. Then every sentence of the
text that states a fact (a name after its first word, or a number) and that the kept claims placed on it do
not cover (most of its words, and each of its names and numbers) is added as it stands, a leading pronoun replaced by
the text's subject, up to the claim limit: a sentence is the text itself, so nothing is invented.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from factdebate.response_level.spans import claim_spans, sentences

_WORD = re.compile(r"[^\W_]+")
COMMON = frozenset((
    "about", "after", "also", "been", "before", "being", "between", "both", "could", "does", "from", "have",
    "into", "just", "more", "most", "other", "over", "same", "some", "such", "than", "that", "their", "them",
    "then", "there", "these", "they", "this", "those", "through", "very", "were", "what", "when", "where",
    "which", "while", "will", "with", "would", "your"))
_NAME = re.compile(r"\b(?:[A-Z][\w'-]*|\d[\d.,]*)")  # a capitalised word or a number, as a claim writes it
# Capitalised at a sentence's start, these name nothing.
NOT_NAMES = frozenset(("a", "an", "and", "as", "at", "but", "by", "for", "he", "her", "his", "in", "it", "its",
                       "of", "on", "or", "she", "the", "their", "there", "these", "they", "this", "to", "we",
                       "after", "before", "during", "from", "with", "since", "until", "while", "when", "many",
                       "most", "some", "other", "each", "every", "both", "all", "one", "today"))
# Endings of ordinary words (a first word "Located", "Construction", "Originally" is no name).
_ORDINARY_ENDINGS = ("ed", "ing", "ion", "ions", "ment", "ly", "ity", "ness", "ous", "ive", "ful", "al", "ance",
                     "ence", "ers")
_STEM_ENDINGS = ("ations", "ation", "ments", "ment", "ings", "ing", "ions", "ion", "edly", "ed", "es", "s", "ly")
_FIRST_PERSON = re.compile(r"\bI\b|\b(?:[Mm]y|me|mine|myself)\b")
# "I" after a capitalised word is a numeral ("World War I", "Elizabeth I"), not the writer.
# (A word of 60 characters at most: a longer run of letters and hyphens, tried from each hyphen in it, was read
# once per hyphen; no name is that long.)
_NUMERAL_I = re.compile(r"\b[A-Z][\w'-]{0,60}\s+I\b")
# The writer's view without an "I": advice to the reader or to everyone, and words that praise or judge
# (lower-case only: "The Great Wall", "Lovely Rita" are names).
_ADVICE = re.compile(
    r"\b(?:(?:you|everyone|everybody|anyone|visitors|travell?ers|one|we)\s+(?:really\s+)?(?:should|must|ought to|"
    r"have to|need to)|you'll love|you will love|can'?t miss|don'?t miss|not to be missed|worth (?:a |the )?"
    r"(?:visit|trip|seeing|it)|recommend\w*|a must\b|must-see|keep in mind|bear in mind)\b", re.I)
_JUDGING = re.compile(
    r"(?i:\b(?:honestly|frankly|personally|arguably|nothing (?:compares|beats)|like no other|second to none)\b)|"
    r"^(?:Overall|In summary|In conclusion|In short|To sum up),|\bmay seem\b|"
    r"\b(?:beautiful|lovely|amazing|wonderful|awesome|fantastic|stunning|gorgeous|breathtaking|magnificent|"
    r"charming|delightful|incredible|spectacular|unforgettable|magical|boring|terrible|overrated|underrated|"
    r"favou?rite)\b")
# An imperative opening addresses the reader ("Visit the Louvre early."): advice, not a fact to add.
_IMPERATIVE = re.compile(
    r"^(?:please|try|visit|see|check|make sure|remember|consider|avoid|don'?t|do not|book|plan|go|take|bring|"
    r"note|keep|use|ask|contact|click|follow|start|look|explore|enjoy|head|stop by|be sure)\b(?!-)", re.I)
# "It" at a sentence's start is most often the text's subject; "He", "She" and "They" are left as written:
# the person a text opens with is not always its subject (a text about a country names its president).
_PRONOUN_START = re.compile(r"^It\b(?!\s+(?:is|was)\s+(?:also\s+)?(?:important|worth|possible|likely|true|said)\b)")
# Where one sentence joins two statements: "; " and ", and / but / while / whereas / yet / so ".
_FIRST_TOKEN = re.compile(r"\s*(\S+)")
_CLAUSE = re.compile(r";\s+|,\s+(?:and|but|while|whereas|yet|so)\s+(?=[a-z]*\s*\w)")

# A clause that starts with one of these continues its sentence's subject: it is not split off.
_VERBS = frozenset(("is", "was", "are", "were", "has", "had", "have", "can", "could", "will", "would", "became",
                    "remains", "remained", "includes", "included", "also", "then", "it", "its"))

# Numbers in words ("one" is left out: "one of the largest" counts nothing).
_UNITS = {w: i for i, w in enumerate(("zero", "_", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                                      "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                                      "seventeen", "eighteen", "nineteen"))}
_UNITS.pop("_")
_TENS = {w: 10 * i for i, w in enumerate(("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
                                           "eighty", "ninety")) if w}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_EXAMPLE = Path(__file__).resolve().parents[1] / "prompts" / "claims_extract.j2"


def stem(word: str) -> str:
    """A word without a common ending, so that forms of one word meet ("constructed", "construction")."""
    word = word.casefold()
    for ending in _STEM_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[:-len(ending)]
    return word


def content_words(text: str) -> set[str]:
    """Words that carry content: numbers, and words of four letters or more that are not function words,
    without a plural -s (so "snowplows" meets "snowplow")."""
    words = (w.casefold() for w in _WORD.findall(text))
    return {w.removesuffix("s") if len(w) > 4 else w for w in words
            if w.isdigit() or (len(w) >= 4 and w not in COMMON)}


def numbers(text: str) -> set[str]:
    """The numbers ``text`` writes, in digits ("1,788" as "1788", "3.5" as "3" and "5") or in words
    ("twenty-six" as "26", "three hundred" as "300")."""
    found = {n for token in re.findall(r"\d[\d.,]*", text) for n in re.findall(r"\d+", token.replace(",", ""))}
    value: int | None = None
    for word in re.findall(r"[a-z]+", text.lower().replace("-", " ")):
        if word in _UNITS or word in _TENS:
            value = (value or 0) + _UNITS.get(word, 0) + _TENS.get(word, 0)
        elif word in _SCALES and value is not None:
            value *= _SCALES[word]
        elif word != "and" or value is None:
            if value is not None:
                found.add(str(value))
            value = None
    if value is not None:
        found.add(str(value))
    return found


def names(text: str) -> set[str]:
    """The names ``text`` writes (capitalised words, folded: "Fuji's" as "fuji"), its first word left out
    when it is an ordinary word there by position ("Located", "Construction")."""
    found: set[str] = set()
    opening = len(text) - len(text.lstrip(" \"'“‘("))  # what may stand before the first word
    for match in _NAME.finditer(text):
        token = match.group(0).rstrip(".,").removesuffix("'s")
        if token[:1].isdigit():
            continue
        first = match.start() <= opening
        if first and token.casefold().endswith(_ORDINARY_ENDINGS):
            continue
        found.update(w.casefold() for w in _WORD.findall(token))
    return found - NOT_NAMES


def is_opinion(claim: str) -> bool:
    """The writer's view rather than a fact: in the first person, advice ("Everyone should see it once."),
    or judging words with no number to check ("Honestly, nothing compares to it at night.")."""
    if _FIRST_PERSON.search(_NUMERAL_I.sub(" ", claim)) or _ADVICE.search(claim):
        return True
    return bool(_JUDGING.search(claim)) and not re.search(r"\d", claim)


@cache
def example_words() -> frozenset[str]:
    """The content words of the extraction prompt's worked example, which a claim may only use where the
    text uses them too."""
    text = _EXAMPLE.read_text(encoding="utf-8") if _EXAMPLE.exists() else ""
    lines = " ".join(line.split(":", 1)[1] for line in text.splitlines() if line.startswith("Example "))
    return frozenset(stem(w) for w in content_words(re.sub(r"[{}\[\]\"]", " ", lines)) if w != "claim")


def grounded(claims: list[str], source: str) -> tuple[list[str], list[str]]:
    """(claims taken from ``source``, the others): see the module docstring."""
    known = {stem(w) for w in content_words(source)}
    written = set(_WORD.findall(source.replace(",", "")))  # each word once: a long source repeats most
    source_words = {stem(w) for w in written} | {w.casefold() for w in written}
    source_numbers = numbers(source)
    leaks = example_words() - known
    kept = []
    for claim in claims:
        words = {stem(w) for w in content_words(claim)}
        if words and not words & known:
            continue
        if not {stem(n) for n in names(claim)} <= source_words or not numbers(claim) <= source_numbers:
            continue
        if words & leaks or is_opinion(claim):
            continue
        kept.append(claim)
    return kept, [c for c in claims if c not in kept]


def _states_a_fact(sentence: str) -> bool:
    words = _WORD.findall(sentence)
    if len(words) < 4 or sentence.rstrip().endswith("?") or is_opinion(sentence) or _IMPERATIVE.match(sentence):
        return False
    return bool(numbers(sentence)) or bool(names(" ".join(words[1:])))


def _subject(text: str) -> str | None:
    """The text's subject as its first sentence names it: the run of capitalised words it opens with
    ("The Brandenburg Gate"), if it names something."""
    match = re.match(r"^((?:The\s+)?(?:[A-Z][\w'.-]*)(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][\w'.-]*)*)", text.strip())
    if match is None or match.group(1).casefold() in NOT_NAMES:
        return None
    return match.group(1)


def clauses(sentence: str) -> list[str]:
    """``sentence`` split where it joins two statements that each have a subject of their own (the part after
    the join is four words or more, and its first word is no verb ending in -s/-ed: "and is 368 m tall" stays
    whole); a sentence joined nowhere is itself."""
    parts: list[str] = []
    start = 0
    # Where each word starts, so that the words after a join are counted without reading the rest again.
    word_starts = [m.start() for m in _WORD.finditer(sentence)]
    for match in _CLAUSE.finditer(sentence):
        after = _FIRST_TOKEN.match(sentence, match.end())
        first = after.group(1).lower() if after is not None else ""
        if len(word_starts) - bisect_left(word_starts, match.end()) < 4 or first in _VERBS or first.endswith("ed"):
            continue
        parts.append(sentence[start:match.start()].strip(" ,;"))
        start = match.end()
    parts.append(sentence[start:].strip())
    return [(p[:1].upper() + p[1:]).rstrip() + ("" if p[-1] in ".!?" else ".") for p in parts if p]


def holds(piece: str, claims: Sequence[str]) -> bool:
    """Whether ``claims`` (those placed on the sentence ``piece`` is part of) say what ``piece`` says: most
    of its content words, each of its numbers, and each of its names (as a word anywhere in them, so a name
    the claim writes lower-case, or first, counts). The one rule of coverage: a response check's unchecked
    sentences and the guard's use it too, for a sentence whose claims the claim limit cut short."""
    if not claims:
        return False
    words = set().union(*(content_words(c) for c in claims))
    own = content_words(piece)
    if own and len(own & words) / len(own) < 0.6:
        return False
    held = {stem(w) for c in claims for w in _WORD.findall(c)}
    return numbers(piece) <= set().union(*(numbers(c) for c in claims)) and \
        {stem(n) for n in names(piece)} <= held


def uncovered_sentences(text: str, claims: list[str], limit: int) -> list[str]:
    """The sentences of ``text`` that state a fact the ``claims`` do not cover, at most ``limit``, each as the
    text writes it, a leading pronoun replaced by the text's subject. A sentence is covered only by the claims
    placed on it (the span search's sentence, as the verdict marks it) when they hold most of its content
    words and every name and number it writes (issue 49, item 1: a claim about another sentence, or a number
    some other claim writes, covered a sentence that differs from a checked one only by a number or a
    name, which was then neither checked nor added)."""
    if limit <= 0:
        return []
    bounds = sentences(text)
    starts = [start for start, _ in bounds]
    placed: dict[int, list[str]] = {}
    for claim, (span, _) in zip(claims, claim_spans(claims, text), strict=True):
        if span is not None:
            placed.setdefault(bisect_right(starts, span.start) - 1, []).append(claim)
    subject = _subject(text[bounds[0][0]:bounds[0][1]].strip()) if bounds else None
    out: list[str] = []
    said = {" ".join(c.split()).casefold() for c in claims}  # a sentence said again word for word is not added twice
    for number, (start, end) in enumerate(bounds):
        for piece in clauses(text[start:end].strip()):
            sentence = piece.lstrip("-*•> ").strip()
            if not _states_a_fact(sentence) or holds(sentence, placed.get(number, [])):
                continue
            if (folded := " ".join(sentence.split()).casefold()) in said:
                continue
            said.add(folded)
            if subject and (pronoun := _PRONOUN_START.match(sentence)):
                sentence = subject + sentence[pronoun.end():]
            out.append(sentence)
            if len(out) == limit:
                return out
    return out
