"""A long agent session through ``POST /v1/chat/completions``: 61 tool results are answered,
not refused, with the check saying how many were left out; the question checked is the person's; the evidence
a caller sends keeps its limits."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import script
from tests.guard.test_sessions import _session
from tests.server.guard import test_guard_chat as chat
from tests.server.guard_support import Upstream

guard = chat.guard  # the chat guard's fixture: a scripted upstream and the guard in front of it
ROME = "The Eiffel Tower is in Rome."


@pytest.mark.parametrize("stream", [False, True])
def test_a_61_tool_message_session_is_answered_and_says_how_many_results_were_dropped(
        guard: chat.Guard, stream: bool) -> None:
    backend = ScriptedBackend(script(claims=[ROME]))
    server, upstream = guard(Upstream(answer=ROME), backend=backend)
    messages = _session(61)
    for _ in range(2):  # every later turn of the session too
        made: Any = chat.client(server).chat.completions.create(
            model="scripted", messages=messages, stream=stream,  # type: ignore[arg-type]
            extra_body={"factdebate": {**chat.FAST, "evidence_mode": "given"}})
        found = (list(made)[-1] if stream else made).model_extra["factdebate"]
        assert found["evidence_dropped"] == 11
        assert any("left out of a claim's check" in line for line in found["passed_through"])
        assert found["claims"][0]["label"] == "REFUTES"
    assert len(upstream.requests[-1]["messages"]) == len(messages)  # the upstream got the whole session
    extract = [m[0]["content"] for info, m in backend.calls if info.prompt.startswith("claims_extract")]
    assert extract and all("Where is the Eiffel Tower?" in p and "Today is Monday" not in p for p in extract)
    fast = [m[0]["content"] for info, m in backend.calls if info.prompt == "guard_fast"]
    assert fast and all('atlas({"q": "Eiffel Tower"})' in p and "call_0" not in p for p in fast)


def test_evidence_the_caller_sends_past_the_limits_is_still_refused(guard: chat.Guard) -> None:
    server, _ = guard()
    with pytest.raises(openai.UnprocessableEntityError, match="max_evidence_items"):
        chat.ask(server, {"evidence": [{"title": "t", "text": "The tower is in Paris."}] * 51})


def test_a_session_past_any_message_count_or_with_a_long_tool_result_is_answered(guard: chat.Guard) -> None:
    """200 messages, or one tool result past guard.max_message_chars, used to be a 422 for
    every later turn of the session; a caller's own long message is still held to the limit."""
    backend = ScriptedBackend(script(claims=[ROME]))
    server, upstream = guard(Upstream(answer=ROME), backend=backend)
    messages = _session(120)  # 242 messages
    page = "The Eiffel Tower is in Paris. " * 4000  # 120,000 characters, over max_message_chars (100,000)
    messages[2] = {**messages[2], "content": page}
    made = chat.client(server).chat.completions.create(
        model="scripted", messages=messages,  # type: ignore[arg-type]
        extra_body={"factdebate": {**chat.FAST, "evidence_mode": "given"}})
    found = made.model_extra["factdebate"]  # type: ignore[index]
    assert found["claims"][0]["label"] == "REFUTES" and found["evidence_dropped"] > 0
    assert len(upstream.requests[-1]["messages"]) == len(messages)
    with pytest.raises(openai.UnprocessableEntityError, match="max_message_chars"):
        chat.client(server).chat.completions.create(model="scripted", messages=[{"role": "user", "content": page}])
