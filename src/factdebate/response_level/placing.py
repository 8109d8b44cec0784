"""Which sentence of a text states a claim the extractor reworded: the words that tell the sentences apart
decide, and a claim that fits no sentence clearly is not placed.

A sentence says its content words (numbers as digits, lightly stemmed) and, when it opens with a pronoun, the
subject of the sentence before it. A claim's words are weighted by how rare they are among the sentences, a
name twice and a number three times; a sentence with a number but none of the claim's states another fact.
The best sentence is the place when it holds PLACE of the weight and no other comes within MARGIN of it."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from factdebate.response_level.links import without_urls

PLACE = 0.5  # the least share of the claim's weight its sentence must hold
MARGIN = 0.2  # how far ahead of every other sentence the best one must be
NAME_WEIGHT = 2.0
NUMBER_WEIGHT = 3.0

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
# Words that say nothing of which fact a sentence states.
_STOP = frozenset((
    "a", "an", "the", "of", "in", "on", "at", "to", "into", "onto", "from", "by", "with", "without", "for", "as",
    "and", "or", "but", "nor", "so", "yet", "than", "then", "that", "this", "these", "those", "there", "here",
    "is", "was", "are", "were", "be", "been", "being", "am", "has", "have", "had", "having", "do", "does", "did",
    "will", "would", "can", "could", "may", "might", "shall", "should", "must", "it", "its", "itself", "he",
    "him", "his", "himself", "she", "her", "hers", "herself", "they", "them", "their", "theirs", "themselves",
    "we", "us", "our", "you", "your", "i", "me", "my", "which", "who", "whom", "whose", "what", "where", "when",
    "while", "also", "very", "about", "around", "some", "such", "both", "each", "every", "all", "any", "just",
    "only", "more", "most", "over", "under", "up", "down", "out", "if", "s", "located", "known", "called"))
# A sentence that opens with one of these (or says one first after an opening phrase and its comma) is
# about the subject of the sentence before.
_PRONOUNS = frozenset(("it", "its", "he", "his", "she", "her", "they", "their", "this", "these", "that"))
# Said further in ("Deforestation threatens it.", "Reykjavik is its capital."), these point back too.
_LATER_PRONOUNS = frozenset(("it", "its", "him", "his", "her", "them", "their"))
_ITEM = re.compile(r"\s*(?:[-*\u2022]|\d{1,2}[.)])\s")  # a list item's marker
# Words a sentence's subject ends before.
_VERBS = frozenset((
    "is", "was", "are", "were", "has", "had", "have", "will", "would", "can", "could", "may", "might", "does",
    "did", "became", "becomes", "remains", "remained", "stands", "stood", "lies", "lay", "holds", "held",
    "won", "wins", "runs", "ran", "hosts", "hosted", "covers", "contains", "includes", "flows", "sits", "reaches",
    "has", "makes", "made", "gave", "gives", "took", "takes", "wrote", "writes", "led", "leads", "lives", "lived",
    "died", "dies", "began", "begins", "grew", "grows", "measures", "weighs", "spans", "borders", "uses", "used"))
_NOT_VERBS = frozenset(("hundred", "indeed"))  # -ed words that are no verb
_NUMBER_WORDS = {w: str(i) for i, w in enumerate((
    "zero", "", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")) if w}
_NUMBER_WORDS.update({"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
                      "eighty": "80", "ninety": "90", "hundred": "100", "thousand": "1000"})
_ENDINGS = ("ations", "ation", "ments", "ment", "ings", "ing", "ions", "ion", "ed", "es", "s", "ly")
_SUBJECT_WORDS = 8  # a verb further in than this leaves the subject to the sentence's names


def _stem(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[:-len(ending)]
    return word


def _term(token: str) -> str | None:
    """The word ``token`` counts as (None: it says nothing)."""
    if token[0].isdigit():
        return token.replace(",", "")
    word = token.casefold()
    if word in _NUMBER_WORDS:
        return _NUMBER_WORDS[word]
    if word in _STOP or len(word) < 2:
        return None
    return _stem(word)


def terms(text: str) -> dict[str, float]:
    """The words of ``text`` that tell what it states, each with its kind's weight (a number, a name: a
    capitalised word after the first, or the first when it is no common word)."""
    out: dict[str, float] = {}
    for n, match in enumerate(_TOKEN.finditer(text)):
        token = match.group()
        term = _term(token)
        if term is None:
            continue
        kind = NUMBER_WEIGHT if term[0].isdigit() else NAME_WEIGHT if token[0].isupper() else 1.0
        if n == 0 and kind == NAME_WEIGHT and token.endswith(("ed", "ing", "ion", "ly")):
            kind = 1.0  # "Located", "Construction": capitalised by position only
        out[term] = max(out.get(term, 0.0), kind)
    return out


@dataclass(frozen=True)
class SentenceWords:
    """What a sentence says: its words with its antecedent's, its numbers, the subject it passes on, its fold."""

    words: frozenset[str]
    numbers: frozenset[str]
    subject: frozenset[str]
    key: str


def _opens_with_pronoun(tokens: list[str], sentence: str) -> bool:
    if tokens and tokens[0].casefold() in _PRONOUNS:
        return True
    comma = sentence.find(",")
    if 0 < comma < 60:  # "In 1889, it opened.": the pronoun after a short opening phrase
        after = _TOKEN.search(sentence, comma)
        return after is not None and after.group().casefold() in _PRONOUNS
    return False


def _subject(tokens: list[str]) -> frozenset[str]:
    """The words a sentence opens with up to its verb; else its names."""
    for n, token in enumerate(tokens[:_SUBJECT_WORDS]):
        word = token.casefold()
        if n and (word in _VERBS or (word.endswith("ed") and len(word) > 5 and token.islower()
                                     and word not in _NOT_VERBS)):
            return frozenset(t for t in map(_term, tokens[:n]) if t is not None and not t[0].isdigit())
    return frozenset(t for n, token in enumerate(tokens) if n and token[0].isupper()
                     and (t := _term(token)) is not None)


def read_sentence(sentence: str, before: frozenset[str]) -> SentenceWords:
    """``sentence`` read after a sentence whose subject is ``before`` (a list's heading is its items' subject)."""
    tokens = _TOKEN.findall(without_urls(sentence))  # a web address's words say nothing (response_level/links.py)
    own = frozenset(t for t in map(_term, tokens) if t is not None)
    numbers = frozenset(t for t in own if t[0].isdigit())
    key = " ".join(sentence.casefold().split())
    if before and (_opens_with_pronoun(tokens, sentence) or _ITEM.match(sentence)):
        return SentenceWords(own | before, numbers, before, key)
    subject = own if sentence.rstrip().endswith(":") else _subject(tokens)
    if before and any(t.casefold() in _LATER_PRONOUNS for t in tokens[1:]):
        return SentenceWords(own | before, numbers, subject, key)
    return SentenceWords(own, numbers, subject, key)


def weights(claim: dict[str, float], frequency: dict[str, int], count: int) -> dict[str, float]:
    """Each claim word's weight among ``count`` sentences, ``frequency[word]`` of which hold it (at least one)."""
    return {word: kind * math.log(1 + count / max(1, frequency.get(word, 0))) for word, kind in claim.items()}


def conflicting(claim_numbers: set[str], sentence: SentenceWords) -> bool:
    """The sentence gives numbers, none of them the claim's: it states another fact."""
    return bool(claim_numbers) and bool(sentence.numbers) and not claim_numbers & sentence.numbers



def names_only(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` gives of ``claim`` its subject alone (the words before its verb, else its names): a
    table's header row naming what the row below says, the sentence naming whom a pronoun after it means. Such a
    sentence states nothing of the claim that could be false."""
    shared = terms(sentence).keys() & terms(claim).keys()
    return bool(shared) and shared <= _subject(_TOKEN.findall(claim))


def stated_in(claim: str, sentences: list[str]) -> int:
    """Which of ``sentences`` (read in order, a pronoun with the subject before it) states ``claim``: of those
    giving more of it than its subject (:func:`names_only`) and no other number, the one holding most of its
    weight; the first on a tie or where none holds any. So of "Marie Curie was born in Warsaw in 1867." and "She
    won two Nobel Prizes.", both drawn on for "Marie Curie won two Nobel Prizes.", the second; of a transposed
    table's header row "| | Eiffel Tower |" and the row "| City | Rome |" below it, the row."""
    wanted = terms(claim)
    subject: frozenset[str] = frozenset()
    said = []
    for sentence in sentences:
        said.append(read := read_sentence(sentence, subject))
        subject = read.subject
    frequency = {word: sum(word in s.words for s in said) for word in wanted}
    weight = weights(wanted, frequency, len(said))
    numbers = {w for w in wanted if w[0].isdigit()}
    held = [(not conflicting(numbers, s), not names_only(claim, text),
             sum(w for word, w in weight.items() if word in s.words)) for s, text in zip(said, sentences, strict=True)]
    return max(range(len(held)), key=lambda n: (*held[n], -n)) if held else 0
