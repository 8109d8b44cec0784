"""What of the conversation the claim extractor reads beside a reply (issue 57, item 1).

A chat reply is written in its conversation: "Sydney." answers "Which city is Australia's capital?", "Yes."
answers "Did Apollo 11 land in 1972?", and "It is 9,500 m tall." is about the mountain named two turns
before. So the extractor is shown the person's question (``Check.question``) and, before it, a bounded
window of the turns that came earlier, most recent first kept, and writes claims that stand on their own
("Mount Everest is 9,500 m tall."). The window is bounded so a long chat costs a bounded prompt:
at most :data:`MOST_TURNS` earlier turns and :data:`MOST_CHARS` characters in all, each turn at most
:data:`TURN_CHARS` (its opening, where a turn most often names its subject). What is left out is said in
the check's ``passed_through``. No claim is taken from the window (the prompt says so and the grounding
filter only lets its names and words resolve the reply's).

A turn is a ``user`` message in the person's own words (guard/messages.py's reading: fenced and tagged
blocks an agent framework injects are not the person's) or an ``assistant`` message's text; tool results
are evidence, not conversation (guard/options.py), and a turn that holds text no prompt should carry is left
out, as the question is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from factdebate.core.textsafe import unsafe_reason
from factdebate.guard.messages import own_words, text_of

MOST_TURNS = 6  # three exchanges: a follow-up refers back one to three turns
MOST_CHARS = 2_000
TURN_CHARS = 500
WHO = {"user": "Person", "assistant": "Assistant"}
ELLIPSIS = "\u2026"


def turns_of(messages: Sequence[Any]) -> list[tuple[str, str]]:
    """The conversation's turns before the reply, in order, as (role, text): the person's words and the
    assistant's text, the last user turn (the question) included."""
    out: list[tuple[str, str]] = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in WHO:
            continue
        text = text_of(message.get("content"))
        text = own_words(text) if message["role"] == "user" else text.strip()
        if text:
            out.append((str(message["role"]), " ".join(text.split())))
    return out


@dataclass(frozen=True)
class Window:
    text: str | None  # the earlier turns as the extractor reads them; None when there are none
    shown: int  # how many earlier turns it holds
    total: int  # how many earlier turns there were

    @property
    def note(self) -> str | None:
        """What of the conversation the extractor did not read, for the check's ``passed_through``."""
        left = self.total - self.shown
        if left <= 0:
            return None
        return (f"the claim extractor read the person's question and the {self.shown} turn(s) before it; "
                f"{left} earlier turn(s) of the conversation were not read (at most {MOST_TURNS} turns, "
                f"{MOST_CHARS} characters)")


def window(turns: Sequence[tuple[str, str]], question: str | None) -> Window:
    """The turns before the person's question (the last user turn, or ``question`` where it is one of them),
    bounded as the module docstring says."""
    earlier = list(turns)
    if earlier and earlier[-1][0] == "user" and (question is None or _same(earlier[-1][1], question)):
        earlier.pop()  # the question itself: the prompt shows it on its own
    elif question is not None:
        at = next((i for i in range(len(earlier) - 1, -1, -1)
                   if earlier[i][0] == "user" and _same(earlier[i][1], question)), None)
        if at is not None:
            earlier = earlier[:at]
    kept: list[str] = []
    used = 0
    # Only the last turns are looked at (a chat of 50,000 messages costs what one of ten does); a turn holding
    # text no prompt should carry is skipped, and counted among those not read.
    for role, text in reversed(earlier):
        if len(kept) == MOST_TURNS:
            break
        if unsafe_reason(text) is not None:
            continue
        line = f"{WHO[role]}: {text if len(text) <= TURN_CHARS else text[:TURN_CHARS - 1] + ELLIPSIS}"
        if used + len(line) > MOST_CHARS:
            break
        kept.append(line)
        used += len(line) + 1
    return Window("\n".join(reversed(kept)) or None, len(kept), len(earlier))


def _same(turn: str, question: str) -> bool:
    a, b = " ".join(turn.split()), " ".join(question.split())
    return a == b or a.endswith(b) or b.endswith(a)

