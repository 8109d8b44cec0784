"""Which sentences of a text state something that could be checked, by rules and no model call: framing
("Sure! Here is...", "Let me know if...") costs calls and can only come back NOT ENOUGH INFO. The rules fail
closed: a sentence is left out, with its reason, only when it is one of these, and anything else is a statement:

- ``greeting``: a greeting, thanks, sign-off or offer of help with no other content, or framing that names
  only the answer's topic ("Thanks for asking about Greece!");
- ``question``; ``instruction`` (an imperative that states nothing after its verb); ``opinion`` (a view or
  praise that states nothing once its stance is set aside);
- ``code``: a line of code with no comment (JSON and YAML entries are statements: response_level/structured.py);
- ``heading`` (read into what follows it), ``link``, ``no content`` (too short, outside an answer), and
  ``table header`` (:func:`table_header`);
- ``reference``: where a citation marker points ("[^1]: https://...", "[1] https://..."), a line of markers
  alone ("[1][2]"), and the items of a "References:" or "Sources:" block.

A short answer to a question ("Yes.", "In 1991.") is always a statement. The writer's stance ("I think") and
reminders ("Note that") are set aside and the rest judged on its own, so "I think the Eiffel Tower is in
Berlin." is checked. :func:`gated` is the one gate: the guard and a response check both hand the extractor only
the sentences it passes, so a small model has no "Hello!" to copy into its claims."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence

from factdebate.response_level.lemmas import inflected_verb
from factdebate.response_level.links import URL, without_urls
from factdebate.response_level.scripts import word_count
from factdebate.response_level.spans import sentences
from factdebate.response_level.structured import (
    json_line,
    member,
    opens_container,
    punctuation,
    structured,
    table_row,
    table_rule,
)

_GREETING = re.compile(
    r"^(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening)|thanks?\b|thank you|you'?re welcome|sure\b|"
    r"of course|certainly|absolutely|great question|good question|glad|happy to help|no problem|okay|ok\b|"
    r"i hope (?:this|that) helps|hope (?:this|that) helps|let me know|feel free|have a (?:great|nice|good)|"
    r"here(?:'s| is| are) (?:a |an |the |some )?(?:summary|overview|answer|list|breakdown|quick)|"
    r"i'?d be happy|i'?m happy|i can help|as an ai|"
    # Offers and wishes that close a reply ("If you'd like, I can share more tips.", "Enjoy your trip!").
    r"i (?:can|could) (?:also )?(?:tell|give|help|share|explain|provide|suggest|recommend|show|find)|"
    r"if you(?:'d| would)? (?:like|want|wish|need)|i hope you|hope you|enjoy|have fun|safe travels|good luck|"
    r"best of luck|happy (?:travels|travelling|traveling|exploring|reading|learning|studying)|bon voyage|"
    r"cheers|take care|all the best|best wishes|my pleasure|anytime|don'?t hesitate|"
    # Acknowledgements ("Here you go.", "Sounds good!").
    r"here you go|here it is|there you go|no worries|great choice|good choice|sounds good|you got it|got it|"
    r"that sounds (?:great|good|fun|like a (?:plan|good idea|great idea))|understood|noted)", re.I)
# What a greeting, thanks or offer of help may hold besides its opening and still say nothing: no name, number
# or word of content ("Let me know if you have any other questions.", "Have a great trip!").
_FRAMING_WORDS = frozenset((
    "a", "an", "the", "and", "or", "but", "so", "if", "to", "of", "for", "with", "in", "on", "at", "about", "from",
    "by", "as", "this", "that", "these", "those", "it", "its", "here", "there", "i", "im", "id", "ill", "me", "my",
    "we", "us", "our", "you", "youre", "your", "yours", "am", "is", "are", "be", "been", "being", "was", "were",
    "do", "does", "did", "have", "has", "had", "can", "could", "would", "will", "shall", "should", "may", "might",
    "any", "anything", "anyone", "something", "else", "more", "other", "another", "further", "additional",
    "question", "questions", "help", "helps", "helped", "helping", "helpful", "assist", "assistance", "happy",
    "glad", "pleased", "hope", "know", "let", "feel", "free", "ask", "asking", "asked", "reach", "out", "touch",
    "need", "needs", "want", "wish", "like", "just", "always", "again", "today", "now", "soon", "anytime", "time",
    "sure", "certainly", "absolutely", "course", "okay", "ok", "great", "good", "nice", "wonderful", "excellent",
    "fun", "interesting", "lovely", "day", "morning", "afternoon", "evening", "night", "weekend", "welcome",
    "thanks", "thank", "much", "very", "really", "lot", "all", "hi", "hello", "hey", "greetings", "cheers",
    "bye", "goodbye", "see", "later", "care", "enjoy", "trip", "visit", "stay", "travels", "journey", "reading",
    "exploring", "learning", "luck", "best", "regards", "one", "topic", "info", "information", "details", "tell",
    "explain", "talk", "chat", "what", "whatever", "way", "curious", "hear", "back", "share", "give", "suggest",
    "recommend", "show", "find", "provide", "also", "some", "few", "tips", "ideas", "suggestions",
    "recommendations", "options", "examples", "facts", "details", "history", "summary", "overview", "list",
    "breakdown", "quick", "answer", "answers", "plan", "plans", "itinerary", "hesitate", "wonderful", "amazing",
    "fantastic", "awesome", "safe", "travels", "fun", "wishes", "pleasure", "go", "idea", "choice", "worries"))
# Words of a clause: a framing phrase's topic that holds one ("... with the Eiffel Tower, which is in Berlin")
# states something.
_CLAUSE_WORD = re.compile(r"\b(?:is|are|was|were|isn'?t|wasn'?t|has|have|had|does|did|will|would|can|could|"
                          r"which|who|whose|where|that)\b|\b[a-z]{3,}ed\b", re.I)
# An imperative opening: the verb and then a space (so "Check-in opens at 3" is no instruction), not a noun
# ("Use of force...").
_INSTRUCTION = re.compile(
    r"^(?:please|try|click|open|run|install|make sure|remember|consider|check|see|visit|ask|contact|go to|use|"
    r"add|remove|set|type|press|follow|keep|avoid|don'?t|do not|never|always|be sure|tip:|"
    # A hedge that sends the reader to check ("You may want to double-check this.")
    r"you (?:may|might) (?:want|wish|need) to|it(?:'s| is| would be|'d be) (?:a good idea|best|wise|advisable) to|"
    r"double-check|verify)\s(?!of\b)", re.I)
# Taste, set aside as a stance is ("I love Paris in spring." states nothing; "I love that the Eiffel Tower is in
# Berlin." does).
_OPINION = re.compile(r"^(?:i (?:really |just )?(?:feel|love|like|prefer|adore|enjoy))\b", re.I)
# The writer's stance: set aside (wherever it stands) and the rest judged on its own.
_STANCE = re.compile(
    r"\b(?:i (?:really |honestly |personally )?(?:think|believe|guess|suppose|reckon|would say)(?: that)?|"
    r"in my (?:honest )?(?:opinion|view|experience)|personally|honestly|frankly|to be (?:honest|frank)|imho|"
    r"it seems to me(?: that)?|i'?d (?:say|recommend|suggest)(?: that)?|i (?:recommend|suggest)(?: that)?|"
    r"if you ask me)\b[,:]?", re.I)
# A reminder to the reader, at the start: set aside too ("Remember to bring water." then states nothing).
_REMINDER = re.compile(r"^(?:remember|don'?t forget|do not forget|note|keep in mind|bear in mind|be aware|"
                       r"fun fact|did you know)(?: that)?\b[,:]?\s*", re.I)
_VERB = re.compile(r"\b(?:is|was|are|were|has|had|have|stands|stood|lies|opened|became|holds|held|won|"
                   r"contains|measures|founded|built)\b", re.I)
_NAME_RUN = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:(?:of|de|du|la|the)\s+)?[A-Z][\w'-]*)*")
_NOT_A_NAME = frozenset(("the", "a", "an", "it", "its", "this", "that", "these", "those", "they", "we", "you",
                         "he", "she", "i", "in", "on", "at", "for", "and", "but", "or", "if", "so", "to", "my"))
_PRONOUN_SUBJECT = re.compile(r"^(?:it|this|that|these|those|they|you|we|he|she|there)\b", re.I)
_PRAISE = re.compile(
    r"\b(?:beautiful|lovely|amazing|wonderful|delicious|awesome|fantastic|stunning|gorgeous|boring|terrible|"
    r"must-see|breathtaking|charming|fascinating|incredible|delightful)\b", re.I)
_JUDGEMENT = re.compile(r"\b(?:better|best|worse|worst|nicer|nicest|prettier|tastier|overrated|underrated|"
                        r"more (?:fun|interesting|beautiful|pleasant)|great|good|bad|nice)\b", re.I)
_WORDS = re.compile(r"[^\W_]+")


def _name_runs(text: str) -> int:
    """How many names ``text`` writes (a run of capitalised words is one: "Eiffel Tower")."""
    return sum(m.group(0).split()[0].casefold() not in _NOT_A_NAME for m in _NAME_RUN.finditer(text))


def _states_something(rest: str, *, stance: bool) -> bool:
    """Whether what follows framing or an imperative verb states something: a number, two names, or a verb
    of being or having with a name (after a ``stance``, with a subject that is not a pronoun)."""
    if re.search(r"\d", rest) or _name_runs(rest) >= 2:
        return True
    if not _VERB.search(rest):
        return False
    return _name_runs(rest) >= 1 or (stance and not _PRONOUN_SUBJECT.match(rest.strip()))


# A list item's marker ("- ", "* ", "1. ", "2) "): only the marker is set aside, so "- 2012: London" keeps its year.
LIST_MARKER = re.compile(r"^\s*(?:[-*•+>]+|\d{1,3}[.)])\s+")
_HEADING_MARK = re.compile(r"^\s*#{1,6}\s")
_FOOTNOTE = re.compile(r"^\[\^?\d{1,3}\]:")
# A citation marker ("[1]", "[^2]", "【3†source】"): a line of them alone points to sources, it states nothing.
_MARKER = r"(?:\[\^?\d{1,3}\]|【\d{1,3}[^】]{0,40}】)"
_MARKERS_ONLY = re.compile(rf"^(?:\s*{_MARKER})+\s*[.,;]?$")
_MARKED = re.compile(rf"^{_MARKER}\s+")  # a reference list's line: "[1] https://..."
# A block that lists the reply's sources: its items are references, not statements.
_SOURCES_HEADING = re.compile(r"^\W*(?:references?|sources?|citations?|bibliography|further reading|works cited|"
                              r"read more|learn more)\W*$", re.I)
# What a sentence that only points to a link says besides the link ("You can read more at <URL>.").
_POINTER = re.compile(r"\b(?:more|read|see|source|sources|details?|learn|visit|link|info|information|website|page|"
                      r"here|reference|references|via|found|check)\b", re.I)
# Thanks and framing of the answer, however much they name: "Thanks for asking about Europe's landmarks."
_FRAMING = re.compile(
    r"^(?:(?:many |big )?thanks?(?: you)?(?: so much)? for (?:asking|your (?:question|interest)|reaching out)|"
    r"(?:that'?s |what )?(?:a )?(?:great|good|excellent|interesting|fun) question|glad you asked|"
    r"happy to help|i'?d be (?:happy|glad) to (?:help|explain|tell you))"
    r"(?:\s+(?:about|on|regarding|concerning|with|to)\s+(?P<topic>[^.!?;:,()\u2013\u2014]*))?[\s.!?]*$", re.I)


def list_item(sentence: str) -> bool:
    """Whether ``sentence`` is an item of a list (it opens with a list marker)."""
    return LIST_MARKER.match(sentence) is not None


def heading(sentence: str) -> bool:
    """Whether ``sentence`` heads what follows: a Markdown heading, or a line that ends with a colon."""
    text = sentence.strip()
    return bool(_HEADING_MARK.match(text)) or (text.endswith(":") and not list_item(text)) or (
        text.startswith("**") and text.rstrip(":").endswith("**"))


def only_a_link(text: str) -> bool:
    """Whether ``text`` only points to a link: a URL, and besides it no number, no name, only pointer words."""
    if not URL.search(text):
        return False
    rest = without_urls(text)
    if re.search(r"\d", rest) or _name_runs(" ".join(rest.split()[1:])) or len(_WORDS.findall(rest)) > 12:
        return False
    return not _WORDS.findall(rest) or bool(_POINTER.search(rest)) or len(_WORDS.findall(rest)) <= 3


def _framing_only(text: str) -> bool:
    """Whether ``text``, which opens with :data:`_GREETING`, holds nothing else: no number or name, and only
    :data:`_FRAMING_WORDS` or, with no clause, at most two other words."""
    opening = _GREETING.match(text)
    rest = text[opening.end():] if opening else text
    if re.search(r"\d", rest) or _name_runs(" " + rest):
        return False
    words = [w.casefold().replace("'", "") for w in re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", rest)]
    other = [w for w in words if w not in _FRAMING_WORDS]
    if not other:
        return True
    return not _CLAUSE_WORD.search(rest) and len(other) <= 2 and not any(_past(w) for w in other)


def _past(word: str) -> bool:
    """Whether ``word`` is a verb's past form ("sank", "built"), not a plural or an "-ing" word."""
    return not word.endswith(("s", "ing")) and inflected_verb(word)


def _framing(text: str) -> bool:
    """Thanks or framing of the answer, with at most its topic after it and no clause in that topic."""
    match = _FRAMING.match(text)
    return match is not None and not _CLAUSE_WORD.search(match.group("topic") or "")


def _praise_only(text: str) -> bool:
    """Whether ``text`` only praises: without its words of praise, no name after its verb and no number."""
    rest = _PRAISE.sub(" ", text)
    if re.search(r"\d", rest) or _name_runs(rest) >= 2:
        return False
    verb = _VERB.search(rest)
    return verb is None or _name_runs(rest[verb.end():]) == 0


# A line of code: a fence, an assignment, a call, a statement a language opens with, or a line closed by ; { }.
_CODE = re.compile(
    r"^(?:```|~~~)|^[\w.\[\]'\"]+\s*(?:[-+*/%|&^]|<<|>>|//)?=(?!=)\s*\S|\b[A-Za-z_][\w.]*\([^()]*\)\s*[;{:]?\s*$|"
    r"^(?:def|class|import|from\s+[\w.]+\s+import|return|const|let|var|function|fn|func|pub|public|private|"
    r"static|package|using|elif|else:|try:|except\b|finally:|#include|#define|echo|print)\b|[;{}]\s*$")
# A comment after code (# // /* -- ;; or <!-- -->): its words may state something.
_COMMENT = re.compile(r"(?:^|\s)(?:#|//|/\*|--|<!--)\s*(.*)$")


def code_line(text: str) -> bool:
    """Whether ``text`` is a line of code with no comment in words: a fence, or code-shaped and not prose."""
    line = text.strip()
    if re.match(r"^(?:```|~~~)[\w+-]*$", line):
        return True
    if json_line(line):  # a JSON object or member ('{"city": "Paris"}', '"completed": 1859}'): data that states
        return False
    comment = _COMMENT.search(line)
    if comment is not None and re.search(r"[^\W\d_]{2,}", comment.group(1)):
        return False  # a comment in words ("# the tower is 330 m tall") is read as a statement
    code = (line[:comment.start()] if comment is not None else line).strip()
    # A sentence of prose ends as one, with words in it ("E = mc2 is Einstein's formula."); code rarely does.
    prose = code.endswith((".", "!", "?")) and len(re.findall(r"\b[A-Za-z]{2,}\b", code)) >= 3
    return bool(code) and bool(_CODE.search(code)) and not prose


def table_header(text: str, end: int) -> bool:
    """Whether the line of ``text`` that ends at ``end`` is a table's header row (a rule "|---|" under it)."""
    line_start = text.rfind("\n", 0, end) + 1
    if not table_row(text[line_start:end]):
        return False
    after = text[end:].lstrip(" \t")
    if not after.startswith("\n") and not after.startswith("\r"):
        return False
    rule = after.lstrip("\r\n").split("\n", 1)[0]
    return table_rule(rule)


def _opinion_only(rest: str, *, stance: bool) -> bool:
    """Whether what follows the writer's stance only judges: comparison or praise, one thing named, no number."""
    if re.search(r"\d", rest):
        return False
    if _JUDGEMENT.search(rest) and _name_runs(rest) < 2:
        return True
    return bool(_PRAISE.search(rest)) and _praise_only(rest) if stance else False


def reason_to_skip(sentence: str, *, asked: bool = False) -> str | None:
    """Why ``sentence`` is not worth checking, or None when it is. ``asked``: the text answers a message, so a
    short sentence is a statement in its context; so is a list item in its heading's."""
    # A list item, a table row or a key's value ('"city": "Paris",') states something about its heading's,
    # table's or object's subject, however short.
    item = list_item(sentence) or member(sentence) or table_row(sentence)
    text = LIST_MARKER.sub("", sentence.strip(), count=1).strip()
    if _HEADING_MARK.match(text) or opens_container(text):
        return "heading"
    if code_line(text):
        return "code"
    if _FOOTNOTE.match(text) or _MARKERS_ONLY.match(text):  # "[^1]: Britannica, 2020.": where a marker points
        return "reference"
    if (marked := _MARKED.match(text)) and only_a_link(text[marked.end():]):  # "[1] https://en.wikipedia.org/..."
        return "reference"
    text = text.strip("*_ ").strip()
    if not _WORDS.search(text):
        return "no content"
    if text.endswith(("?", "\uff1f", "\u061f")):  # and the full-width and Arabic question marks
        return "question"
    if not item and heading(sentence):
        return "heading"
    if only_a_link(text):
        return "link"
    text = without_urls(text).strip() or text
    if _framing(text):
        return "greeting"
    taste = _OPINION.match(text)
    framed = _STANCE.search(text) or _REMINDER.match(text) or taste
    if framed:
        rest = _REMINDER.sub("", _STANCE.sub(" ", _OPINION.sub(" ", text, count=1)).strip(" ,;:"), count=1)
        rest = re.sub(r"^that\b", "", rest.strip(" ,;:"), flags=re.I).strip(" ,;:")
        stance = bool(_STANCE.search(text) or taste)
        # After a stance, a judgement that names no more than one thing is the writer's view.
        if (stance and _opinion_only(rest, stance=True)) or not _states_something(rest, stance=stance):
            return "opinion" if stance else "instruction"
        return reason_to_skip(rest, asked=asked)
    count = word_count(text)  # by script: "東京タワーは1958年に完成した。" is several words, not one
    if _GREETING.match(text) and _framing_only(text):
        return "greeting"
    if count < 3 and not re.search(r"\d", text) and not (asked or item):
        return "no content"
    # An instruction that states something after its verb ("Visit the Louvre, open since 1793", "Visit the
    # Eiffel Tower in Berlin") is checked for it.
    if ((verb := _INSTRUCTION.match(text)) and not _states_something(text[verb.end():], stance=False)
            and not re.match(r"^(?:never|always)\b.*\b(?:is|was|are|were)\b", text, re.I)):
        return "instruction"
    if _PRAISE.search(text) and count <= 12 and _praise_only(text):
        return "opinion"
    return None


# An answer to the question before it: "Is the Eiffel Tower in Berlin? Yes." states that it is.
_ANSWER = re.compile(r"^\W*(?:yes|no|yep|nope|correct|right|exactly|indeed|absolutely|definitely|of course|"
                     r"that'?s (?:right|correct))\b", re.I)


def short_answer(sentence: str) -> bool:
    """Whether ``sentence`` is a short answer (a yes or no, or under three words) that the question completes."""
    text = LIST_MARKER.sub("", sentence.strip(), count=1)
    return bool(_ANSWER.match(text)) or word_count(text) < 3


# A question that is answered yes or no (not a request put as one: "Can you tell me ...?").
_YES_NO_QUESTION = re.compile(
    r"^(?:is|are|was|were|am|do|does|did|has|have|had|can|could|will|would|should|shall|may|might|must|"
    r"isn'?t|aren'?t|wasn'?t|weren'?t|doesn'?t|didn'?t|hasn'?t|haven'?t)\b(?!\s+(?:you|u|i)\b)", re.I)
# A bare agreement, which the gate alone reads as framing ("Sure!" before an answer).
_AGREEMENT = re.compile(r"^\W*(?:sure|of course|certainly|absolutely|definitely|indeed|okay|ok|right|correct|"
                        r"exactly|yep|yeah)\b", re.I)


def answers_asked(question: str | None, sentence: str) -> bool:
    """Whether ``sentence``, a bare agreement, answers the yes-or-no question that ends ``question``."""
    if not question or not _AGREEMENT.match(sentence):
        return False
    asked = re.findall(r"[^.!?\n]*\?", question)
    return bool(asked) and bool(_YES_NO_QUESTION.match(asked[-1].strip()))


# An FAQ's lines: "Q: When did it sink?" then "A: In 1912." (also bold, or spelt out as Question / Answer).
_ASKED_LINE = re.compile(r"^\W*(?:q|question)\s*(?:\*\*|__)?\s*[:.]", re.I)
_ANSWER_LINE = re.compile(r"^\W*(?:a|answer)\s*(?:\*\*|__)?\s*[:.]\s*(?:\*\*|__)?\s*\S", re.I)


def answers(question: str, reply: str) -> bool:
    """Whether ``reply`` answers the question ``question``: yes or no, possibly said more, or an FAQ's answer
    line under its question line (the answer says nothing without it: "A: In 1912.")."""
    if not question.rstrip().endswith("?"):
        return False
    return bool(_ANSWER.match(reply)) or bool(_ASKED_LINE.match(question) and _ANSWER_LINE.match(reply))


FENCE = re.compile(r"\s*(?:```|~~~)")  # a code block's fence, opening or closing it
_HASH_COMMENT = re.compile(r"\s*#+\s*(.*)", re.S)  # a comment line in a shell, Python or Ruby block


def gated(text: str, *, asked: bool = False, fenced: bool = False, sources: bool = False,
          before: str | None = None) -> list[tuple[int, int, str | None]]:
    """Every sentence of ``text`` as (start, end, why it is left out or None). A question and its yes or no
    are one statement. ``asked``: as :func:`reason_to_skip`. In a fenced code block a ``#`` line is a comment,
    judged as prose; ``fenced``: ``text`` starts inside such a block. ``sources``: ``text`` starts inside a
    block of references (:func:`sources_after`), ``before`` the whitespace before it there (None: not known,
    so its first sentence goes on the block only as an item of it)."""
    out: list[tuple[int, int, str | None]] = []
    for start, end in sentences(text):
        sentence = text[start:end]
        if out and out[-1][2] == "question" and answers(text[out[-1][0]:out[-1][1]], sentence):
            out[-1] = (out[-1][0], end, None)
            continue
        reason = reason_to_skip(sentence, asked=asked)
        gap = text[out[-1][1]:start] if out else before + text[:start] if before is not None else None
        if sources and reason != "heading" and _in_sources(sentence, reason, gap):
            reason = "reference"
        sources = _sources_go_on(sentence, reason, sources)
        if FENCE.match(sentence):
            fenced = not fenced
        elif fenced and reason == "heading" and (comment := _HASH_COMMENT.match(sentence)) is not None:
            reason = reason_to_skip(comment.group(1), asked=asked)
        out.append((start, end, reason))
    return out


def _in_sources(sentence: str, reason: str | None, gap: str | None) -> bool:
    """Whether ``sentence``, in a block of references, is one of them: an item, a marked line, a link, or a
    line of the paragraph of the sentence before it, ``gap`` the whitespace between them ("Lord, W. A Night to
    Remember."; None: not known)."""
    return (list_item(sentence) or _MARKED.match(sentence.strip()) is not None or reason in ("link", "reference")
            or (gap is not None and gap.count("\n") < 2))


def _sources_go_on(sentence: str, reason: str | None, sources: bool) -> bool:
    """Whether a block of references goes on after ``sentence`` (gated with ``reason``; ``sources``: it was on)."""
    if reason == "heading":
        return _SOURCES_HEADING.match(sentence.strip().strip("#*_ :")) is not None
    return sources and reason == "reference"


def sources_after(pieces: Iterable[tuple[str, str | None]], sources: bool = False) -> bool:
    """Whether the text after ``pieces`` (each sentence as :func:`gated` read it, with its reason) is inside a
    block of references ("References:", "Sources:" and its items), as ``fenced`` says of a code block."""
    for sentence, reason in pieces:
        sources = _sources_go_on(sentence, reason, sources)
    return sources


def layout(text: str, pieces: Sequence[tuple[int, int, str | None]],
           chosen: Sequence[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
    """The sentences ``chosen`` (offsets in ``text``) as the extractor is given them: each list item and each
    sentence right after a heading under that heading, on a line of its own (``pieces``: the gate's reading of
    ``text``), and the offsets there of each of ``chosen`` (the sentences shown numbered). Every door builds the
    extractor's text here."""
    starts = [start for start, _, _ in pieces]
    out: list[str] = []
    at: list[tuple[int, int]] = []
    length = 0
    current: tuple[int, int] | None = None
    shaped = False  # the sentence before is a table row or a line of a JSON object or YAML mapping
    for start, end in chosen:
        at_piece = bisect_left(starts, start)
        own = at_piece < len(pieces) and pieces[at_piece][:2] == (start, end) and pieces[at_piece][2] == "heading"
        # A heading chosen itself is numbered on its own line, and the sentences under it are not given it again.
        title = (start, end) if own else _heading_of(text, pieces, at_piece)
        sentence = text[start:end].strip()
        shaped_before, shaped = shaped, structured(sentence)
        if own:
            lead = "\n" if out else ""
        elif title is not None and title != current:
            lead = "\n" + text[title[0]:title[1]].strip() + "\n"
        elif title is not None or (out and (shaped or shaped_before)):
            # A table row or a line of a JSON object or YAML mapping is shown on a line of its own, as the reply
            # writes it: rows joined into one line read as one "sentence", a table's cells as one fact's words.
            lead = "\n"
        else:
            lead = " " if out else ""
        out.append(lead + sentence)
        at.append((length + len(lead), length + len(lead) + len(sentence)))
        length += len(lead) + len(sentence)
        current = title
    joined = "".join(out)
    cut = len(joined) - len(joined.lstrip())  # the text is given without the whitespace it would open with
    return joined.strip(), [(start - cut, end - cut) for start, end in at]


def _heading_of(text: str, pieces: Sequence[tuple[int, int, str | None]], at: int) -> tuple[int, int] | None:
    """The heading ``pieces[at]`` is under: the nearest before it with only list items or JSON members between."""
    item = at < len(pieces) and _item_of(text[pieces[at][0]:pieces[at][1]])
    for back in range(at - 1, -1, -1):
        start, end, reason = pieces[back]
        if reason == "heading":
            return start, end
        if not (item and (_item_of(text[start:end]) or punctuation(text[start:end]))):
            return None
    return None


def _item_of(sentence: str) -> bool:
    """Whether ``sentence`` is read under a heading above it: a list item, or a JSON member."""
    return list_item(sentence) or json_line(sentence)
