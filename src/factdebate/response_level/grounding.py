"""Which of the claims an extractor wrote are taken from the text, and which of the text's own sentences
still need checking once they are read.

A small model copies the prompt's worked example into unrelated text, invents names or numbers, keeps
opinions that name no "I" ("Everyone should see it once.") and leaves plain facts out (measured on SmolLM2).
So a claim is kept when its names and numbers (numbers in words count; a name may be written more fully)
and the words that say what it states of them are the text's, compared by lemma or stem
(response_level/lemmas.py), and it is neither a worked example's claim nor an opinion. Then each sentence
that states a fact and that the kept claims do not cover is added as it stands, a leading pronoun replaced
by the text's subject, up to the claim limit: a sentence is the text itself, so nothing is invented."""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from datetime import date
from decimal import Decimal
from functools import cache, lru_cache
from itertools import pairwise
from pathlib import Path

from text_to_num import Occurence, alpha2digit, find_numbers, text2num

from factdebate.response_level.lemmas import lemmas
from factdebate.response_level.relative import relative_years
from factdebate.response_level.scripts import latin
from factdebate.response_level.spans import claim_spans, sentences
from factdebate.response_level.translated import names_held
from factdebate.response_level.worthiness import LIST_MARKER, heading, without_urls

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
                       "most", "some", "other", "each", "every", "both", "all", "one", "today", "yes", "no", "if",
                       "sure"))
# Endings of ordinary words (a first word "Located", "Construction", "Originally" is no name).
_ORDINARY_ENDINGS = ("ed", "ing", "ion", "ions", "ment", "ly", "ity", "ness", "ous", "ive", "ful", "al", "ance",
                     "ence", "ers")
_STEM_ENDINGS = ("ations", "ation", "ments", "ment", "ings", "ing", "ions", "ion", "edly", "ed", "es", "s", "ly")
_FIRST_PERSON = re.compile(r"\bI\b|\b(?:[Mm]y|me|mine|myself)\b")
# "I" after a capitalised word is a numeral ("World War I", "Elizabeth I"), not the writer.
# (A word of 60 characters at most: a longer run of letters and hyphens, tried from each hyphen in it, was read
# once per hyphen; no name is that long.)
_NUMERAL_I = re.compile(r"\b(?!(?:If|When|As|So|And|But|Then|Now|Here|Well|Yes|No|Sure|Because|Since|Where|What|How|"
                        r"Why|Do|Did|Can|Could|Should|Would|May|Might|Must|Will|Am|Was|Were|Today|Also|Still)\s)"
                        r"[A-Z][\w'-]{0,60}\s+I\b")
# The writer's view without an "I": advice to the reader or to everyone, and words that praise or judge
# (lower-case only: "The Great Wall", "Lovely Rita" are names).
_ADVICE = re.compile(
    r"\b(?:(?:you|everyone|everybody|anyone|visitors|travell?ers|one|we)\s+(?:really\s+)?(?:should|must|ought to|"
    r"have to|need to)|you'll love|you will love|can'?t miss|don'?t miss|not to be missed|worth (?:a |the )?"
    r"(?:visit|trip|seeing|it)|(?:i|we)\s+(?:would\s+|strongly\s+|highly\s+)?recommend\w*|highly recommended|"
    r"(?:is|are)\s+(?:strongly\s+)?recommended\s+(?:to|that)|a must\b|must-see|keep in mind|bear in mind)\b", re.I)
# ("recommended" alone is no advice: "the recommended daily allowance of magnesium is 310 mg" states a fact.)
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

_EXAMPLE = Path(__file__).resolve().parents[1] / "prompts" / "claims_extract.j2"


@lru_cache(maxsize=8192)  # the same words again for every claim and sentence of a reply: CPU per reply
def stem(word: str) -> str:
    """A word without a common ending, so that forms of one word meet ("constructed", "construction")."""
    word = word.casefold()
    for ending in _STEM_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[:-len(ending)]
    return word


def content_words(text: str) -> set[str]:
    """Numbers, and words of four letters or more that are not function words, without a plural -s."""
    words = (w.casefold() for w in _WORD.findall(text))
    return {w.removesuffix("s") if len(w) > 4 else w for w in words
            if w.isdigit() or (len(w) >= 4 and w not in COMMON)}


# Numbers a text writes that state nothing: a list item's number ("3. ", "**3.**", "(3)"), a citation marker
# ("[1]", "[^2]", "[1, 2]", "【3†source】") and a footnote definition's ("[^1]: ...").
_NOT_STATED = re.compile(r"^\s*(?:[*_]{1,2})?\(?\d{1,3}[.)](?:[*_]{1,2})?(?=\s)|\[\^?\d{1,3}(?:,\s?\d{1,3})*\]:?|"
                         r"【\d{1,3}[^】]{0,40}】", re.M)


# Thousands grouped by a thin, narrow or no-break space (SI style: "8 849 m"), or by a plain space before
# exactly three digits that end the number ("8 849 metres").
_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:[ \u2009\u202f\u00a0]\d{3})+(?![.,]?\d)")
_DIGITS = re.compile(r"\d[\d.,]*\d|\d")  # digits of any script ("١٩٨٩"), with the marks between them
# Commas before groups of exactly three digits ("1,788", "384,400"), or points twice or more ("1.234.567").
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+|\d{1,3}(?:\.\d{3}){2,}")
# A decimal mark: the last mark after thousands grouped by the other ("1,234.5", "1.234,5"), or a number's
# one mark where it groups no thousands ("3.5", "0.25", "3,5").
_DECIMAL = re.compile(r"(\d{1,3}(?:,\d{3})+)\.(\d+)|(\d{1,3}(?:\.\d{3})+),(\d+)|(\d+)[.,](\d+)")


def _value(digits: str) -> str:
    """A number as its value is written once: no leading zero, no trailing decimal zero ("09": "9", "1.50":
    "1.5", "100": "100")."""
    return format(Decimal(digits).normalize(), "f")


def _digit_values(token: str) -> list[str]:
    """The values one run of digits and marks (:data:`_DIGITS`) writes: a number with its thousands grouped or
    a decimal mark is one value; any other run (a date "15.04.1912", an address "192.168.0.1") is its runs of
    digits, each a number."""
    if token.isdigit():
        return [_value(token)]
    if _THOUSANDS.fullmatch(token):
        return [_value(re.sub(r"\D", "", token))]
    if match := _DECIMAL.fullmatch(token):
        whole, fraction = [g for g in match.groups() if g is not None]
        return [_value(re.sub(r"\D", "", whole) + "." + fraction)]
    return [_value(run) for run in re.findall(r"\d+", token)]


# Numbers in words are read by text2num (text_to_num), in English and in a language it reads whose commonest
# words the text writes more of than English's: the text's language is not known here, and every language at
# once reads English words as numbers ("fire" is 4 in Danish, "once" 11 in Spanish, "elf" 11 in German).
_COMMONEST = {
    "en": "the of and is was in with to for on that",
    "fr": "le la les des de du et est une un il y en dans avec sont été au aux pour par sur qui",
    "es": "el la los las de del y es una un con fue por en que se",
    "it": "il lo la gli le di del della e è una un con che sono fu",
    "pt": "o os de da dos das e é um uma com foi são em que não",
    "de": "der die das den dem des und ist ein eine mit von wurde im zu nicht",
    "nl": "de het een van en zijn werd met niet op",
    "da": "og er det den en af til ikke blev med på"}
_LANGUAGES_OF = {word: frozenset(lang for lang, words in _COMMONEST.items() if word in words.split())
                 for word in " ".join(_COMMONEST.values()).split()}
# The words of another language than English: only where the text writes one are its words counted (most
# texts are English).
_FOREIGN = frozenset(w for w, langs in _LANGUAGES_OF.items() if langs != {"en"})
_TOKEN = re.compile(r"\d[\d.,]*\d|\d|[^\W\d_]+|[^\w\s]")  # runs of digits, words, and each mark
# A number word alone counts from 2 on (text2num converts one whose value is not below the threshold): "one of
# the largest" counts nothing.
_THRESHOLD = 1.5


class _Token(str):
    """A token as text2num's ``find_numbers`` reads it (its Token protocol)."""

    __slots__ = ()

    def text(self) -> str:
        return str(self)

    def nt_separated(self, previous: _Token) -> bool:
        return False  # written text: punctuation is a token of its own

    def not_a_number_part(self) -> bool:
        return False


def _languages(text: str) -> list[str]:
    """The languages whose number words to read in ``text``: English where text2num finds any, and each other
    language whose commonest words (:data:`_COMMONEST`) the text writes most, twice or more and more often than
    English's (a list of initials writes Portuguese's "o" and "e" once)."""
    # (alpha2digit, text2num's reading of a whole text, keeps a word with an apostrophe or a hyphen on its edge
    # whole: "'Two'" is no number to it, and is one to find_numbers, which is given the marks as tokens)
    spaced = text.replace("'", " ").replace("-", " - ")
    out = ["en"] if alpha2digit(spaced, "en", _THRESHOLD) != spaced else []
    folded = text.casefold()
    if _FOREIGN.isdisjoint(folded.split()):  # (a function word is seldom written against a mark)
        return out
    hits = Counter(lang for word in _WORD.findall(folded) for lang in _LANGUAGES_OF.get(word, ()))
    best = max((count for lang, count in hits.items() if lang != "en"), default=0)
    return out + [lang for lang, count in hits.items() if lang != "en" and count == best > max(hits["en"], 1)]


# How a scale word ends in the plural ("hundreds", "Millionen", "millioner"), by language.
_PLURAL = {"de": "en", "nl": "en", "da": "er"}


def _is_scale(number: Occurence) -> bool:
    """Whether ``number`` is one word for a power of ten from a hundred on ("hundred", "millions", "mil")."""
    value = Decimal(repr(number.value))
    return number.end - number.start == 1 and value >= 100 and value == 10 ** (len(str(int(value))) - 1)


def _multiplied(tokens: list[_Token], number: Occurence) -> str | None:
    """The value of digits that a scale word right after them multiplies ("1.5 million": 1500000), if any."""
    before = tokens[number.start - 1] if number.start and _is_scale(number) else ""
    values = _digit_values(before) if before[:1].isdigit() else []
    return _value(str(Decimal(values[0]) * Decimal(repr(number.value)))) if len(values) == 1 else None


def _said(tokens: list[_Token], language: str) -> tuple[set[str], set[int]]:
    """The numbers ``tokens`` say in words of ``language``, and the indices of the runs of digits a word
    multiplies ("1.5 million": 1500000). Ordinals count nothing ("the second largest" states no 2; "second" is
    also a unit), nor does a scale word in the plural alone ("hundreds of people", "millones")."""
    said = [n for n in find_numbers(tokens, language, _THRESHOLD) if not n.is_ordinal]
    out: set[str] = set()
    used: set[int] = set()
    halves = False
    for number, after in zip(said, [*said[1:], None], strict=False):
        if halves:  # the second half of a year already read
            halves = False
        elif after is not None and _year_halves(number, after):
            # text2num reads "nineteen eighty-nine" as 19 and 89, "twenty twenty" as 20 and 20: one year
            out.add(str(int(number.value) * 100 + int(after.value)))
            halves = True
        elif (product := _multiplied(tokens, number)) is not None:
            out.add(product)
            used.add(number.start - 1)
        elif not (_is_scale(number) and tokens[number.start].casefold().endswith(_PLURAL.get(language, "s"))):
            out.add(_value(repr(number.value)))
    return out, used


def _year_halves(first: Occurence, second: Occurence) -> bool:
    """Whether two numbers said in words, one right after the other, are a year said in halves: each a whole
    number of two digits, the first from ten on ("nineteen twelve", "twenty twenty")."""
    return first.end == second.start and all(n.value == int(n.value) and 10 <= n.value < 100
                                              for n in (first, second))


@lru_cache(maxsize=4096)  # a passage is read again for every claim checked on it: CPU per reply
def _numbers(text: str) -> frozenset[str]:
    # Arabic's decimal and thousands marks ("٣٫٥" is 3.5, "١٬٠٠٠" 1000) are the marks English writes
    text = _NOT_STATED.sub(" ", text).replace("\u066b", ".").replace("\u066c", ",")
    text = _GROUPED.sub(lambda m: re.sub(r"\D", "", m.group()), text)  # "8 849" and "8 849" are 8849
    found = {str(month) for month in _dated_months(text)}  # "April 15, 1912" writes the 4 of "1912-04-15"
    languages = _languages(text)
    if not languages:
        return frozenset(found | {v for token in _DIGITS.findall(text) for v in _digit_values(token)})
    tokens = [_Token(token) for token in _TOKEN.findall(text)]
    used: set[int] = set()
    for language in languages:
        said, multiplied = _said(tokens, language)
        found |= said
        used |= multiplied
    return frozenset(found | {v for i, token in enumerate(tokens) if token[:1].isdigit() and i not in used
                              for v in _digit_values(token)})


def numbers(text: str) -> set[str]:
    """The numbers ``text`` writes, as values, less those that state nothing (:data:`_NOT_STATED`).

    Digits of any script count ("١٩٨٩" is 1989), a leading zero read as the value ("09" of "1989-11-09" is 9),
    with thousands grouped by a thin, narrow, no-break or plain space ("8 849"). A value is written once: "1.50"
    is "1.5", "3,5" is "3.5". A comma before groups of exactly three digits groups thousands ("1,788" is 1788,
    as English writes it); a point is a decimal point ("1.788" is 1.788) unless it groups thousands twice
    ("1.234.567") or a comma follows it ("1.234,5" is 1234.5); a run with other marks is its runs of digits
    ("15.04.1912" writes 15, 4 and 1912). A month named in a date is its number.

    Number words are read by text2num (:func:`_languages` chooses the languages): "twenty-six" is 26, "trois
    cent trente" 330, "1.5 million" 1500000; a year said in halves is one year ("nineteen eighty-nine" is
    1989). "one" alone, ordinals ("fifth") and plural scales ("hundreds of") count nothing."""
    return set(_numbers(text))


def is_number_word(word: str) -> bool:
    """Whether ``word`` is an English number word but "one" ("twenty", "hundred": no predicate, no verb)."""
    return _is_number_word(word.casefold())


@lru_cache(maxsize=8192)
def _is_number_word(folded: str) -> bool:
    if folded == "one" or len(folded) < 2 or not folded.isalpha():
        return False
    try:
        text2num(folded, "en")
    except ValueError:
        return False
    return True


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
# A month's name in a date: before or after a day or a year ("April 15, 1912", "15 April 1912", "in May 1953",
# "April of 1912"), its whole word or a shortening ("Sept.").
_MONTH_WORD = rf"\b((?:{'|'.join(m[:3] for m in _MONTHS)})[a-z]*)\b"
_MONTH_IN_DATE = re.compile(rf"(?i:{_MONTH_WORD}\.?,?\s+(?:of\s+)?\d|\d(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_WORD})")
# A date in ISO 8601 form ("1912-04-15"): its month is what "April" says.
_ISO_DATE = re.compile(r"(?<![\d-])\d{4}-\d{2}-\d{2}(?![\d-])")


def _dated_months(text: str) -> set[int]:
    """The months (1 to 12) ``text`` names by name in a date ("April 15, 1912": 4); a name that is not one's
    whole word or its usual shortening ("Mayor 5", "Marching 3") is none."""
    out = set()
    for match in _MONTH_IN_DATE.finditer(text):
        name = (match.group(1) or match.group(2)).casefold()
        out |= {n for n, month in enumerate(_MONTHS, 1) if name == month or name in (month[:3], month[:4])}
    return out


def iso_months(text: str) -> set[str]:
    """The names of the months ``text`` writes in ISO dates ("1912-04-15": "april"), which a claim that writes
    the date in words names (read by ``datetime.date.fromisoformat``, so "1912-13-40" names none)."""
    out = set()
    for match in _ISO_DATE.finditer(text):
        try:
            out.add(_MONTHS[date.fromisoformat(match.group(0)).month - 1])
        except ValueError:
            continue
    return out


def names(text: str) -> set[str]:
    """The names ``text`` writes (capitalised words, folded), less a first word that is an ordinary word."""
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
    """The writer's view rather than a fact: the first person, advice, or judging words with no number."""
    if _FIRST_PERSON.search(_NUMERAL_I.sub(" ", claim)) or _ADVICE.search(claim):
        return True
    return bool(_JUDGING.search(claim)) and not re.search(r"\d", claim)


@cache
def example_claims() -> frozenset[str]:
    """The extraction prompt's worked example's claims, folded (their names are invented: none is real)."""
    text = _EXAMPLE.read_text(encoding="utf-8") if _EXAMPLE.exists() else ""
    found: set[str] = set()
    for line in text.splitlines():
        if not line.startswith("Example reply:"):
            continue
        try:
            reply = json.loads(line.split(":", 1)[1])
        except json.JSONDecodeError:
            continue
        for item in reply.get("claims", []) if isinstance(reply, dict) else []:
            claim = item.get("claim") if isinstance(item, dict) else item
            if isinstance(claim, str):
                found.add(_folded(claim))
    return frozenset(found)


def _folded(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def echoes_example(claim: str, source: str) -> bool:
    """Whether ``claim`` is one of the worked example's claims and ``source`` does not state it."""
    folded = _folded(claim)
    return folded in example_claims() and f" {folded} " not in f" {_folded(source)} "


# A measure and the adjectives that state it: a table's "Height | 443 m" row is written "443 m tall" in a claim
# (and a claim's "height" is a sentence's "tall"); one word, as "sank" and "sink" are.
_MEASURES = {"height": ("tall", "high"), "length": ("long",), "width": ("wide",), "depth": ("deep",),
             "weight": ("heavy",)}
_MEASURED = {word: {measure, *adjectives} for measure, adjectives in _MEASURES.items()
             for word in (measure, *adjectives)}


def forms(words: Iterable[str]) -> set[str]:
    """Each of ``words`` folded, with its stem, every lemma it may have and the words of its measure
    (:data:`_MEASURES`)."""
    out: set[str] = set()
    for word in words:
        folded = word.casefold()
        out.add(folded)
        out.add(stem(word))
        out |= lemmas(word)
        out |= _MEASURED.get(folded, set())
    return out


def among(word: str, found: Collection[str]) -> bool:
    """Whether ``word`` is among ``found`` (:func:`forms`): as written, by its stem or by a lemma."""
    return word.casefold() in found or stem(word) in found or not lemmas(word).isdisjoint(found)


# Words that carry no statement of their own: a claim's predicate is what is left of it without them, its names
# and its numbers.
_FUNCTION = frozenset((
    "the", "and", "was", "were", "are", "is", "be", "been", "has", "had", "have", "for", "not", "did", "does",
    "do", "its", "his", "her", "their", "also", "only", "both", "of", "in", "on", "at", "to", "by", "a", "an",
    "as", "it", "he", "she", "they", "this", "that", "than", "from", "with", "into", "over", "under", "about",
    "or", "but", "so", "which", "who", "whom", "whose", "there", "then", "no", "yes", "one", "first", "any", "all",
    "called", "named", "known", "located", "situated", "found", "made", "can", "could", "will", "would",
    # Verbs of time and aspect that rephrase the text's own ("Construction began in 1965." for "It was
    # constructed between 1965 and 1969"), and hedges: they state nothing the other words do not.
    "began", "begun", "begin", "begins", "started", "start", "starts", "completed", "finished", "ended", "took",
    "place", "became", "become", "remained", "remains", "still", "later", "around", "approximately", "nearly",
    "exactly", "some", "least")) | COMMON
_NAME_RUN = re.compile(r"[A-Z][\w'-]*(?:\s+(?:(?:of|de|du|da|van|von|the|la|le)\s+)?[A-Z][\w'-]*)*")
# A "#" after a letter names a language (C#, F#), not markup.
_IDENTIFIER = re.compile(r"\w+_\w+|\b[a-z]+[A-Z]\w*|[{}<>=|`]|(?<![A-Za-z])#|\s-\s|^[-*•>]")
# Words that make a sentence a statement: forms of be and have, modal verbs, and common irregular verbs of the
# past (a regular one ends in -ed; a verb in the present is found by what follows it: _VERB_BEFORE).
_FINITE = re.compile(
    r"\b(?:is|are|was|were|has|have|had|does|did|do|can|could|will|would|may|might|must|shall|should|isn'?t|"
    r"aren'?t|wasn'?t|weren'?t|doesn'?t|didn'?t|won|built|began|became|wrote|led|made|held|stood|lay|ran|fell|rose|"
    r"grew|gave|took|went|came|saw|knew|left|lost|kept|met|paid|sold|sent|spent|taught|told|bore|flew|drew|sang|"
    r"struck|fought|sank|swam|rang|drank|ate|wore|froze|chose|spoke|broke|drove|rode|hid|shook|threw|blew|felt|"
    r"found|bought|brought|caught|thought|meant|dealt|slept|fed|fled|read|said|laid|heard|sat|shot|split|spread|"
    r"set|put|cut|hit|beat|swore|arose|woke|lies|stands|remains|holds|hosts|means|belongs|consists|runs|sits)\b",
    re.I)
# What follows a verb in the present ("flows into", "orbit the Sun", "borders Russia", "measures 300 m").
_AFTER_VERB = frozenset(("the", "a", "an", "in", "on", "at", "to", "into", "from", "for", "over", "under", "through",
                         "about", "around", "near", "across", "its", "his", "her", "their", "more", "than", "up",
                         "down", "out", "no", "not", "only", "all", "every", "each", "some", "many", "several",
                         # a bound of time ("Curie died after 1950.", "It fell before 1990.")
                         "after", "before", "during", "since", "until", "between", "by"))


def _has_verb(words: Sequence[str]) -> bool:
    """Whether ``words`` hold a verb: one of _FINITE, a word in -ed, or a word followed by _AFTER_VERB."""
    if any(_FINITE.fullmatch(w) for w in words) or any(w.endswith("ed") and len(w) > 4 for w in words[1:]):
        return True
    for word, after in pairwise(words[1:]):
        if not word[:1].islower() or len(word) < 3 or word in _FUNCTION or is_number_word(word):
            continue
        if after.casefold() in _AFTER_VERB or after[:1].isupper() or after[:1].isdigit() or is_number_word(after):
            return True
    return False


def is_statement(claim: str) -> bool:
    """Whether ``claim`` is a declarative sentence: three words or more, a verb, no question, identifier,
    key, markup or heading."""
    text = claim.strip()
    words = _WORD.findall(text)
    if len(words) < 3 or text.endswith(("?", ":")) or _IDENTIFIER.search(text):
        return False
    if re.match(r"^[^\s:]{1,40}:\s", text):  # "Sweden: Bergen", "Note: ..." -- a key and its value
        return False
    return _has_verb(words)


def _sentence_like(text: str) -> bool:
    """Whether the text's own ``text`` may stand as a claim: no heading, key and value or identifier."""
    return not (_IDENTIFIER.search(text) or re.match(r"^[^\s:]{1,40}:\s", text) or text.rstrip().endswith(":"))


def predicate_words(claim: str) -> set[str]:
    """The words of ``claim`` that are not names, numbers, numbers in words or function words."""
    out = set()
    for match in _WORD.finditer(without_urls(claim)):
        word = match.group(0)
        ordinary = match.start() == 0 and word.casefold().endswith(_ORDINARY_ENDINGS)  # "Construction of ..."
        if (word[:1].isupper() and not ordinary) or word.isdigit() or len(word) < 3:
            continue
        folded = word.casefold()
        if folded in _FUNCTION or is_number_word(folded):
            continue
        out.add(folded)
    return out


def _name_words(run: str) -> frozenset[str]:
    """The words of a run of capitalised words that name something (not "The", "Did", "Is"), folded."""
    words = (w.casefold() for w in _WORD.findall(run))
    return frozenset(stem(w) for w in words if w not in NOT_NAMES and w not in _FUNCTION)


def _source_names(source: str) -> list[frozenset[str]]:
    """The names ``source`` writes, each as the words of its run ("Mount Everest": {"mount", "everest"})."""
    return [words for match in _NAME_RUN.finditer(source) if (words := _name_words(match.group(0)))]


def _named_in_full(claim: str, source_names: Sequence[frozenset[str]]) -> set[str]:
    """The words of names ``claim`` writes more fully than the source ("Mount Everest" for "Everest"): a run
    that holds all of one of the source's names, not one that shares a word with it."""
    out: set[str] = set()
    for match in _NAME_RUN.finditer(claim):
        own = _name_words(match.group(0))
        if len(own) > 1 and any(name <= own for name in source_names):
            out.update(own)
    return out


def _contained(claim: str, others: Sequence[str]) -> bool:
    """Whether another of ``others`` says all ``claim`` says and more (it is checked once, in the longer one)."""
    folded = " ".join(_WORD.findall(claim.casefold()))
    return any(folded != (other := " ".join(_WORD.findall(o.casefold()))) and f" {folded} " in f" {other} "
               for o in others)


# Words an English sentence of four words or more almost always has one of; those other languages write as
# often are left out ("a" in French, Spanish and Italian, "in" and "an" in German and Dutch).
_ENGLISH_GLUE = frozenset(("the", "and", "was", "were", "are", "is", "of", "on", "at", "to", "by", "it", "its",
                           "that", "this", "has", "had", "have", "with", "from", "for", "not", "did"))


def in_english(sentence: str) -> bool:
    """Whether ``sentence`` reads as English: mostly Latin letters, and from four words an English function word."""
    if not latin(sentence):  # "富士山の高さは3,776メートルです。": short by its spaces, and not English
        return False
    words = [w.casefold() for w in _WORD.findall(sentence) if not w.isdigit()]
    return len(words) < 4 or any(w in _ENGLISH_GLUE for w in words)


def grounded(claims: list[str], source: str, *, translated: Collection[str] = (),
             answered: Collection[str] = ()) -> tuple[list[str], list[str]]:
    """(claims taken from ``source``, the others): see the module docstring. At most one of a claim's
    :func:`predicate_words`, and under half of them, may be missing. A claim another kept claim contains
    word for word is left out, not counted as ungrounded.

    ``translated``: claims drawn from sentences in another language; only their digits and names are held to
    the source (response_level/translated.py). ``answered``: claims drawn from short answers, whose predicate
    lives in the conversation; only their names and numbers are held to the source."""
    source = without_urls(source)
    known = forms(content_words(source))
    written = set(_WORD.findall(source.replace(",", "")))  # each word once: a long source repeats most
    source_words = forms(written) | iso_months(source)  # "April" of "1912-04-15"
    source_names = _source_names(source)
    # A year the text names by a relative phrase ("1879 ... the following year") is one it states.
    source_numbers = numbers(source) | relative_years(source)
    kept = []
    for claim in claims:
        if claim in translated:  # numbers in words are the translation's ("four" of "quatre"): digits only
            digits = numbers(" ".join(re.findall(r"\d[\d,.]*", claim)))
            if is_statement(claim) and digits <= source_numbers and names_held(claim, source, names(claim)) \
                    and not echoes_example(claim, source):
                kept.append(claim)
            continue
        words = content_words(claim)
        if not is_statement(claim) or (words and not any(among(w, known) for w in words)):
            continue
        full = _named_in_full(claim, source_names)
        if any(stem(n) not in full and not among(n, source_words) for n in names(claim)):
            continue
        if not numbers(claim) <= source_numbers:
            continue
        predicate = predicate_words(claim) if claim not in answered else set()
        missing = [w for w in predicate if not among(w, source_words)]
        if missing and (len(missing) > 1 or 2 * len(missing) >= len(predicate)):
            continue
        if echoes_example(claim, source) or is_opinion(claim):
            continue
        kept.append(claim)
    ungrounded = [c for c in claims if c not in kept]
    return [c for c in kept if not _contained(c, kept)], ungrounded


def _states_a_fact(sentence: str) -> bool:
    words = _WORD.findall(sentence)
    if len(words) < 4 or sentence.rstrip().endswith("?") or is_opinion(sentence) or _IMPERATIVE.match(sentence):
        return False
    if not _has_verb(words):  # a reference ("Physical Review Letters, 105(3), 035502.") names, it does not state
        return False
    return bool(numbers(sentence)) or bool(names(" ".join(words[1:])))


_YES_NO = re.compile(r"^\s*(?:yes|no)\b[,;]?\s*(?=\w)", re.I)
# A label before a statement ("Answer: ...", "**Note:** ...", "Fun fact: ..."): it says what kind of line follows,
# not what the line states, so the statement after it is read (and checked) without it. Only these words: a
# key that names a subject ("Sweden: Bergen") is part of what its line says.
_LABEL = re.compile(
    r"^\s*(?:\*\*|__)?(?:(?:short|final|the|my|quick|correct) answer|answer|a|note|please note|n\.?b\.?|summary|"
    r"in short|in summary|tl;?dr|(?:fun |key |quick )?facts?|correction|update|important|reminder|result|"
    r"conclusion|bottom line|response|reply|explanation|details?|context|background|fact check)"
    r"\s*(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?=\S)", re.I)


def without_label(text: str) -> str:
    """``text`` without a leading label (:data:`_LABEL`) when what follows it is a statement of its own."""
    match = _LABEL.match(text)
    if match is None or not is_statement(rest := text[match.end():]):
        return text
    return rest
# Who says it, or how sure the writer is: not part of what the sentence states ("According to NASA, the Moon
# is ...": a claim without the frame holds it).
_FRAME = re.compile(r"^(?:according to [^,]{1,60}|as [^,]{1,60} (?:puts|put|says|said|writes|wrote) it|"
                    r"if i (?:remember|recall) (?:correctly|rightly)|as far as i know|i (?:believe|think))\s*,?\s*",
                    re.I)
# A leading pronoun or elided subject: the sentence says nothing checkable until it is resolved.
PRONOUN_OPENING = re.compile(r"^(?:it|he|she|they|this|that|these|those|its|his|her|their)\b", re.I)
_NO_SUBJECT = frozenset(("i", "hi", "hello", "hey", "sure", "yes", "no", "ok", "okay", "thanks", "well", "so",
                         "here", "note", "facts", "answer", "summary", "overview"))


def _subject(text: str) -> str | None:
    """The run of capitalised words ``text`` opens with when a verb follows it and it is a name."""
    if not is_statement(text) or re.search(r"[:?]$", text.strip()):
        return None
    match = re.match(r"^((?:The\s+)?(?:[A-Z][\w'.-]*)(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][\w'.-]*)*)\s+(\S+)",
                     text.strip())
    if match is None or match.group(1).casefold() in NOT_NAMES:
        return None
    first = _WORD.findall(match.group(1))[-1].casefold()
    if first in _NO_SUBJECT or _WORD.findall(match.group(1))[0].casefold() in _NO_SUBJECT:
        return None
    if not _FINITE.fullmatch(match.group(2).strip(",;")) and not match.group(2).endswith("ed"):
        return None
    return match.group(1)


def clauses(sentence: str) -> list[str]:
    """``sentence`` split where it joins two statements that each have a subject of their own."""
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
    """Whether ``claims`` say what ``piece`` says: most of its content words, each of its numbers and each of
    its names. The one rule of coverage by words, which the guard uses too."""
    if not claims:
        return False
    words = forms(set().union(*(content_words(c) for c in claims)))
    own = content_words(piece)
    if own and sum(among(w, words) for w in own) / len(own) < 0.6:
        return False
    held = forms(w for c in claims for w in _WORD.findall(c))
    return numbers(piece) <= set().union(*(numbers(c) for c in claims)) and all(among(n, held) for n in names(piece))


# Where one sentence joins a second statement to its first: a conjunction, a semicolon, or a relative clause
# after a comma ("It was finished in 1899 and is made of wrought iron.", "..., which sank in 1912.").
_JOINS = re.compile(r",?\s+(?:and|but|while|whereas|although)\s+|;\s+|,\s+(?:which|who|where)\s+", re.I)
_ITEM_NUMBER = re.compile(r"^\s*\d{1,3}[.)]\s+")


def left_unsaid(sentence: str, claims: Sequence[str]) -> list[str]:
    """What ``sentence`` states that ``claims`` (those drawn from it) leave out: each number no claim writes, and
    each joined part (:data:`_JOINS`) of two or more content words of which no claim writes a single one, its
    own words. No part is named when none shares a word with the claims (a claim written in another language,
    or reworded throughout, is not taken for a part left out); numbers compare as digits in any language."""
    if not claims:
        return []
    said = forms(w for c in claims for w in _WORD.findall(c))
    written = set().union(*(numbers(c) for c in claims))
    out = [n for n in sorted(numbers(_ITEM_NUMBER.sub("", sentence, count=1)) - written, key=Decimal)]
    parts = [p for p in _JOINS.split(sentence) if p and p.strip()]
    words = [content_words(p) for p in parts]
    touched = [any(among(w, said) for w in own) for own in words]
    if len(parts) > 1 and any(touched):
        left = [" ".join(p.split()).strip(" .") for p, own, hit in zip(parts, words, touched, strict=True)
                if len(own) >= 2 and not hit]
        out = [n for n in out if not any(n in numbers(p) for p in left)] + left  # a part names its own numbers
    return out


def uncovered_sentences(text: str, claims: list[str], limit: int, *, opening: str | None = None,
                        covered: Sequence[tuple[int, int]] = ()) -> list[str]:
    """:func:`uncovered_places` without the offsets."""
    return [sentence for sentence, _, _ in uncovered_places(text, claims, limit, opening=opening, covered=covered)]


def reply_subject(text: str, opening: str | None = None) -> str | None:
    """The subject a leading "It" of ``text``'s sentences stands for: that of ``opening`` (the reply's first
    sentence, when ``text`` is a part of the reply), else of ``text``'s first sentence; None when it names none."""
    bounds = sentences(text)
    first = opening if opening is not None else text[bounds[0][0]:bounds[0][1]] if bounds else None
    return _subject(first.strip()) if first else None


def subject_in_place(sentence: str, subject: str | None) -> str:
    """``sentence`` with a leading "It" replaced by ``subject`` ("It stands in Paris." read as "The Eiffel
    Tower stands in Paris."), as :func:`uncovered_places` reads it; unchanged without a subject."""
    stripped = sentence.strip()
    if subject and (pronoun := _PRONOUN_START.match(stripped)):
        return subject + stripped[pronoun.end():]
    return sentence


def uncovered_places(text: str, claims: list[str], limit: int, *, opening: str | None = None,
                     covered: Sequence[tuple[int, int]] = ()) -> list[tuple[str, int, int]]:
    """The sentences of ``text`` that state a fact the ``claims`` do not cover, at most ``limit``, as the text
    writes them (a leading "It" replaced by the subject), with their offsets. A sentence a claim was drawn
    from (``covered``) is covered; any other only by the claims placed on it (:func:`holds`). ``opening``: the
    reply's first sentence, whose subject "It" stands for, when ``text`` is a part of the reply."""
    if limit <= 0:
        return []
    bounds = sentences(text)
    starts = [start for start, _ in bounds]
    placed: dict[int, list[str]] = {}
    for claim, (span, _) in zip(claims, claim_spans(claims, text), strict=True):
        if span is not None:
            placed.setdefault(bisect_right(starts, span.start) - 1, []).append(claim)
    subject = reply_subject(text, opening)
    out: list[tuple[str, int, int]] = []
    said = {" ".join(c.split()).casefold() for c in claims}  # a sentence said again word for word is not added twice
    for number, (start, end) in enumerate(bounds):
        if heading(text[start:end]) or any(a < end and start < b for a, b in covered):
            continue  # a heading states nothing (its items are read under it); a claim was drawn from the other
        for piece in clauses(text[start:end].strip()):
            # "No, it is ...": "it is ..."; "Note: it is ...": "it is ..."
            sentence = without_label(_YES_NO.sub("", LIST_MARKER.sub("", piece, count=1)).strip())
            if heading(piece) or not _sentence_like(sentence) or not _states_a_fact(sentence) \
                    or holds(_FRAME.sub("", sentence), placed.get(number, [])):
                continue
            if (folded := " ".join(sentence.split()).casefold()) in said:
                continue
            said.add(folded)
            if subject and (pronoun := _PRONOUN_START.match(sentence)):
                sentence = subject + sentence[pronoun.end():]
            elif PRONOUN_OPENING.match(sentence):
                # whom it means is not known here: unchecked, said why (guard_engine/coverage.py, unchecked.py)
                continue
            out.append((sentence, start, end))
            if len(out) == limit:
                return out
    return out
