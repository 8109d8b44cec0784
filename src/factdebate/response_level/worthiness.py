"""Which sentences of a text state something that could be checked, by rules and no model call: a chat reply
or a long answer is partly framing ("Sure! Here is...", "I hope this helps", "Let me know if..."), and
verifying it costs calls and can only come back NOT ENOUGH INFO. A sentence left out is said with its
reason: ``question``, ``greeting`` (greetings, thanks, sign-offs and other framing), ``instruction``
(imperatives addressed to the reader), ``opinion`` (the writer's own view, or praise without a fact in it)
or ``no content`` (too short to say anything). The rules err towards checking: framing that names something
(a number, or a capitalised word after the first) is kept. The guard's gate (guard/gate.py) and a response
check's note on the sentences it did not check (unchecked.py) both read them.
"""

from __future__ import annotations

import re

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
_OPINION = re.compile(
    r"\b(?:i think|i believe|i feel|in my (?:opinion|view|experience)|personally|i love|i like|i prefer|"
    r"i'?d (?:recommend|suggest|say)|i recommend|i suggest|i guess|it seems to me|imho)\b", re.I)
_PRAISE = re.compile(
    r"\b(?:beautiful|lovely|amazing|wonderful|delicious|awesome|fantastic|stunning|gorgeous|boring|terrible|"
    r"must-see|breathtaking|charming|fascinating|incredible|delightful)\b", re.I)
_FACT_MARK = re.compile(r"\d|\b[A-Z][a-z]+")
_WORDS = re.compile(r"[^\W_]+")


def _names_a_fact(text: str) -> bool:
    """A number anywhere, or a capitalised word after the first (a name)."""
    words = text.split(maxsplit=1)
    return bool(re.search(r"\d", text)) or (len(words) > 1 and bool(_FACT_MARK.search(words[1])))


def reason_to_skip(sentence: str) -> str | None:
    """Why ``sentence`` is not worth checking, or None when it is."""
    text = sentence.strip().lstrip("-*•>#0123456789. )").strip()
    if not text:
        return "no content"
    if text.endswith("?"):
        return "question"
    if _OPINION.search(text):
        return "opinion"
    count = len(_WORDS.findall(text))
    short = count <= 12
    if _GREETING.match(text) and (count <= 4 or not _names_a_fact(text)):
        return "greeting"
    if count < 3 and not re.search(r"\d", text):
        return "no content"
    # An instruction that states a number ("Visit the Louvre, open since 1793") is checked for that number.
    if (_INSTRUCTION.match(text) and not re.search(r"\d", text)
            and not re.match(r"^(?:never|always)\b.*\b(?:is|was|are|were)\b", text, re.I)):
        return "instruction"
    if _PRAISE.search(text) and not re.search(r"\d", text) and short:
        return "opinion"
    return None
