"""Which sentences of a text state something that could be checked, by rules and no model call: a chat reply
or a long answer is partly framing ("Sure! Here is...", "I hope this helps", "Let me know if..."), and
verifying it costs calls and can only come back NOT ENOUGH INFO. A sentence left out is said with its
reason: ``question``, ``greeting`` (greetings, thanks, sign-offs and other framing), ``instruction``
(imperatives addressed to the reader), ``opinion`` (the writer's own view, or praise without a fact in it)
or ``no content`` (too short to say anything). The rules err towards checking: framing that names something
(a number, or a capitalised word after the first) is kept. The guard's gate (guard/gate.py) and a response
check's note on the sentences it did not check (unchecked.py) both read them.

Framing does not hide a statement (issue 47): the writer's stance ("I think", "In my opinion", "Honestly,",
"I'd recommend") and reminders to the reader ("Remember that", "Don't forget", "Note that") are set aside
and what follows is judged on its own, so "I think the Eiffel Tower is in Berlin." is checked. An imperative
("Visit ...", "Check ...") is an instruction only when what follows the verb states nothing: no number, not
two names ("Visit the Eiffel Tower in Berlin." is checked; "Visit the Louvre early." is not), and no "is",
"was", "has"... with a name. A question answered "Yes." or "No." is a statement (:func:`gated` joins them).

:func:`gated` is the one gate (issue 49, item 2): the guard (guard/gate.py) and a response check
(run/response.py) both hand the extractor only the sentences it passes, so a small model that copies "Hello!"
or "What is its height?" into its claims has nothing to copy them from.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence

from factdebate.response_level.links import URL, without_urls
from factdebate.response_level.spans import sentences

_GREETING = re.compile(
    r"^(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening)|thanks?\b|thank you|you'?re welcome|sure\b|"
    r"of course|certainly|absolutely|great question|good question|glad|happy to help|no problem|okay|ok\b|"
    r"i hope (?:this|that) helps|hope (?:this|that) helps|let me know|feel free|have a (?:great|nice|good)|"
    r"here(?:'s| is| are) (?:a |an |the |some )?(?:summary|overview|answer|list|breakdown|quick)|"
    r"i'?d be happy|i'?m happy|i can help|as an ai)", re.I)
# An imperative opening: the verb and then a space (so "Check-in opens at 3" is no instruction), not a noun
# ("Use of force...").
_INSTRUCTION = re.compile(
    r"^(?:please|try|click|open|run|install|make sure|remember|consider|check|see|visit|ask|contact|go to|use|"
    r"add|remove|set|type|press|follow|keep|avoid|don'?t|do not|never|always|be sure|tip:)\s(?!of\b)", re.I)
_OPINION = re.compile(r"\b(?:i feel|i love|i like|i prefer|i adore|i enjoy)\b", re.I)  # taste, not a statement
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
_FACT_MARK = re.compile(r"\d|\b[A-Z][a-z]+")
_WORDS = re.compile(r"[^\W_]+")


def _names_a_fact(text: str) -> bool:
    """A number anywhere, or a capitalised word after the first (a name)."""
    words = text.split(maxsplit=1)
    return bool(re.search(r"\d", text)) or (len(words) > 1 and bool(_FACT_MARK.search(words[1])))


def _name_runs(text: str) -> int:
    """How many names ``text`` writes (a run of capitalised words is one: "Eiffel Tower")."""
    return sum(m.group(0).split()[0].casefold() not in _NOT_A_NAME for m in _NAME_RUN.finditer(text))


def _states_something(rest: str, *, stance: bool) -> bool:
    """Whether what follows framing (``stance``: the writer's) or an imperative verb states something: a
    number, two names, a verb of being or having with a name, or (after a stance) with a subject that is
    not a pronoun ("I think the tower is made of iron", not "I think it is great")."""
    if re.search(r"\d", rest) or _name_runs(rest) >= 2:
        return True
    if not _VERB.search(rest):
        return False
    return _name_runs(rest) >= 1 or (stance and not _PRONOUN_SUBJECT.match(rest.strip()))


# A list item's marker ("- ", "* ", "1. ", "2) "): only the marker is set aside, so "- 2012: London" keeps its year.
LIST_MARKER = re.compile(r"^\s*(?:[-*•+>]+|\d{1,3}[.)])\s+")
_HEADING_MARK = re.compile(r"^\s*#{1,6}\s")
# What a sentence that only points to a link says besides the link ("You can read more at <URL>.").
_POINTER = re.compile(r"\b(?:more|read|see|source|sources|details?|learn|visit|link|info|information|website|page|"
                      r"here|reference|references|via|found|check)\b", re.I)
# Thanks and framing of the answer, however much they name: "Thanks for asking about Europe's landmarks."
_FRAMING = re.compile(
    r"^(?:(?:many |big )?thanks?(?: you)?(?: so much)? for (?:asking|your (?:question|interest)|reaching out)|"
    r"(?:that'?s |what )?(?:a )?(?:great|good|excellent|interesting|fun) question|glad you asked|"
    r"happy to help|i'?d be (?:happy|glad) to (?:help|explain|tell you))"
    r"(?:\s+(?:about|on|regarding|concerning|with|to)\b[^.!?;]*)?[\s.!?]*$", re.I)


def list_item(sentence: str) -> bool:
    """Whether ``sentence`` is an item of a list (it opens with a list marker)."""
    return LIST_MARKER.match(sentence) is not None


def heading(sentence: str) -> bool:
    """Whether ``sentence`` heads what follows: a Markdown heading, or a line that ends with a colon (a sentence
    only ends at a colon where its line does)."""
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


def reason_to_skip(sentence: str, *, asked: bool = False) -> str | None:
    """Why ``sentence`` is not worth checking, or None when it is. ``asked``: the text answers a person's
    message, so a short sentence ("Sydney.", "Yes.") is a statement in that message's context, never "no
    content"; a list item ("- Sweden: Bergen") is a statement about its heading's subject, never "no content"
    either."""
    item = list_item(sentence)
    text = LIST_MARKER.sub("", sentence.strip(), count=1).strip()
    if _HEADING_MARK.match(text):
        return "heading"
    text = text.strip("*_ ").strip()
    if not _WORDS.search(text):
        return "no content"
    if text.endswith("?"):
        return "question"
    if not item and heading(sentence):
        return "heading"
    if only_a_link(text):
        return "link"
    text = without_urls(text).strip() or text
    if _FRAMING.match(text):
        return "greeting"
    framed = _STANCE.search(text) or _REMINDER.match(text)
    if framed:
        rest = _REMINDER.sub("", _STANCE.sub(" ", text).strip(" ,;:"), count=1).strip(" ,;:")
        stance = bool(_STANCE.search(text))
        # After a stance, a judgement with no number is the writer's view ("the food is better in Lyon").
        judged = stance and bool(_PRAISE.search(rest) or _JUDGEMENT.search(rest)) and not re.search(r"\d", rest)
        if judged or not _states_something(rest, stance=stance):
            return "opinion" if stance else "instruction"
        return reason_to_skip(rest, asked=asked)
    if _OPINION.search(text):
        return "opinion"
    count = len(_WORDS.findall(text))
    short = count <= 12
    if _GREETING.match(text) and (count <= 4 or not _names_a_fact(text)):
        return "greeting"
    if count < 3 and not re.search(r"\d", text) and not (asked or item):
        return "no content"
    # An instruction that states something after its verb ("Visit the Louvre, open since 1793", "Visit the
    # Eiffel Tower in Berlin") is checked for it.
    if ((verb := _INSTRUCTION.match(text)) and not _states_something(text[verb.end():], stance=False)
            and not re.match(r"^(?:never|always)\b.*\b(?:is|was|are|were)\b", text, re.I)):
        return "instruction"
    if _PRAISE.search(text) and not re.search(r"\d", text) and short:
        return "opinion"
    return None


# An answer to the question before it: "Is the Eiffel Tower in Berlin? Yes." states that it is.
_ANSWER = re.compile(r"^\W*(?:yes|no|yep|nope|correct|right|exactly|indeed|absolutely|definitely|of course|"
                     r"that'?s (?:right|correct))\b", re.I)


def short_answer(sentence: str) -> bool:
    """Whether ``sentence`` is a short answer whose statement lives in the question: a yes or no ("Yes.", "No,
    it is not."), or fewer than three words ("Sydney.", "In 1743.")."""
    text = LIST_MARKER.sub("", sentence.strip(), count=1)
    return bool(_ANSWER.match(text)) or len(_WORDS.findall(text)) < 3


def answers(question: str, reply: str) -> bool:
    """Whether ``reply`` answers the question ``question`` (yes or no, possibly said more)."""
    return question.rstrip().endswith("?") and bool(_ANSWER.match(reply))


def gated(text: str, *, asked: bool = False) -> list[tuple[int, int, str | None]]:
    """Every sentence of ``text`` as (start, end, why it is left out or None when it is check-worthy). A
    question followed by its yes or no is one statement, check-worthy (the extractor reads both together).
    ``asked``: ``text`` answers a person's message (:func:`reason_to_skip`)."""
    out: list[tuple[int, int, str | None]] = []
    for start, end in sentences(text):
        if out and out[-1][2] == "question" and answers(text[out[-1][0]:out[-1][1]], text[start:end]):
            out[-1] = (out[-1][0], end, None)
            continue
        out.append((start, end, reason_to_skip(text[start:end], asked=asked)))
    return out


def headed(text: str, pieces: Sequence[tuple[int, int, str | None]], chosen: Sequence[tuple[int, int]]) -> str:
    """The sentences ``chosen`` (offsets in ``text``, in order) as the extractor is given them, each list item
    and each sentence right after a heading under that heading (``pieces``: the gate's reading of ``text``, or
    of as much of it as has been read), so that "- Sweden: Bergen" is read about "Capitals of the Nordic
    countries:" and "- She won three Nobel Prizes." about "Facts about Curie:" (issue 57, item 1). The
    heading is given as a line of its own, never as a claim's words joined to an item's. Every door builds the
    extractor's text here, a whole reply and a streamed one alike."""
    starts = [start for start, _, _ in pieces]
    out: list[str] = []
    current: tuple[int, int] | None = None
    for start, end in chosen:
        title = _heading_of(text, pieces, bisect_left(starts, start))
        sentence = text[start:end].strip()
        if title is not None and title != current:
            out.append("\n" + text[title[0]:title[1]].strip() + "\n" + sentence)
        elif title is not None:
            out.append("\n" + sentence)
        else:
            out.append((" " if out else "") + sentence)
        current = title
    return "".join(out).strip()


def _heading_of(text: str, pieces: Sequence[tuple[int, int, str | None]], at: int) -> tuple[int, int] | None:
    """The heading the sentence ``pieces[at]`` is under: the nearest before it with only list items between
    (or none, for a sentence that is no list item)."""
    item = at < len(pieces) and list_item(text[pieces[at][0]:pieces[at][1]])
    for back in range(at - 1, -1, -1):
        start, end, reason = pieces[back]
        if reason == "heading":
            return start, end
        if not (item and list_item(text[start:end])):
            return None
    return None


def worthy_text(text: str, *, asked: bool = False) -> str:
    """The check-worthy sentences of ``text``, each under its heading: what the extractor is given."""
    pieces = gated(text, asked=asked)
    return headed(text, pieces, [(start, end) for start, end, reason in pieces if reason is None])
