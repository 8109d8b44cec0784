"""Replies whose false statement sits in a Markdown heading, a list item, a table cell or a code comment, with a
true line after it, and a checker that reads them as a capable model does: for ``policy: hold`` through every
streamed door (tests/guard/test_hold_formats.py, tests/server/guard/test_guard_stream_hold.py).

The extractor writes the claim of each statement it is given, self-contained ("Apollo 11 landed in 1972." for
the heading "# Apollo 11 landed in 1972"; "Apollo 11 carried three astronauts." for "The mission carried three
astronauts." read under it), never the line as written. Given the text with its sentences numbered, it says
which sentence each claim is drawn from (``numbered``), as a model that follows the extraction prompt does;
otherwise it answers a plain list of claims, which are placed by their words. The fast checker refutes the
claim about 1972, slowly (its verdict comes after the whole reply has streamed), and supports the rest.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from tests.guard.support import script, window_answer

FALSE_CLAIM = "Apollo 11 landed in 1972."
TRUE_CLAIM = "Apollo 11 carried three astronauts."
TRUE_LINE = "The mission carried three astronauts."
# The refuting verdict comes after the reply has ended: its own call, or the window's call that holds it.
SLOW = {f"Statement: {FALSE_CLAIM}": 0.3, "in one pass": 0.3}
# What each claim is read from, as the extractor finds it in its text.
_SAID = {"landed in 1972": FALSE_CLAIM, "three astronauts": TRUE_CLAIM}
_NUMBER = re.compile(r"\[S(\d+)\]\s*")


@dataclass(frozen=True)
class Format:
    name: str
    reply: str
    false: str  # the reply's line (the gate's sentence) that states the false claim

    @property
    def held(self) -> str:
        """The reply as ``hold`` shows it: the false line, and only it, replaced by the notice."""
        from factdebate.guard_engine.policy import WITHHELD

        return self.reply.replace(self.false, WITHHELD)


FORMATS = [
    Format("heading", f"# Apollo 11 landed in 1972\n{TRUE_LINE}", "# Apollo 11 landed in 1972"),
    Format("list item", f"- Apollo 11 landed in 1972\n- {TRUE_LINE}", "- Apollo 11 landed in 1972"),
    Format("table cell", f"| Mission | Fact |\n|---|---|\n| Apollo 11 | Landed in 1972 |\n\n{TRUE_LINE}",
           "| Apollo 11 | Landed in 1972 |"),
    Format("code comment", f"```python\n# Apollo 11 landed in 1972\nlanded = True\n```\n{TRUE_LINE}",
           "# Apollo 11 landed in 1972"),
]


def _text_of(prompt: str) -> str:
    return prompt.split("\nText:\n", 1)[1].split("\n\nReply with", 1)[0]


def _drawn_from(text: str, at: int) -> int:
    """The number of the sentence that holds offset ``at`` of the extractor's text: the last numbered before it,
    or, for a line before every number (a heading read with the sentence under it), the first."""
    numbers = [(m.start(), int(m.group(1))) for m in _NUMBER.finditer(text)]
    before = [n for start, n in numbers if start <= at]
    return before[-1] if before else numbers[0][1]


def extract(prompt: str, *, numbered: bool = True) -> str:
    """The extractor's reply to one extraction prompt (``numbered``: naming each claim's sentence where the
    prompt numbers them; False: a plain list of claims, as a model that does not follow that part answers)."""
    text = _text_of(prompt)
    said = [(text.lower().find(words), claim) for words, claim in _SAID.items() if words in text.lower()]
    if not numbered or _NUMBER.search(text) is None:
        return json.dumps({"claims": [claim for _, claim in said]})
    return json.dumps({"claims": [{"claim": claim, "sentences": [_drawn_from(text, at)]} for at, claim in said]})


def checker(*, numbered: bool = True) -> Callable[[CallInfo, list[Message], GenParams], Any]:
    """The guard's models: :func:`extract`, and every tier refuting the 1972 claim (the fast one quoting the
    first passage, as the suite's scripted checker does) and supporting the rest."""
    scripted = script(debate=lambda call, claim: "REFUTES" if "1972" in claim else "SUPPORTS")

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> Any:
        if call.prompt.startswith("claims_extract"):
            return extract(messages[0]["content"], numbered=numbered)
        if call.prompt.startswith("guard_window"):  # both at once; the correction asked of the corrector

            def fast(text: str) -> str:
                return str(respond(CallInfo(prompt="guard_fast"), [{"role": "user", "content": text}], params))

            return window_answer(messages[0]["content"], lambda prompt: extract(prompt, numbered=numbered), fast)
        reply = scripted(call, messages, params)
        if call.prompt.startswith("guard_fast"):
            claim = re.search(r"^Statement: (.*)$", messages[0]["content"], re.M)
            verdict = json.loads(reply)
            verdict["label"] = "REFUTES" if claim is not None and "1972" in claim.group(1) else "SUPPORTS"
            return json.dumps(verdict)
        return reply

    return respond


def cases() -> list[Any]:
    """Each format with each way of answering, as pytest parameters."""
    import pytest

    out = []
    for form in FORMATS:
        for numbered in (False, True):
            out.append(pytest.param(form, numbered, id=f"{form.name}-{'numbered' if numbered else 'words'}"))
    return out
