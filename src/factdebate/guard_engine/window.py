"""What of the conversation the claim extractor reads beside a reply.

A chat reply is written in its conversation: "Yes." answers a question, "It is 9,500 m tall." is about the
mountain named two turns before, "I opened my doors in 1889." is said by the landmark a persona bot plays. So
the extractor is shown, beside the person's question (``Check.question``):

- **the system prompt**, its opening (:data:`SYSTEM_CHARS`);
- **the recent turns**, newest first while they fit :data:`TURNS_CHARS` characters (ten short turns cost what
  two long ones do), each at most :data:`TURN_CHARS`, its opening, where a turn most often names its subject;
- **the subjects named earlier**, each once with the sentence that first named it, most recent first, at most
  :data:`MOST_SUBJECTS` names in :data:`SUBJECTS_CHARS` characters: a subject set at turn 2 of 40 is still known.

So a long chat costs a bounded prompt and scan (:data:`SCAN_CHARS`); what is left out is said in
``passed_through``, and no claim is taken from any of it. Tool results are evidence, not conversation."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from factdebate.guard_engine.messages import own_words, text_of
from factdebate.util.textsafe import unsafe_reason

SYSTEM_CHARS = 800  # a persona or a bot's subject is set in its prompt's opening lines
TURNS_CHARS = 2_400
TURN_CHARS = 500
MOST_SUBJECTS = 12
SUBJECTS_CHARS = 1_200
MENTION_CHARS = 160  # the sentence that named a subject, cut around the name
SCAN_CHARS = 100_000  # the newest text read for subjects (forty turns of 2,500): 50,000 messages cost no more
WHO = {"user": "Person", "assistant": "Assistant", "system": "System prompt"}
ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}
ELLIPSIS = "\u2026"


def turns_of(messages: Sequence[object]) -> list[tuple[str, str]]:
    """The conversation's turns before the reply, in order, as (role, text), the last user turn included."""
    out: list[tuple[str, str]] = []
    for message in messages:
        if not isinstance(message, dict) or (role := ROLES.get(str(message.get("role")))) is None:
            continue
        text = text_of(message.get("content"))
        text = own_words(text) if role == "user" else text.strip()
        if text:
            out.append((role, " ".join(text.split())))
    return out


@dataclass(frozen=True)
class Subject:
    """A name an earlier turn writes, and the sentence that first wrote it (where the subject was set)."""

    name: str
    role: str  # "user" or "assistant": whose turn named it
    said: str  # that sentence, cut to about MENTION_CHARS around the name


@dataclass(frozen=True)
class Window:
    """What the extractor reads of the conversation: :attr:`text` as the prompt shows it, and its parts."""

    system: str | None  # the system prompt's opening; None without one
    subjects: tuple[Subject, ...]  # named before the recent turns, most recent first
    turns: str | None  # the recent turns, one line each, oldest first; None when there are none
    shown: int  # how many earlier turns the recent turns hold
    total: int  # how many earlier turns there were
    system_cut: bool = False  # the system prompt was longer than what is shown

    @property
    def text(self) -> str | None:
        """The system prompt, the subjects named earlier and the recent turns, in that order (None: none)."""
        parts = []
        if self.system is not None:
            parts.append(f"{WHO['system']} (the bot's instructions, not a claim): {self.system}")
        if self.subjects:
            parts.append("Named earlier in the conversation, most recent first:\n" + "\n".join(
                f"- {s.name} ({WHO[s.role]}: \"{s.said}\")" for s in self.subjects))
        if self.turns is not None:
            parts.append(self.turns)
        return "\n".join(parts) or None

    @property
    def note(self) -> str | None:
        """What of the conversation the extractor did not read whole, for the check's ``passed_through``."""
        left = self.total - self.shown
        if left <= 0 and not self.system_cut:
            return None
        said = [f"the claim extractor read the person's question and the {self.shown} turn(s) before it "
                f"(at most {TURNS_CHARS} characters)"]
        if left > 0:
            said.append(f"the {left} earlier turn(s) only for the names they write ({len(self.subjects)} listed, "
                        f"at most {MOST_SUBJECTS})")
        if self.system_cut:
            said.append(f"the system prompt's first {SYSTEM_CHARS} characters")
        return "; ".join(said)


def window(turns: Sequence[tuple[str, str]], question: str | None) -> Window:
    """The conversation before the person's question, bounded as the module docstring says."""
    system = [text for role, text in turns if role == "system" and unsafe_reason(text) is None]
    earlier = [(role, text) for role, text in turns if role != "system"]
    if earlier and earlier[-1][0] == "user" and (question is None or _same(earlier[-1][1], question)):
        earlier.pop()  # the question itself: the prompt shows it on its own
    elif question is not None:
        at = next((i for i in range(len(earlier) - 1, -1, -1)
                   if earlier[i][0] == "user" and _same(earlier[i][1], question)), None)
        if at is not None:
            earlier = earlier[:at]
    lines, cut_off, shown = _recent(earlier)
    # The subjects: what the window cut off its own turns first (newer), then the turns before it.
    older = [*cut_off, *((role, text) for role, text in reversed(earlier[:len(earlier) - shown]))]
    known = " ".join(lines + system + ([question] if question else [])).casefold()
    prompt = " ".join(system)
    return Window(system=_cut(prompt, SYSTEM_CHARS) if prompt else None, subjects=subjects(older, known),
                  turns="\n".join(reversed(lines)) or None, shown=shown, total=len(earlier),
                  system_cut=len(prompt) > SYSTEM_CHARS)


def _recent(earlier: Sequence[tuple[str, str]]) -> tuple[list[str], list[tuple[str, str]], int]:
    """(the lines of the newest turns that fit :data:`TURNS_CHARS`, newest first; the parts cut off, read for
    subjects; how many turns from the end they span). A turn no prompt should carry counts as shown, unread."""
    lines: list[str] = []
    cut_off: list[tuple[str, str]] = []
    used = spanned = 0
    for role, text in reversed(earlier):
        if unsafe_reason(text) is not None:
            spanned += 1
            continue
        line = f"{WHO[role]}: {_cut(text, TURN_CHARS)}"
        if used + len(line) > TURNS_CHARS:
            break
        lines.append(line)
        if len(text) > TURN_CHARS:
            cut_off.append((role, text[TURN_CHARS - 1:]))
        used += len(line) + 1
        spanned += 1
    return lines, cut_off, spanned


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + ELLIPSIS


def _same(turn: str, question: str) -> bool:
    a, b = " ".join(turn.split()), " ".join(question.split())
    return a == b or a.endswith(b) or b.endswith(a)


# A name: a run of capitalised words, joined by the small words names hold ("Statue of Liberty", "Leonardo da
# Vinci"), a leading "The" not part of it.
_NAME_RUN = re.compile(r"[A-Z][\w'’.-]*(?:\s+(?:(?:of|de|du|da|del|der|di|van|von|the|la|le|on)\s+)*[A-Z][\w'’-]*)*")
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")
# Words capitalised where a sentence opens, or always ("I"), that name nothing.
_NOT_NAMES = frozenset((
    "a", "about", "after", "again", "also", "an", "and", "any", "are", "as", "at", "back", "be", "because",
    "before", "both", "but", "by", "can", "could", "did", "do", "does", "each", "even", "every", "first", "for",
    "from", "give", "glad", "gladly", "good", "great", "had", "happy", "has", "have", "he", "hello", "her",
    "here", "hey", "hi", "his", "how", "i", "i'd", "i'll", "i'm", "i've", "if", "in", "is", "it", "its", "it's",
    "just", "last", "let", "let's", "like", "many", "may", "maybe", "me", "might", "more", "most", "much", "must",
    "my", "next", "no", "not", "now", "of", "oh", "ok", "okay", "on", "one", "or", "our", "please", "perhaps",
    "quite", "really", "right", "she", "should", "show", "since", "so", "some", "still", "sure", "tell",
    "thank", "thanks", "that", "that's", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "to", "too", "two", "very", "was", "we", "well", "were", "what", "what's", "when", "where",
    "which", "while", "who", "why", "will", "with", "would", "yes", "yet", "you", "your", "you're"))


def names_in(sentence: str) -> Iterator[str]:
    """The names ``sentence`` writes: capitalised runs less words naming nothing ("The") or capitalised by position."""
    opening = len(sentence) - len(sentence.lstrip(" \"'“‘(*-#>"))
    lower = {w.casefold() for w in re.findall(r"\b[a-z][\w'’-]*", sentence)}
    for match in _NAME_RUN.finditer(sentence):
        words = match.group(0).rstrip(".'’").split()
        if match.start() <= opening and words and (words[0].casefold() in lower or _ordinary(words[0])):
            words = words[1:]
        while words and words[0].casefold().rstrip(".") in _NOT_NAMES:
            words = words[1:]
        while words and words[-1].casefold() in _NOT_NAMES:
            words = words[:-1]
        if words and any(len(w) > 1 for w in words):
            yield " ".join(words)


def _ordinary(word: str) -> bool:
    return len(word) > 4 and word.casefold().endswith(("ly", "ing", "ed"))


def subjects(turns: Sequence[tuple[str, str]], known: str = "") -> tuple[Subject, ...]:
    """The names ``turns`` (newest first) write, each once with the sentence that first named it; none that
    ``known`` writes, nor a shorter form of one listed ("Eiffel" beside "Eiffel Tower")."""
    order: list[str] = []  # the names, most recently named first
    first: dict[str, Subject] = {}  # each name's earliest mention read so far
    passed: set[str] = set()  # names not listed (the prompt shows them, or the list was full): a chat repeats them
    scanned = 0
    for role, text in turns:
        if scanned >= SCAN_CHARS:
            break
        text = text[-(SCAN_CHARS - scanned):]
        scanned += len(text)
        if unsafe_reason(text) is not None:
            continue
        for sentence in reversed(_SENTENCE.findall(text)):  # a turn's last sentences are its newest words
            for name in names_in(sentence):
                folded = name.casefold()
                if folded in passed:
                    continue
                mention = Subject(name, role, _around(sentence.strip(), name))
                if folded in first:
                    first[folded] = Subject(first[folded].name, role, mention.said)
                elif (shorter := next((other for other in order if _written(other, folded)), None)) is not None:
                    # The longer form of a name listed ("Eiffel Tower" after "Eiffel") takes its place.
                    order[order.index(shorter)] = folded
                    first[folded] = mention
                    del first[shorter]
                elif len(order) < MOST_SUBJECTS and not _written(folded, known) \
                        and not any(_written(folded, other) for other in order):
                    order.append(folded)
                    first[folded] = mention
                else:
                    passed.add(folded)
    found: list[Subject] = []
    used = 0
    for folded in order:
        used += len(first[folded].name) + len(first[folded].said) + 20
        if used > SUBJECTS_CHARS:
            break
        found.append(first[folded])
    return tuple(found)


def _written(name: str, text: str) -> bool:
    """Whether ``text`` (casefolded) writes ``name`` (casefolded) as whole words."""
    return name in text and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def _around(sentence: str, name: str) -> str:
    """``sentence`` cut to :data:`MENTION_CHARS` around ``name`` (where a long sentence names it)."""
    if len(sentence) <= MENTION_CHARS:
        return sentence
    at = max(0, sentence.find(name))
    start = max(0, min(at - MENTION_CHARS // 3, len(sentence) - MENTION_CHARS + 2))
    piece = sentence[start:start + MENTION_CHARS - 2]
    return (ELLIPSIS if start else "") + piece + (ELLIPSIS if start + len(piece) < len(sentence) else "")


# A subject that is still a pronoun or a pointing word was not resolved; "It" that stands for nothing ("It is
# said that", "It takes two hours to") is no subject.
_UNRESOLVED = re.compile(r"^[\"'“‘(]*(it|its|he|his|him|she|her|they|their|them|this|that|these|those|i|my|we|our)\b"
                         r"(?!['’-]\w*\d)", re.I)
_EMPTY_IT = re.compile(r"^[\"'“‘(]*it\s+(?:(?:is|was|has been|had been)\s+(?:\w+\s+)?(?:that|to)\b|takes|took|"
                       r"rains|rained|snows|snowed)", re.I)


def unresolved(claim: str) -> str | None:
    """The pronoun a claim still opens with ("It", "She", "This") when the extractor did not resolve it."""
    if (match := _UNRESOLVED.match(claim)) is None or _EMPTY_IT.match(claim):
        return None
    return match.group(1)
