"""Where in a text each extracted claim is said, as character offsets the caller can slice with.

Three tries, most exact first: the claim verbatim; ignoring case, whitespace and closing punctuation; then
the sentence that states it, found by the words that tell sentences apart, a pronoun read with its antecedent
(response_level/placing.py). A claim no one sentence states clearly has no span, and a note saying why.
Every pass is linear in the text (:class:`SentenceEnds`, :class:`TextIndex`), so a long text cannot stall."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from functools import lru_cache

from factdebate.core.types import Span
from factdebate.response_level.placing import MARGIN, PLACE, SentenceWords, conflicting, read_sentence, terms, weights

# A sentence ends at . ! or ? (and any closing quote or bracket) followed by spaces or tabs, or at whitespace
# holding a line break; "3.6", "e.g.x" and a list's marker ("1.") starting a sentence do not end one. Whether a
# word starts a sentence is read from the text before it, so a stream's part is cut as the whole reply is.
_STOPS = ".!?\u3002\uff01\uff1f\uff61\u0964\u0965\u061f\u06d4"  # and Devanagari's danda, Arabic's ? and Urdu's stop
# Closing quotes and brackets, of Latin and of East Asian text: they end the sentence before them.
CLOSING = "\"'\u201d\u2019)]\u300d\u300f\uff09\u3011\u3015\u3009\u300b"
# Scripts written without spaces (Japanese, Chinese) end a sentence at a full-width stop ("\u3002", "\uff01",
# "\uff1f") whether or not a space follows: "...\u3067\u3059\u3002\u5bcc\u58eb\u5c71..." is two sentences.
_FULL_STOPS = "\u3002\uff01\uff1f\uff61"
_FULL_STOP = re.compile(f"[{_FULL_STOPS}][{re.escape(CLOSING)}]*")
_ANY_FULL_STOP = re.compile(f"[{_FULL_STOPS}]")
# A quotation closed after its stop that its sentence goes on from: "「はい。」と言った。" is one sentence (the
# quotation particle "と", or "って", follows the closing bracket).
_QUOTE_CLOSES = "\u300d\u300f"
_QUOTED_ON = "\u3068\u3063"


# What may follow a sentence's stop in the same word: closing quotes and brackets, and citation markers ("sank in
# 1912.[1]", "[^2]"), which belong to the sentence; a marker may arrive in pieces ("[", "1]").
_LAST_STOP = re.compile(f"[{re.escape(_STOPS)}][^{re.escape(_STOPS)}]*$")
_CITED = r"\[\^?\d{1,3}\]"
_TAIL_DONE = re.compile(f"(?:[{re.escape(CLOSING)}]|{_CITED})*")
_TAIL_BEGUN = re.compile(f"(?:[{re.escape(CLOSING)}]|{_CITED})*(?:\\[\\^?\\d{{0,3}})?")
_LONGEST_TAIL = 40
_LAST_CITED = re.compile(f"({_CITED})[{re.escape(CLOSING)}]*$")


def _quoted_on(marks: str, following: str) -> bool:
    """Whether the sentence goes on after a full-width stop and its closing ``marks``, with ``following``."""
    return following in _QUOTED_ON and any(mark in marks for mark in _QUOTE_CLOSES)
# Thai writes no sentence punctuation: a sentence ends where it leaves a space, and its spacing rules put spaces
# elsewhere only around numbers, other scripts' words and between a name and surname. So spaces between two
# Thai letters end a sentence when the text before them is THAI_CLAUSE characters or more; one that ends in a
# number runs on into the next (the two are checked as one, never as none).
_THAI_FIRST, _THAI_LAST = "\u0e01", "\u0e5b"
THAI_CLAUSE = 10


def _thai(character: str) -> bool:
    return _THAI_FIRST <= character <= _THAI_LAST


_PIECE = re.compile(r"\s+|\S+")
_SPACES = re.compile(r"\s+")
_LONG_SPACES = re.compile(r"\s{2,}")
NOT_FOUND = "the extractor reworded this claim beyond finding it in the text"
APPROXIMATE = "approximate: the sentence the claim was reworded from"


# A full stop after these (or after one initial, "J.") is not a sentence's end: titles and words a name or a
# number follows.
_ABBREVIATIONS = frozenset(("dr.", "mr.", "mrs.", "ms.", "prof.", "st.", "mt.", "ft.", "jr.", "sr.", "vs.", "no.",
                            "e.g.", "i.e.", "approx.", "ca.", "inc.", "ltd.", "co.", "u.s.", "u.k.", "cf.", "fig.",
                            "figs.", "vol.", "pp.", "gen.", "col.", "lt.", "sgt.", "capt.", "gov.", "sen.", "rep.",
                            "rev.", "hon.", "pres.", "dept.", "univ.", "assn.", "bros.", "corp.", "ave.",
                            "blvd.", "rd.", "mts."))
# These end a sentence only where the next word does not go on in lower case or with a digit: "He earned a Ph.D.
# in physics.", "Washington, D.C. is the capital.", "in Jan. 1990." are one sentence each, "... a Ph.D. He then
# ..." two. A text that ends after one (a stream's piece) keeps the sentence open until the next word comes.
_ABBREVIATIONS_MID = frozenset(("jan.", "feb.", "mar.", "apr.", "jun.", "jul.", "aug.", "sep.", "sept.", "oct.",
                                "nov.", "dec.", "etc.", "al.", "est.", "a.m.", "p.m.", "ph.d.", "m.d.",
                                "d.c.", "b.a.", "m.a.", "b.sc.", "m.sc.", "a.d.", "b.c.", "u.s.a.", "u.n.", "e.u."))
_INITIAL = re.compile(r"[^\W\d_]\.")
# Letters and full stops in turn ("D.C.", "Ph.D.", "U.S.A."): initials, which the same rule as _ABBREVIATIONS_MID reads.
_INITIALS = re.compile(r"(?:[^\W\d_]{1,2}\.){2,4}")
_HEAD = 1 + max(map(len, _ABBREVIATIONS | _ABBREVIATIONS_MID))  # a word's characters kept: enough to tell one


def _abbreviation(word: str) -> bool:
    word = word.lower()
    return word in _ABBREVIATIONS or _INITIAL.fullmatch(word) is not None


def _abbreviation_mid(word: str) -> bool:
    """Whether ``word`` ends no sentence where the next word goes on in lower case or with a digit."""
    word = word.lower()
    return word in _ABBREVIATIONS_MID or _INITIALS.fullmatch(word) is not None


def _goes_on(following: str) -> bool:
    """Whether a word starting with ``following`` continues the sentence before it ("" : not known yet; "(": a
    year or a reference after "et al.")."""
    return not following or following.islower() or following.isdigit() or following in "(["


class SentenceEnds:
    """Where sentences end in a text read in pieces (or whole), each character once: ``feed`` gives the gaps a
    piece settles, as offsets in the whole text; ``pending`` the trailing whitespace's, which the next piece
    may lengthen. No gap is reported before ``cursor``."""

    def __init__(self, cursor: int = 0) -> None:
        self.length = 0
        self.cursor = cursor
        self._word = -1  # where the last word (run of non-whitespace) starts
        self._opens = False  # that word starts a sentence (or the text): "1." there is a list's marker
        self._head = ""  # its first characters
        self._stop = -1  # just after its last . ! or ? (and any citation markers after it) when only closing
        # quotes or brackets follow; else -1
        self._tail = ""  # the word's characters after its last stop, while they may still be closing marks
        self._tail_at = -1  # where they start; -1: no stop, or characters after it that end no sentence
        self._run = -1  # where the whitespace the text ends with starts; -1 when it ends with a word
        self._blank_end = -1  # the end of that whitespace's leading spaces and tabs
        self._blank_open = False  # it is all spaces and tabs so far (they may go on)
        self._newline = -1  # the last line break in it
        self._full = -1  # just after a full-width stop (and its closing marks) the text ends with, else -1
        self._marks = ""  # that stop and its closing marks
        self._last = ""  # the last word's last character (Thai's sentence ends: between two Thai letters)
        self._next = ""  # the first character of the word after the whitespace (none yet: "")

    def feed(self, piece: str) -> list[tuple[int, int]]:
        """Add ``piece`` to the text; the gaps it settles (those before its last word)."""
        settled: list[tuple[int, int]] = []
        base = self.length
        for match in _PIECE.finditer(piece):
            part, at = match.group(), base + match.start()
            if part[0].isspace():
                self._full = -1  # the whitespace ends that sentence as any stop's does (below)
                if self._run < 0:
                    self._run, self._blank_end, self._blank_open, self._newline = at, at, True, -1
                if self._blank_open:
                    blanks = len(part) - len(part.lstrip(" \t"))
                    self._blank_end, self._blank_open = at + blanks, blanks == len(part)
                if (newline := part.rfind("\n")) >= 0:
                    self._newline = at + newline
            elif self._run >= 0 or at == 0:  # a new word: the whitespace before it is complete
                opens = at == 0 or self._run == 0  # the text's start, after any whitespace it opens with
                self._next = part[0]
                if self._run >= 0:
                    between = (_thai(self._last) and _thai(part[0]) and self._newline < self._run
                               and self._run - self._word >= THAI_CLAUSE)
                    opens = opens or self._ended() or between
                    settled += self._gaps(at, between=between)
                    self._run = -1
                self._word, self._head, self._tail_at = at, part[:_HEAD], -1
                self._stop = self._stop_in(part, at)
                self._opens, self._next = opens, ""
                settled += self._full_stops(part, at)
                self._last = part[-1]
            else:  # the text's last word goes on
                if len(self._head) < _HEAD:
                    self._head += part[:_HEAD - len(self._head)]
                self._stop = self._stop_in(part, at)
                settled += self._full_stops(part, at)
                self._last = part[-1]
        self.length = base + len(piece)
        return settled

    def _full_stops(self, part: str, at: int) -> list[tuple[int, int]]:
        """The sentence ends inside the word ``part`` (at ``at``): after each full-width stop more of it follows
        (unless a quotation goes on: :func:`_quoted_on`); a final stop is kept for the next piece."""
        if self._full < 0 and _ANY_FULL_STOP.search(part) is None:  # most words hold none
            return []
        out: list[tuple[int, int]] = []
        skip = 0
        if self._full >= 0:  # a stop ended the last piece: its closing marks may go on here
            skip = len(part) - len(part.lstrip(CLOSING))
            self._marks += part[:skip]
            if skip < len(part) and at + skip >= self.cursor and not _quoted_on(self._marks, part[skip]):
                out.append((at + skip, at + skip))
            self._full = -1 if skip < len(part) else at + len(part)
        for match in _FULL_STOP.finditer(part, skip):
            end = at + match.end()
            if match.end() < len(part):
                if end >= self.cursor and not _quoted_on(match.group(), part[match.end()]):
                    out.append((end, end))
            else:
                self._full, self._marks = end, match.group()
        return out

    def pending(self) -> list[tuple[int, int]]:
        """The gaps in the whitespace the text ends with, as they stand (the next piece may lengthen them)."""
        self._next = ""
        return self._gaps(self.length) if self._run >= 0 else []

    def _stop_in(self, part: str, at: int) -> int:
        """Where the sentence of the word ``part`` (at ``at``) continues may stop: just after its last stop, and
        after the citation markers that follow it; -1 when something else follows it or there is none. The
        word's characters after its stop are kept (``_tail``), so a marker cut between pieces reads as whole."""
        found = _LAST_STOP.search(part)
        if found is not None:
            tail, self._tail_at = part[found.start() + 1:], at + found.start() + 1
        elif self._tail_at >= 0:  # the word goes on after a stop in an earlier piece
            tail = self._tail + part
        else:
            return -1
        if len(tail) > _LONGEST_TAIL or not _TAIL_BEGUN.fullmatch(tail):
            self._tail_at = -1
            return -1
        self._tail = tail
        if not _TAIL_DONE.fullmatch(tail):
            return -1  # a marker not closed yet
        cited = _LAST_CITED.search(tail)
        return self._tail_at + (cited.end(1) if cited else 0)

    def _stop_ends(self) -> bool:
        """Whether the last word's . ! or ? ends its sentence: not an abbreviation, nor a list's marker."""
        length = self._tail_at - self._word  # the word to its stop, without the markers after it ("U.S.[1]")
        marker = self._opens and 1 < length <= 4 and self._head[:length - 1].isdigit()
        if marker:
            return False
        if length >= _HEAD:
            return True
        word = self._head[:length].lstrip("([{\"'\u201c\u2018")  # "(Sept. 16)" holds the word "Sept."
        return not _abbreviation(word) and not (_abbreviation_mid(word) and _goes_on(self._next))

    def _ended(self) -> bool:
        """Whether a sentence ends in the whitespace the text ends with, wherever the cursor stands."""
        return self._newline >= self._run or (self._stop >= 0 and self._blank_end > self._run and self._stop_ends())

    def _gaps(self, end: int, *, between: bool = False) -> list[tuple[int, int]]:
        """The gaps in the whitespace [self._run, end); ``between``: between two Thai letters, it ends one too."""
        out = []
        if self._stop >= 0 and self._stop >= self.cursor and self._blank_end > self._run:
            # After . ! or ? and closing quotes: the quotes and the spaces or tabs are one gap, unless the word
            # is an abbreviation or a marker; a line break further in the same whitespace is a gap of its own.
            if self._stop_ends():
                out.append((self._stop, self._blank_end))
            if self._newline >= self._run:
                out.append((self._blank_end, end))
        elif self._newline >= (start := max(self._run, self.cursor)):
            out.append((start, end))
        elif between and self._run >= self.cursor:
            out.append((self._run, end))
        return out


def boundaries(text: str, pos: int = 0) -> list[tuple[int, int]]:
    """Where the sentences of ``text`` end, from ``pos`` on: each (start, end) is the gap after a sentence."""
    ends = SentenceEnds(pos)
    return ends.feed(text) + ends.pending()


def _pieces(text: str, gaps: list[tuple[int, int]], start: int, end: int) -> tuple[list[tuple[int, int]], int]:
    """The sentences of ``text[start:end]`` cut at ``gaps`` (the last one open, to ``end``), without
    surrounding whitespace; and where the piece after the last gap starts."""
    out = []
    for gap_start, gap_end in gaps:
        close = gap_start
        if text[gap_start] in CLOSING:  # the closing quote belongs to the sentence
            close += len(text[gap_start:gap_end].rstrip())
        if (piece := _trimmed(text, start, close)) is not None:
            out.append(piece)
        start = gap_end
    return out, start


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    if start < end and (lead := _SPACES.match(text, start, end)) is not None:
        start = lead.end()
    if start < end and text[end - 1].isspace():
        end = start + len(text[start:end].rstrip())
    return (start, end) if end > start else None


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line of ``text``, without surrounding whitespace."""
    if len(text) <= _REMEMBERED_CHARS:
        return list(_remembered_sentences(text))
    return _sentences(text)


# A text's sentences are found once for the texts one check reads several times; a fresh list each time
# (callers may change theirs). Long texts are not kept.
_REMEMBERED_CHARS = 20_000


@lru_cache(maxsize=256)
def _remembered_sentences(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(_sentences(text))


def _sentences(text: str) -> list[tuple[int, int]]:
    out, start = _pieces(text, boundaries(text), 0, len(text))
    if (last := _trimmed(text, start, len(text))) is not None:
        out.append(last)
    return out


def _first_from(haystack: str, needle: str, after: int) -> int:
    at = haystack.find(needle, after)
    return at if at >= 0 else haystack.find(needle)


def _fold_by_character(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased, each whitespace run one space, with each character's original index."""
    chars: list[str] = []
    where: list[int] = []
    for i, c in enumerate(text):
        if c.isspace():
            if chars and chars[-1] == " ":
                continue
            c = " "
        lowered = c.lower()
        chars.append(lowered)
        where += [i] * len(lowered)
    return "".join(chars), where


class TextIndex:
    """What the span search reads of one text, each made once when first needed: its folded form with offsets
    back, and its sentences by content word. ``extend`` reads only the new part of a growing text."""

    def __init__(self, text: str = "") -> None:
        self._parts: list[str] = [text] if text else []
        self._text = text
        self._length = len(text)
        # The folded text: folded up to ``_folded_to`` (the end of the last non-whitespace character seen),
        # where every whitespace run of two or more characters shortens it: run k's space is at folded
        # offset ``_run_at[k]``, and ``_run_shift[k]`` characters have been dropped up to its end.
        self._folded_parts: list[str] = []
        self._folded = ""
        self._folded_to = 0
        self._run_at: list[int] = []
        self._run_shift: list[int] = []
        self._by_character: list[int] | None = None  # the per-character map, for texts that need it
        self._by_character_of = 0  # the length of the text that map is of
        # The sentences settled so far (those the rest of the text cannot change), what each says, and
        # which sentences hold each word; the open end is read at each query.
        self._ends = SentenceEnds()
        self._read_to = 0
        self._piece_start = 0
        self._settled: list[tuple[int, int]] = []
        self._said: list[SentenceWords] = []
        self._subject: frozenset[str] = frozenset()  # the last settled sentence's, for a pronoun after it
        self._postings: dict[str, list[int]] = {}

    def extend(self, more: str) -> None:
        if more:
            self._parts.append(more)
            self._length += len(more)

    def __len__(self) -> int:
        return self._length

    @property
    def text(self) -> str:
        if len(self._text) != self._length:
            self._text = "".join(self._parts)
            self._parts = [self._text]
        return self._text

    # -- the folded text --------------------------------------------------------------------------------

    def folded(self) -> str:
        text = self.text
        if self._by_character is not None:
            if self._by_character_of != len(text):
                self._folded, self._by_character = _fold_by_character(text)
                self._by_character_of = len(text)
            return self._folded
        if self._folded_to >= len(text):
            return self._folded
        stripped = text[self._folded_to:].rstrip()  # a needle never starts or ends with whitespace
        if not stripped:
            return self._folded
        # Lower case letter by letter as before ("Σ" is "σ" wherever it stands, as str.lower() would not say).
        lowered = stripped.lower() if "\u03a3" not in stripped else "".join(map(str.lower, stripped))
        if len(lowered) != len(stripped):  # a letter whose lower case is longer: map each character
            self._by_character = []
            return self.folded()
        base = self._folded_to
        shift = self._run_shift[-1] if self._run_shift else 0
        for run in _LONG_SPACES.finditer(stripped):
            self._run_at.append(base + run.start() - shift)
            shift += run.end() - run.start() - 1
            self._run_shift.append(shift)
        self._folded_parts.append(_SPACES.sub(" ", lowered))
        self._folded = "".join(self._folded_parts)
        self._folded_parts = [self._folded]
        self._folded_to = base + len(stripped)
        return self._folded

    def origin(self, at: int) -> int:
        """The offset in the text of the folded text's character ``at``."""
        if self._by_character is not None:
            return self._by_character[at]
        k = bisect_right(self._run_at, at) - 1
        if k < 0:
            return at
        if at == self._run_at[k]:
            return at + (self._run_shift[k - 1] if k else 0)
        return at + self._run_shift[k]

    # -- the sentences ----------------------------------------------------------------------------------

    def sentences(self) -> list[tuple[int, int]]:
        """(start, end) of each sentence, as :func:`sentences` gives them for the text as it is now."""
        return self._settled + self._open()[0]

    def _read(self) -> str:
        text = self.text
        if self._read_to < len(text):
            gaps = self._ends.feed(text[self._read_to:])
            self._read_to = len(text)
            found, self._piece_start = _pieces(text, gaps, self._piece_start, len(text))
            for start, end in found:
                said = read_sentence(text[start:end], self._subject)
                for word in said.words:
                    self._postings.setdefault(word, []).append(len(self._settled))
                self._settled.append((start, end))
                self._said.append(said)
                self._subject = said.subject
        return text

    def _open(self) -> tuple[list[tuple[int, int]], str]:
        """The sentences after the settled ones (the text's open end), and the text."""
        text = self._read()
        out, start = _pieces(text, self._ends.pending(), self._piece_start, len(text))
        if (last := _trimmed(text, start, len(text))) is not None:
            out.append(last)
        return out, text

    # -- the search -------------------------------------------------------------------------------------

    def find(self, claim: str, *, after: int = 0) -> tuple[Span | None, str | None]:
        """:func:`find_span` in this text."""
        claim = claim.strip()
        text = self.text
        if not claim or not text:
            return None, NOT_FOUND
        bare = claim.rstrip(".!?;: ")
        for needle in dict.fromkeys((claim, bare)):
            if needle and (at := _first_from(text, needle, after)) >= 0:
                return Span(start=at, end=at + len(needle)), None
        folded = self.folded()
        needle = " ".join(bare.split()).lower()
        if needle:
            first = bisect_left(range(len(folded)), after, key=self.origin)
            if (at := _first_from(folded, needle, first)) >= 0:
                return Span(start=self.origin(at), end=self.origin(at + len(needle) - 1) + 1), None
        return self._sentence_of(claim, after)

    def _sentence_of(self, claim: str, after: int) -> tuple[Span | None, str | None]:
        """The sentence that states ``claim`` (response_level/placing.py), of those holding one of its words."""
        wanted = terms(claim)
        if not wanted:
            return None, NOT_FOUND
        open_end, text = self._open()
        subject, open_said = self._subject, []
        for start, end in open_end:
            open_said.append(said := read_sentence(text[start:end], subject))
            subject = said.subject
        settled = len(self._settled)
        frequency = {w: len(self._postings.get(w, ())) + sum(w in s.words for s in open_said) for w in wanted}
        weight = weights(wanted, frequency, settled + len(open_end))
        total = sum(weight.values())
        held: defaultdict[int, float] = defaultdict(float)
        for word, w in weight.items():
            for i in self._postings.get(word, ()):
                held[i] += w
            for j, said in enumerate(open_said):
                if word in said.words:
                    held[settled + j] += w

        def place(i: int) -> tuple[tuple[int, int], SentenceWords]:
            return (self._settled[i], self._said[i]) if i < settled else (open_end[i - settled], open_said[i - settled])

        numbers = {w for w in wanted if w[0].isdigit()}
        shares = {i: h / total for i, h in held.items() if not conflicting(numbers, place(i)[1])}
        if not shares:
            return None, (f"no sentence of the text gives the claim's number ({', '.join(sorted(numbers))})"
                          if held else NOT_FOUND)
        best = max(shares.values())
        if best < PLACE:
            return None, NOT_FOUND
        close = sorted(i for i, share in shares.items() if share >= best - MARGIN)
        statements = {(place(i)[1].key, place(i)[1].words) for i in close}
        if len(statements) > 1:
            first, second = sorted(close, key=lambda i: -shares[i])[:2]
            return None, (f"the claim fits sentences {min(first, second) + 1} and {max(first, second) + 1} of the "
                          "text alike: not marked rather than marked on the wrong one")
        # One statement (said once, or again word for word): the time nearest at or after ``after``.
        start, end = max((place(i)[0] for i in close), key=lambda s: (s[0] >= after, -abs(s[0] - after)))
        return Span(start=start, end=end), APPROXIMATE


def find_span(claim: str, text: str, *, after: int = 0,
              index: TextIndex | None = None) -> tuple[Span | None, str | None]:
    """(span, note) of ``claim`` in ``text``, preferring a place at or after ``after``. The note is None for an
    exact place, "approximate" for a reworded claim's sentence, else why there is no span."""
    if index is None or len(index) != len(text):
        index = TextIndex(text)
    return index.find(claim, after=after)


def claim_spans(claims: list[str], text: str) -> list[tuple[Span | None, str | None]]:
    """Each claim's place, in order: each search prefers a place after where the previous claim was found."""
    out = []
    after = 0
    index = TextIndex(text)
    for claim in claims:
        found, note = index.find(claim, after=after)
        if found is not None:
            after = found.start + 1  # the next claim is said later (the same words again: the next time)
        out.append((found, note))
    return out
