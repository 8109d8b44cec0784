"""The bot's own evidence: what the agents read (in the trace), passages of long context, tool messages."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.guard_engine import GuardEvidence, evidence_from_messages
from factdebate.guard_engine.evidence import passages
from tests.guard.support import CLAIMS, run_check, script

BOT_DOC = {"title": "Bot's guide", "text": "The Eiffel Tower stands on the Champ de Mars in Paris.",
           "url": "https://bot.example/guide"}


def _tool_results(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [doc for e in events if e["event"] == "tool_call" for doc in e["results"]]


@pytest.mark.parametrize("tier", ["standard", "deep"])
async def test_given_evidence_is_what_the_debaters_read(tier: str) -> None:
    events: list[dict[str, Any]] = []
    result, backend = await run_check(script(), method="tool-mad", tier=tier, evidence=[BOT_DOC],
                                      evidence_mode="given", events=events, guard={"max_tier": tier})
    read = _tool_results(events)
    assert read and {d["id"] for d in read} == {"given-1"} and {d["title"] for d in read} == {"Bot's guide"}
    debater_prompts = [m[0]["content"] for info, m in backend.calls if info.prompt == "debate_answer"]
    assert debater_prompts and all("Champ de Mars" in p for p in debater_prompts)
    assert all(c.tier == tier for c in result.claims)
    rounds = {info.round for info, _ in backend.calls if info.prompt == "debate_answer"}
    assert rounds == {1} if tier == "standard" else max(rounds) > 1  # standard: one round of the debate
    assert result.claims[0].evidence[0].url == "https://bot.example/guide"


def _fast_prompts(backend: Any, window_call: bool) -> list[str]:
    """What the fast tier's checker read: the window's call (its passages), or each claim's own call."""
    if window_call:
        return [m[0]["content"].split("\nAnswer:\n")[0] for info, m in backend.calls if info.prompt == "guard_window"]
    return [m[0]["content"] for info, m in backend.calls if info.prompt == "guard_fast"]


WAYS = pytest.mark.parametrize("window_call", [True, False], ids=["window", "apart"])


@WAYS
async def test_both_puts_the_bots_passages_first_then_retrieval(window_call: bool) -> None:
    events: list[dict[str, Any]] = []
    result, backend = await run_check(script(), tier="fast", evidence=[BOT_DOC], events=events,
                                      guard={"tier": "fast", "max_tier": "fast", "window_call": window_call})
    prompt = _fast_prompts(backend, window_call)[0]
    assert prompt.index("Champ de Mars") < prompt.index("It opened in 1889")  # given first, then the engine's
    assert result.claims[1].evidence[0].title == "Bot's guide"


@WAYS
async def test_retrieved_ignores_the_given_evidence(window_call: bool) -> None:
    _, backend = await run_check(script(), tier="fast", evidence=[BOT_DOC], evidence_mode="retrieved",
                                 guard={"tier": "fast", "max_tier": "fast", "window_call": window_call})
    prompts = _fast_prompts(backend, window_call)
    assert prompts and not any("Champ de Mars" in p for p in prompts)


@WAYS
async def test_long_context_is_split_into_ranked_passages_never_cut(window_call: bool) -> None:
    filler = " ".join(f"Filler sentence number {i} talks about weather." for i in range(200))
    long_doc = {"title": "Long", "text": filler + " The Eiffel Tower is in Paris, not Rome."}
    docs = passages([GuardEvidence(**long_doc)])
    assert len(docs) > 3 and "not Rome" in docs[-1].text  # the end of the context is a passage of its own
    assert all(len(d.text.split()) <= 200 for d in docs)
    _, backend = await run_check(script(), tier="fast", evidence=[long_doc], evidence_mode="given",
                                 guard={"tier": "fast", "max_tier": "fast", "window_call": window_call})
    rome = next(p for p in _fast_prompts(backend, window_call) if window_call or f"Statement: {CLAIMS[1]}" in p)
    # ranked for the claim (apart), or for each sentence of the window, the claim's among them: the passage that
    # decides it is among those shown, the filler beyond them is not
    assert "not Rome" in rome and rome.count("Filler sentence") < filler.count("Filler sentence")


def test_tool_messages_are_given_evidence() -> None:
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Where is the tower?"},
                {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
                {"role": "tool", "tool_call_id": "c1", "name": "search_docs", "content": "The tower is in Paris."},
                {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "Opened 1889."}]},
                {"role": "tool", "tool_call_id": "c3", "content": ""}]
    found = evidence_from_messages(messages)
    # Never titled by the call id: a tool result with no name anywhere is numbered.
    assert [(e.title, e.text) for e in found] == [("search_docs", "The tower is in Paris."),
                                                  ("tool result 2", "Opened 1889.")]


def test_a_claim_with_a_number_is_quoted_from_the_sentence_that_writes_one() -> None:
    from factdebate.guard_engine.evidence import best_quote

    passage = ("The Eiffel Tower is a lattice tower on the Champ de Mars in Paris, France. It is named after the "
               "engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889.")
    assert best_quote("The Eiffel Tower was finished in 1899.", passage).endswith("from 1887 to 1889.")
    assert best_quote("The Eiffel Tower is in Rome.", passage).startswith("The Eiffel Tower is a lattice tower")
