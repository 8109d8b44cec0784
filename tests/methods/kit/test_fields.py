"""One rule for every model-written field: this walks every method's prompts, finds
each placeholder or example a model could copy, checks that it is declared for its field
(``kit/fields.PLACEHOLDERS``), then feeds each field its own placeholder through the method's own reader
and expects the reply to be unreadable; a label as a query and a query sharing no word with the claim are
refused the same way, and the readers still read a faithful reply."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from factdebate.core.runtime import RunRecorder, recording
from factdebate.llm.ask import Unreadable
from factdebate.methods.baselines.factool import query_problem, read_verification
from factdebate.methods.baselines.mad import parse_moderation
from factdebate.methods.baselines.react import read_step
from factdebate.methods.dpd.panel import read_ballot
from factdebate.methods.dpd.team import parse_queries
from factdebate.methods.kit.fields import PLACEHOLDERS, field_problem, words
from factdebate.methods.kit.formats import grounded_query
from factdebate.methods.mermaid.decomposer import parse_decomposition
from factdebate.methods.mermaid.executor import parse_step
from tests.helpers import CLAIM

METHODS = Path(__file__).parents[3] / "src" / "factdebate" / "methods"
GOOD = "capital of France"
# What a prompt shows that is a choice among fixed values, not a field written freely: read elsewhere.
CHOICES = {"VERDICT", "yes or no", "affirmative", "tool_name"}


def _ballot(why: str) -> str:
    side = {"evidence": 0.5, "logic": 0.5, "neutrality": 0.5, "persuasiveness": 0.5}
    return json.dumps({"why": why, "affirmative": side, "negative": side, "vote": "tie", "confidence": 0.5})


def _triplet(**fields: str) -> str:
    triplet = {"subject": "Paris", "relation": "is the capital of", "object": "France", "attributes": ""}
    topic = fields.pop("topic", "Geography")
    return json.dumps({"triplets": [{**triplet, **fields}], "topic": topic})


def _step(thought: str = "The capital is named.", reason: str = "to look it up", query: str = GOOD) -> str:
    return json.dumps({"thought": thought, "action": {"name": "search", "reason": reason,
                                                      "input": {"query": query}}})


def _factool_queries(text: str) -> None:
    if (problem := query_problem(text, CLAIM)) is not None:
        raise Unreadable(problem)


# Each prompt's reader, fed a reply whose ``field`` is ``value`` and whose other fields are faithful.
READERS: dict[str, Callable[[str, str], Any]] = {
    "dpd_queries": lambda field, value: parse_queries(json.dumps({"support": GOOD, "refute": GOOD, field: value}),
                                                      CLAIM),
    "dpd_judge": lambda field, value: read_ballot(_ballot(value)),
    "mermaid_decompose": lambda field, value: parse_decomposition(_triplet(**{field: value}), CLAIM),
    "mermaid_step": lambda field, value: parse_step(_step(**{field: value}), False, claim=CLAIM),
    "mermaid_force": lambda field, value: parse_step(json.dumps({"thought": value, "answer": "True"}), False,
                                                     answer_only=True, claim=CLAIM, prompt="mermaid_force"),
    "factool_queries": lambda field, value: _factool_queries(value),
    "factool_verify": lambda field, value: read_verification(json.dumps({"reasoning": value, "factual": True})),
    "react_step": lambda field, value: read_step(
        f"Thought: {value}\nAction: search[{GOOD}]" if field == "thought"
        else f"Thought: The capital is named.\nAction: search[{value}]", CLAIM),
    "mad_moderator": lambda field, value: parse_moderation(f"Preference: no\nReason: {value}"),
    "query_select": lambda field, value: grounded_query(f"[{value}]", CLAIM),
}
# A re-ask prompt's placeholders are its first prompt's.
FIRST = {"factool_queries_reask": "factool_queries", "factool_verify_reask": "factool_verify",
         "query_reask": "query_select"}


def _shown(text: str) -> set[str]:
    """What a prompt shows as a value to fill: ``<...>``, a JSON string value or list of strings, and a
    "Reason:"/"Thought:" line of a plain-text format (Jinja expressions left out)."""
    plain = "\n".join(line for line in text.splitlines() if "{{" not in line and "{%" not in line)
    shown = set(re.findall(r"<([^<>\n]+)>", plain))
    shown |= {v for v in re.findall(r'"\w+":\s*"([^"\n]+)"', plain)}
    for items in re.findall(r'"\w+":\s*\[(\s*"[^"\n]*"(?:\s*,\s*"[^"\n]*")*\s*)\]', plain):
        shown |= set(re.findall(r'"([^"]+)"', items))
    shown |= set(re.findall(r"^(?:Reason|Thought):\s*(.+)$", plain, re.M))
    return {s.strip() for s in shown if s.strip()}


def prompts() -> list[Path]:
    return sorted(METHODS.glob("*/prompts/*.j2"))


def test_every_placeholder_a_method_prompt_shows_is_declared_for_its_field() -> None:
    undeclared = []
    for path in prompts():
        name = FIRST.get(path.stem, path.stem)
        declared = [p for values in PLACEHOLDERS.get(name, {}).values() for p in values]
        for shown in _shown(path.read_text(encoding="utf-8")) - CHOICES:
            if not any(words(shown) == words(p) or (not words(shown) and p == shown) for p in declared):
                undeclared.append(f"{path.stem}: {shown!r}")
    assert not undeclared


def test_every_declaration_is_a_prompt_read_by_a_reader_and_shows_its_placeholders() -> None:
    texts = {FIRST.get(p.stem, p.stem): "" for p in prompts()}  # a tool's example input is the toolbox's
    for path in prompts():
        texts[FIRST.get(path.stem, path.stem)] += " " + " ".join(words(path.read_text(encoding="utf-8")))
    texts["mermaid_step"] += " ".join(words((METHODS / "mermaid" / "toolbox.py").read_text(encoding="utf-8")))
    assert set(PLACEHOLDERS) == set(READERS) and set(PLACEHOLDERS) <= set(texts)
    for prompt, fields in PLACEHOLDERS.items():
        for values in fields.values():
            for value in values:
                assert not words(value) or f" {' '.join(words(value))} " in texts[prompt] + " ", (prompt, value)


def unreadable(prompt: str, field: str, value: str) -> bool:
    """The reader refuses the reply: it raises :class:`Unreadable` or reads nothing (``llm.ask`` re-asks both)."""
    try:
        return READERS[prompt](field, value) is None
    except Unreadable:
        return True


CASES = [(prompt, field, value) for prompt, fields in PLACEHOLDERS.items() for field, values in fields.items()
         for value in values]


# Fields that only give reasons: one that copies its placeholder is dropped and counted as echoed, and the
# reply is read for its decision (MERMAID threw away forced answers carrying "True" for it).
FREE = {("mermaid_step", "thought"), ("mermaid_step", "reason"), ("mermaid_force", "thought"),
        ("factool_verify", "reasoning"), ("react_step", "thought"), ("mad_moderator", "reason"), ("dpd_judge", "why")}


@pytest.mark.parametrize(("prompt", "field", "value"), CASES, ids=[f"{p}.{f}={v}" for p, f, v in CASES])
def test_each_field_fed_its_own_placeholder_is_unreadable_or_dropped(prompt: str, field: str, value: str) -> None:
    if (prompt, field) not in FREE:
        assert unreadable(prompt, field, value)
        return
    counts = RunRecorder([])
    with recording(counts):
        assert READERS[prompt](field, value) is not None
    assert counts.parse_counts[prompt].echoed == 1


@pytest.mark.parametrize(("prompt", "field"), sorted(FREE))
@pytest.mark.parametrize("value", [", S, C, D, E", "A B C"])
def test_a_run_of_single_letters_in_a_free_field_is_dropped(prompt: str, field: str, value: str) -> None:
    counts = RunRecorder([])
    with recording(counts):
        assert READERS[prompt](field, value) is not None
    assert counts.parse_counts[prompt].echoed == 1


QUERIES = [(p, f) for p, fields in PLACEHOLDERS.items() for f in fields if f in ("query", "support", "refute")]


@pytest.mark.parametrize(("prompt", "field"), QUERIES)
@pytest.mark.parametrize("value", ["true", "SUPPORTS", "not enough info", "zorblat quexity"])
def test_a_label_or_unrelated_words_as_a_query_is_unreadable(prompt: str, field: str, value: str) -> None:
    if prompt == "react_step" and value in ("SUPPORTS", "not enough info"):  # ReAct's answer, not a search
        assert READERS[prompt](field, value).kind == "finish"
        return
    assert unreadable(prompt, field, value)


@pytest.mark.parametrize(("prompt", "field"), [(p, f) for p, fields in PLACEHOLDERS.items() for f in fields])
def test_a_faithful_field_reads(prompt: str, field: str) -> None:
    value = {"topic": "Geography", "relation": "is the capital of", "subject": "Paris", "object": "France"}.get(
        field, "Paris is named the capital of France")
    assert READERS[prompt](field, value) is not None or prompt == "factool_queries"


def test_free_form_fields_need_not_share_the_claims_words() -> None:
    assert field_problem("The evidence settles it.", "thought", ("your reasoning",)) is None
    assert field_problem("Geography", "topic", ("...",), sources=()) is None
    assert field_problem("Geography", "subject", ("...",), sources=(CLAIM,)) is not None
