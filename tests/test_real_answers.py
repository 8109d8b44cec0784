"""benchmarks/real_answers.py tells what a reader is told: an answer passes as checked only when every claim is
SUPPORTS, checked, on a quote; the quotes are held to the passages the check was given; and at claim level a
gold claim left unchecked is its own column, counted as missed by recall and never as a verdict. Checked with
the guard's own check (``fd.aguard``) in a scripted world, on passages given with the answer."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.real_answers import check, claims_of, passages_searched, table
from benchmarks.real_answers import searches as searched_module
from factdebate.core.types import Document
from factdebate.eval.datasets import Sample
from factdebate.eval.datasets.response_loaders import load_factool_responses
from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import script
from tests.helpers import StaticTool

PASSAGE = {"title": "Guide", "text": "Paris is the capital of France. The Eiffel Tower is in Paris."}
ARGS = argparse.Namespace(llm="scripted:agree", deadline_s=30.0)
ROME = "The Eiffel Tower is in Rome."
PARIS = "Paris is the capital of France."
LOUVRE = "The Louvre opened in 1793."


@pytest.fixture(autouse=True)
def fast_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # The operator's settings, as a deployment sets them: a claim the fast tier leaves unchecked stays so
    # (above it, the scripted debate would support anything).
    monkeypatch.setenv("FACTDEBATE_GUARD__TIER", "fast")
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_TIER", "fast")


def _fast(claim: str) -> str:
    """The checker: Rome refuted, the Louvre's date answered unreadably, the rest supported."""
    if "Louvre" in claim:
        return "I would say probably"
    return json.dumps({"label": "REFUTES" if "Rome" in claim else "SUPPORTS", "passage": 1, "quote": PARIS})


async def _row(text: str, gold: str, claims: list[str], name: str = "factool-qa",
               unit: str = "answer") -> dict[str, Any]:
    extra = {"backends": {"debater": ScriptedBackend(script(claims=claims, fast=_fast))}, "method": "single",
             "search": "local", "evidence": [PASSAGE], "evidence_mode": "given"}
    sample = Sample(str(abs(hash(text))), text, gold, meta={"question": "Tell me about Paris."})
    return {"set": name, "unit": unit, **await check("tier:fast", sample, ARGS, extra)}


async def test_an_answer_passes_as_checked_only_with_every_claim_supported_on_a_quote_the_passage_holds() -> None:
    false = await _row(f"{PARIS} {ROME}", "REFUTES", [PARIS, ROME])
    true = await _row(PARIS, "SUPPORTS", [PARIS])
    unread = await _row(f"{PARIS} {LOUVRE}", "SUPPORTS", [PARIS, LOUVRE])
    assert false["flagged"] and not true["flagged"] and not unread["flagged"]
    # the quote each verdict stands on is the passage's own sentence, held word for word
    assert [(c["label"], c["quote"], c["quote_held"]) for c in false["claims"]] == [
        ("SUPPORTS", PARIS, True), ("REFUTES", "The Eiffel Tower is in Paris.", True)]
    assert unread["claims"][1]["status"] == "unchecked" and unread["claims"][1]["quote"] is None

    text, figures = table([false, true, unread])
    assert "| tier:fast | holds a false statement (1) | 1 | 0 | 0 | 2 of 2 |" in text
    # the correct answer with an unreadable claim is not passed: a reader is told that claim was not checked
    assert "| tier:fast | correct (2) | 0 | 1 | 1 | 2 of 2 |" in text
    assert figures["factool-qa.tier-fast.passed"] == 1


def test_a_claim_supported_without_a_quote_or_not_enough_info_or_on_words_no_passage_holds_is_said() -> None:
    def claim(label: str, quote: str | None, held: bool | None) -> dict[str, Any]:
        return {"claim": "c", "label": label, "status": "checked", "reason": None, "quote": quote,
                "quote_held": held}

    rows = [{"set": "felm-wk", "way": "tier:fast", "id": str(n), "gold": "SUPPORTS", "claims": claims,
             "skipped": [], "error": None, "calls": 1, "tokens": 10, "seconds": 1.0, "cpu_s": 1.0,
             "flagged": False}
            for n, claims in enumerate([[claim("SUPPORTS", None, None)], [claim("NOT ENOUGH INFO", None, None)],
                                        [claim("SUPPORTS", "Words of its own.", False)], []])]
    text, _ = table(rows)
    # neither the unquoted SUPPORTS, the NOT ENOUGH INFO nor the answer with no claim passes; the one with a
    # quote passes, and its quote is counted as not held by any passage
    assert "| tier:fast | correct (4) | 0 | 3 | 1 | 0 of 1 |" in text


async def test_the_passages_a_search_returns_are_those_quotes_are_held_to() -> None:
    doc = Document(id="w-1", title="Eiffel Tower", text="The Eiffel Tower is a tower in Paris.", source="web")
    original = searched_module.book_tool_call
    with passages_searched() as found:
        docs = await searched_module.search_tool(StaticTool("local", [doc]), "Eiffel Tower", 3, agent="guard-fast")
    assert docs == [doc] and found == [doc.text]
    assert searched_module.book_tool_call is original  # the check runs unchanged once the benchmark is done


async def test_claim_level_counts_an_unchecked_false_claim_as_missed_and_never_as_a_verdict(tmp_path: Path) -> None:
    answers = tmp_path / "knowledge_qa.jsonl"
    answers.write_text(json.dumps({
        "prompt": "Tell me about Paris.", "response": f"{PARIS} {ROME} {LOUVRE}", "label": False,
        "claims": [{"claim": PARIS, "label": True}, {"claim": ROME, "label": False},
                   {"claim": LOUVRE, "label": False}]}) + "\n", encoding="utf-8")
    claims = claims_of(load_factool_responses(answers)).samples
    assert [(s.claim, s.gold, s.meta["question"]) for s in claims] == [
        (PARIS, "SUPPORTS", "Tell me about Paris."), (ROME, "REFUTES", "Tell me about Paris."),
        (LOUVRE, "REFUTES", "Tell me about Paris.")]
    rows = [await _row(s.claim, s.gold, [s.claim], unit="claim") for s in claims]
    text, figures = table(rows)
    # false caught: 1 of 1 flagged is false, 1 of 2 false claims caught (the unchecked Louvre is missed);
    # true checked SUPPORTS: 1 of 1, 1 of 1; the Louvre in its own column
    assert ("| factool-qa | tier:fast | 3 (2 / 1) | 1.00 [0.21, 1.00] (1/1) | 0.50 [0.09, 0.91] (1/2) | 0.67 | "
            "1.00 [0.21, 1.00] (1/1) | 1.00 [0.21, 1.00] (1/1) | 1.00 | 1 of 3 |") in text
    assert "| factool-qa | tier:fast | false | 2 | 1 | 0 | 1 |" in text
    assert "| factool-qa | tier:fast | true | 1 | 0 | 1 | 0 |" in text
    assert figures["claims.factool-qa.tier-fast.false_recall"] == 0.5
    assert figures["claims.factool-qa.tier-fast.unchecked"] == 1
    assert "1 × " in text.split("Why claims were left unchecked")[1]
