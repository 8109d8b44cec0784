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


def reason_to_skip(sentence: str) -> str | None:
    """Why ``sentence`` is not worth checking, or None when it is."""
    text = sentence.strip().lstrip("-*•>#0123456789. )").strip()
    if not text:
        return "no content"
    if text.endswith("?"):
        return "question"
    framed = _STANCE.search(text) or _REMINDER.match(text)
    if framed:
        rest = _REMINDER.sub("", _STANCE.sub(" ", text).strip(" ,;:"), count=1).strip(" ,;:")
        stance = bool(_STANCE.search(text))
        # After a stance, a judgement with no number is the writer's view ("the food is better in Lyon").
        judged = stance and bool(_PRAISE.search(rest) or _JUDGEMENT.search(rest)) and not re.search(r"\d", rest)
        if judged or not _states_something(rest, stance=stance):
            return "opinion" if stance else "instruction"
        return reason_to_skip(rest)
    if _OPINION.search(text):
        return "opinion"
    count = len(_WORDS.findall(text))
    short = count <= 12
    if _GREETING.match(text) and (count <= 4 or not _names_a_fact(text)):
        return "greeting"
    if count < 3 and not re.search(r"\d", text):
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


def answers(question: str, reply: str) -> bool:
    """Whether ``reply`` answers the question ``question`` (yes or no, possibly said more)."""
    return question.rstrip().endswith("?") and bool(_ANSWER.match(reply))


def gated(text: str) -> list[tuple[int, int, str | None]]:
    """Every sentence of ``text`` as (start, end, why it is left out or None when it is check-worthy). A
    question followed by its yes or no is one statement, check-worthy (the extractor reads both together)."""
    out: list[tuple[int, int, str | None]] = []
    for start, end in sentences(text):
        if out and out[-1][2] == "question" and answers(text[out[-1][0]:out[-1][1]], text[start:end]):
            out[-1] = (out[-1][0], end, None)
            continue
        out.append((start, end, reason_to_skip(text[start:end])))
    return out


def worthy_text(text: str) -> str:
    """The check-worthy sentences of ``text``, joined: what the extractor is given."""
    return " ".join(text[start:end] for start, end, reason in gated(text) if reason is None)
