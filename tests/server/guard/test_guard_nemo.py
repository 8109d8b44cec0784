"""docs/guard/nemo/actions.py, the NeMo Guardrails action, against the guard as ``factdebate serve`` runs it.

``nemoguardrails`` cannot be installed beside this project's pins (docs/guard.md says why), so when it is
absent its ``action`` decorator is stood in for by one that returns the function unchanged, as NeMo's own
does besides recording the name: what runs is the documented action's own code, its request and how it reads
the answer, with NeMo's ``relevant_chunks`` as the evidence the checker reads. NeMo's flow engine is not run
here; tests/guard/conformance/test_gateways.py runs these files in a real ``LLMRails`` from .venv-nemo."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import stance_of
from tests.guard.support import quoted_sentence, script, window_answer
from tests.server.conftest import KEY
from tests.server.guard.test_guard_chat import PARIS, ROME, Guard, guard  # noqa: F401 - the fixture
from tests.server.guard_support import ANSWER

ACTIONS = Path(__file__).parents[3] / "docs" / "guard" / "nemo" / "actions.py"
CHUNKS = "Atlas of Europe: the Eiffel Tower stands on the Champ de Mars in Paris."


def _load_action(monkeypatch: pytest.MonkeyPatch) -> Any:
    if importlib.util.find_spec("nemoguardrails") is None:
        package, actions = types.ModuleType("nemoguardrails"), types.ModuleType("nemoguardrails.actions")

        def action(**_: Any) -> Any:
            return lambda function: function

        actions.action = action  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "nemoguardrails", package)
        monkeypatch.setitem(sys.modules, "nemoguardrails.actions", actions)
    spec = importlib.util.spec_from_file_location("factdebate_nemo_actions", ACTIONS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.factdebate_check


def test_the_documented_nemo_action_checks_the_answer_against_relevant_chunks(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    backend = ScriptedBackend(script(claims=[PARIS, ROME]))
    server, _ = guard(backend=backend)
    monkeypatch.setenv("FACTDEBATE_URL", server.url)
    monkeypatch.setenv("FACTDEBATE_API_KEYS", KEY)
    check = _load_action(monkeypatch)
    monkeypatch.setitem(check.__globals__, "OPTIONS", {**check.__globals__["OPTIONS"], "method": "single"})
    found = asyncio.run(check(context={"bot_message": ANSWER, "user_message": "Tell me about Paris.",
                                       "relevant_chunks": CHUNKS}))
    assert found["action_taken"] == "flagged" and found["text"].startswith(ANSWER) and ROME in found["text"]
    assert {c["claim"]: c["label"] for c in found["claims"]} == {PARIS: "SUPPORTS", ROME: "REFUTES"}
    fast = [m[0]["content"] for info, m in backend.calls if info.prompt == "guard_window"]
    assert fast and all("Champ de Mars" in prompt for prompt in fast)  # NeMo's chunks are what it read
    monkeypatch.setenv("FACTDEBATE_API_KEYS", "not-a-key-of-this-server")
    with pytest.raises(Exception, match="401"):
        asyncio.run(check(context={"bot_message": ANSWER}))
    monkeypatch.delenv("FACTDEBATE_API_KEYS")  # no key: one line that names the variable, not a KeyError
    with pytest.raises(RuntimeError, match=r"^factdebate_check: set FACTDEBATE_API_KEYS to one of"):
        asyncio.run(check(context={"bot_message": ANSWER}))


# NeMo's events for a chat of two earlier turns and a follow-up, as LLMRails passes them to an output rail's
# action (nemoguardrails 0.24.1: the turns' UserMessage and StartUtteranceBotAction events, the system prompt's
# SystemMessage; the answer being checked is the BotMessage, not yet uttered).
FOLLOW_UP = "When was it finished?"
EVENTS = [
    {"type": "SystemMessage", "content": "You are a travel guide for Paris."},
    {"type": "UtteranceUserActionFinished", "final_transcript": "Tell me about the Eiffel Tower."},
    {"type": "UserMessage", "text": "Tell me about the Eiffel Tower."},
    {"type": "UserIntent", "intent": "ask about landmark"},
    {"type": "BotMessage", "text": "The Eiffel Tower is a wrought-iron tower in Paris."},
    {"type": "StartUtteranceBotAction", "script": "The Eiffel Tower is a wrought-iron tower in Paris."},
    {"type": "UtteranceBotActionFinished", "final_script": "The Eiffel Tower is a wrought-iron tower in Paris."},
    {"type": "UtteranceUserActionFinished", "final_transcript": FOLLOW_UP},
    {"type": "UserMessage", "text": FOLLOW_UP},
    {"type": "BotMessage", "text": "It was finished in 1920."},
]
RESOLVED = "The Eiffel Tower was finished in 1920."


def _extracted(prompt: str) -> str:
    return json.dumps({"claims": [RESOLVED] if "Eiffel Tower is a wrought-iron" in prompt else []})


def _fast(prompt: str) -> str:
    claim = prompt.split("Statement:", 1)[-1]
    label = "REFUTES" if "1920" in claim else "NOT ENOUGH INFO"
    return json.dumps({"label": label, "passage": 1 if label == "REFUTES" else 0,
                       "quote": quoted_sentence(prompt, claim) if label == "REFUTES" else ""})


def _follow_up_checker(call: Any, messages: list[Any], params: Any) -> str:
    """A capable extractor: "It" is the Eiffel Tower only when the prompt shows the turn that named it; the fast
    tier refutes 1920 (asked apart or in the window's one call)."""
    prompt = messages[0]["content"]
    if call.prompt.startswith("claims_extract"):
        return _extracted(prompt)
    if call.prompt.startswith("guard_fast"):
        return _fast(prompt)
    if call.prompt.startswith("guard_window"):
        return window_answer(prompt, _extracted, _fast, lambda claim, quote: "It was finished in 1889.")
    if call.prompt.startswith("guard_correct"):
        return json.dumps({"sentence": "It was finished in 1889."})
    if call.prompt.startswith("guard_stance"):
        return stance_of(prompt, lambda claim: "REFUTES" if "1920" in claim else "NOT ENOUGH INFO")
    raise AssertionError(call.prompt)


def test_the_documented_nemo_action_sends_the_conversation_so_a_follow_up_is_checked(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    backend = ScriptedBackend(_follow_up_checker)
    server, _ = guard(backend=backend)
    monkeypatch.setenv("FACTDEBATE_URL", server.url)
    monkeypatch.setenv("FACTDEBATE_API_KEYS", KEY)
    check = _load_action(monkeypatch)
    assert check.__globals__["conversation"](EVENTS, "It was finished in 1920.") == [
        {"role": "system", "content": "You are a travel guide for Paris."},
        {"role": "user", "content": "Tell me about the Eiffel Tower."},
        {"role": "assistant", "content": "The Eiffel Tower is a wrought-iron tower in Paris."},
        {"role": "user", "content": FOLLOW_UP}]
    chunks = "Guide: the Eiffel Tower was finished in 1889."
    found = asyncio.run(check(context={"bot_message": "It was finished in 1920.", "user_message": FOLLOW_UP,
                                       "relevant_chunks": chunks}, events=EVENTS))
    # What NeMo delivers under flag: the answer with its footnote, the follow-up refuted as the Eiffel Tower's.
    assert found["action_taken"] == "flagged" and found["text"].startswith("It was finished in 1920.")
    assert [(c["claim"], c["label"]) for c in found["claims"]] == [(RESOLVED, "REFUTES")]
    extraction = next(m[0]["content"] for info, m in backend.calls if info.prompt.startswith("guard_window"))
    assert "You are a travel guide for Paris." in extraction  # the system prompt was read too
    # Without the events (an older copy of the action) the follow-up cannot be resolved: unchecked, never SUPPORTS.
    alone = asyncio.run(check(context={"bot_message": "It was finished in 1920.", "user_message": FOLLOW_UP}))
    assert [c["status"] for c in alone["claims"]] == ["unchecked"] and alone["label"] != "SUPPORTS"
