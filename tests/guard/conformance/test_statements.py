"""Coverage that fails closed, claims that say where they come from, grounding by meaning: chats whose false
statement a word-matching rule used to pass unmarked, each with its all-true twin, through every door (the
proxy plain and streamed, ``POST /v1/guard/check``, LiteLLM's guardrail route, ``factdebate.guard``,
``factdebate.aguard_stream``, MCP ``check_answer``) under ``flag``, and the false replies under ``block`` and
``hold``, judged on the text the client receives (test_conversations.judge).

- a choice answered "The latter." whose claim writes the question's verb in another form ("sink" / "sank");
- "How tall is Everest?" answered with a pronoun, the claim naming "Mount Everest";
- a statement inside an offer of help ("Happy to help with the Eiffel Tower, which is in Berlin.");
- "Neither -- he was born in Ulm.", whose right claims reword it: drawn from it, they cover it, and it is not
  checked again as written (its true twin is not footnoted);
- a table whose header row states nothing and whose data row is false;
- "Yes." to "Did she die in 1950?", "Of course." to a yes-or-no question, and "Longer." to a comparison.

The extractor double writes the claims a capable model writes, each with the number of the sentence it is
drawn from (conversations.WorldChecker).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.guard.conformance.conversations import Conversation, Said, WorldChecker
from tests.guard.conformance.test_conformance import (
    McpDoor,
    World,
    open_world,
    prepare,
    through_python,
)
from tests.guard.conformance.test_conformance import mcp as mcp  # the fixture, opened on this world
from tests.guard.conformance.test_conversations import (
    every_door,
    judge,
    scenario,
    through_python_stream,
)


def _ask(*turns: str) -> list[dict[str, Any]]:
    return [{"role": "user" if n % 2 == 0 else "assistant", "content": t} for n, t in enumerate(turns)]


TITANIC = "Did the Titanic sink in 1912 or in 1915?"
EINSTEIN = "Was Einstein born in Munich or in Berlin?"
CURIE = _ask("Tell me about Marie Curie.", "Marie Curie was a physicist and chemist.", "Did she die in 1950?")
TABLE = "| Fact | Value |\n|---|---|\n| Height | 330 m |\n| Completed | {year} |"

STATEMENTS: list[Conversation] = [
    Conversation("titanic-latter", _ask(TITANIC), "The latter.", "The former.", "The latter.", (
        Said("The latter.", "The Titanic sank in 1915.", False, (TITANIC,)),
        Said("The former.", "The Titanic sank in 1912.", True, (TITANIC,))), shape="choice, another verb form"),
    Conversation("everest-short-name", _ask("How tall is Everest?"), "It is 9,500 m tall.", "It is 8,849 m tall.",
                 "It is 9,500 m tall.", (
        Said("It is 9,500 m tall.", "Mount Everest is 9,500 m tall.", False, ("How tall is Everest?",)),
        Said("It is 8,849 m tall.", "Mount Everest is 8,849 m tall.", True, ("How tall is Everest?",))),
        shape="longer name than the conversation's"),
    Conversation("eiffel-offer", _ask("Where is the Eiffel Tower?"),
                 "Happy to help with the Eiffel Tower, which is in Berlin.",
                 "Happy to help with the Eiffel Tower, which is in Paris.",
                 "Happy to help with the Eiffel Tower, which is in Berlin.", (
        Said("which is in Berlin.", "The Eiffel Tower is in Berlin.", False),
        Said("which is in Paris.", "The Eiffel Tower is in Paris.", True)), shape="statement inside framing"),
    Conversation("einstein-neither", _ask(EINSTEIN), "Neither \u2014 he was born in Vienna.",
                 "Neither \u2014 he was born in Ulm.", "Neither \u2014 he was born in Vienna.", (
        Said("Neither \u2014 he was born in", "Albert Einstein was not born in Munich.", True, (EINSTEIN,)),
        Said("Neither \u2014 he was born in", "Albert Einstein was not born in Berlin.", True, (EINSTEIN,)),
        Said("born in Vienna.", "Albert Einstein was born in Vienna.", False, (EINSTEIN,)),
        Said("born in Ulm.", "Albert Einstein was born in Ulm.", True, (EINSTEIN,))),
        shape="choice, claims that reword the reply"),
    Conversation("eiffel-table", _ask("Give me the key facts about the Eiffel Tower as a table."),
                 TABLE.format(year=1899), TABLE.format(year=1889), "| Completed | 1899 |", (
        Said("| Height | 330 m |", "The height of the Eiffel Tower is 330 m.", True, ("Eiffel Tower",)),
        Said("| Completed | 1899 |", "The Eiffel Tower was completed in 1899.", False, ("Eiffel Tower",)),
        Said("| Completed | 1889 |", "The Eiffel Tower was completed in 1889.", True, ("Eiffel Tower",))),
        shape="table"),
    Conversation("curie-died", CURIE, "Yes.", "No, she died in 1934.", "Yes.", (
        Said("Yes.", "Marie Curie died in 1950.", False, ("Did she die in 1950?",)),
        Said("No, she died in 1934.", "Marie Curie did not die in 1950.", True, ("Did she die in 1950?",)),
        Said("No, she died in 1934.", "Marie Curie died in 1934.", True, ("Marie Curie",))),
        shape="yes or no, another verb form"),
    Conversation("berlin-wall-of-course", _ask("Did the Berlin Wall fall in 1991?"), "Of course.",
                 "No, it fell in 1989.", "Of course.", (
        Said("Of course.", "The Berlin Wall fell in 1991.", False, ("Did the Berlin Wall fall in 1991?",)),
        Said("No, it fell in 1989.", "The Berlin Wall did not fall in 1991.", True, ("Berlin Wall",)),
        Said("No, it fell in 1989.", "The Berlin Wall fell in 1989.", True, ("Berlin Wall",))),
        shape="agreement to a yes or no question"),
    Conversation("seine-longer", _ask("Is the Seine longer or shorter than the Loire?"), "Longer.", "Shorter.",
                 "Longer.", (
        Said("Longer.", "The Seine is longer than the Loire.", False, ("Seine longer or shorter",)),
        Said("Shorter.", "The Seine is shorter than the Loire.", True, ("Seine longer or shorter",))),
        shape="comparison"),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with open_world(tmp_path_factory.mktemp("statements"), checker=WorldChecker(STATEMENTS),
                    upstream_timeout_s=30.0) as opened:
        yield opened


CASES = [pytest.param(convo, twin, id=f"{convo.name}-{twin}") for convo in STATEMENTS for twin in ("false", "true")]


@pytest.mark.parametrize(("convo", "twin"), CASES)
def test_every_door_marks_the_false_statement_and_passes_its_twin(world: World, mcp: McpDoor,
                                                                   convo: Conversation, twin: str) -> None:
    outcomes = every_door(world, mcp, convo, twin, "flag")
    problems = [problem for out in outcomes for problem in judge(convo, twin, out)]
    assert not problems, "\n".join(problems)
    if twin == "false":  # refuted, not only unchecked: the claim was kept and checked
        for out in outcomes:
            assert out.result is not None and out.result["label"] == "REFUTES", (out.door, out.result)


@pytest.mark.parametrize("policy", ["block", "hold"])
@pytest.mark.parametrize("convo", STATEMENTS, ids=lambda c: c.name)
def test_block_refuses_and_hold_withholds_the_false_statement(world: World, mcp: McpDoor,
                                                              convo: Conversation, policy: str) -> None:
    outcomes = every_door(world, mcp, convo, "false", policy)
    problems = [problem for out in outcomes for problem in judge(convo, "false", out)]
    assert not problems, "\n".join(problems)


def test_the_claims_say_where_they_come_from(world: World) -> None:
    """Each claim's sources are the reply's sentences it was drawn from; the rewording claims of "Neither -- he
    was born in Ulm." cover it, so it is not checked again as written, and a table's header row is skipped as
    stating nothing."""
    convo = next(c for c in STATEMENTS if c.name == "einstein-neither")
    out = through_python(world, scenario(convo, "true", "flag"))
    assert out.result is not None
    claims = out.result["claims"]
    assert sorted(c["claim"] for c in claims) == ["Albert Einstein was born in Ulm.",
                                                   "Albert Einstein was not born in Berlin.",
                                                   "Albert Einstein was not born in Munich."]
    whole = {"start": 0, "end": len(convo.true)}
    assert all(c["sources"] == [whole] and c["label"] == "SUPPORTS" for c in claims), claims
    table = next(c for c in STATEMENTS if c.name == "eiffel-table")
    out = through_python(world, scenario(table, "true", "flag"))
    assert out.result is not None
    assert [(s["text"], s["reason"]) for s in out.result["skipped"]] == [("| Fact | Value |", "table header"),
                                                                         ("|---|---|", "no content")]
    assert out.delivered == table.true


def test_a_model_that_cannot_say_where_a_claim_comes_from_is_still_read(tmp_path: Any) -> None:
    """The older answer, a list of claims alone: "The latter." is still refuted (placed on the short answer by
    the question's words) and "sank" is still grounded by the question's "sink"."""
    convo = STATEMENTS[0]
    checker = WorldChecker(STATEMENTS, numbered=False)
    with open_world(tmp_path, checker=checker) as opened:
        out = through_python(opened, scenario(convo, "false", "block"))
    assert out.result is not None and out.result["label"] == "REFUTES", out.result
    assert out.result["action_taken"] == "blocked" and convo.wrong not in (out.delivered or "")
    assert all(c["sources"] == [] for c in out.result["claims"])  # placed by its words, not by a number


def test_the_guard_in_python_refutes_the_latter_streamed(world: World) -> None:
    """``factdebate.aguard_stream`` under ``block``: nothing of "The latter." reaches the reader."""
    case = scenario(STATEMENTS[0], "false", "block")
    prepare(world, case)
    out = through_python_stream(world, case)
    assert out.result is not None and out.result["action_taken"] == "blocked"
    assert "The latter." not in (out.delivered or "")
