"""The Python face of the guard on a conversation whose reply holds no text to check: it is
a degraded check, said, and ``on_unchecked: block`` refuses it; a tool call alone still passes."""

from __future__ import annotations

from typing import Any

import pytest

import factdebate as fd
from factdebate.guard_engine.policy import NO_TEXT

OFFLINE: dict[str, Any] = {"llm": "scripted:agree", "search": "local", "cache": False, "tier": "fast",
                          "method": "single"}
ASKED = {"role": "user", "content": "Where is the tower?"}


@pytest.mark.parametrize("reply", [
    {"role": "assistant", "content": 12345},
    {"role": "assistant", "content": None},
    {"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]},
], ids=["a number", "null", "an image part"])
async def test_a_reply_without_text_is_degraded_and_blocked(reply: dict[str, Any]) -> None:
    blocked = await fd.aguard([ASKED, reply], on_unchecked="block", **OFFLINE)
    passed = await fd.aguard([ASKED, reply], **OFFLINE)
    assert blocked.degraded and blocked.degraded_reason == NO_TEXT and blocked.action_taken == "blocked"
    assert blocked.text.startswith("This answer was withheld: it could not be checked")
    # the default policy, flag: no text of the reply's, and the footnote that says it could not be checked
    assert passed.degraded and passed.action_taken == "flagged"
    assert passed.text == f"\n\n---\nFact check:\n- The answer could not be checked: {NO_TEXT}"


async def test_a_tool_call_alone_passes_under_on_unchecked_block() -> None:
    reply = {"role": "assistant", "content": None, "tool_calls": [{"id": "t1"}]}
    result = await fd.aguard([ASKED, reply], on_unchecked="block", **OFFLINE)
    assert not result.degraded and result.action_taken == "none"
    assert result.passed_through == ["1 tool call(s) in the reply, not checked: ?"]  # as every door says it
