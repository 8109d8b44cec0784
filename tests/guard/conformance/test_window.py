"""A window that keeps the subject: chats whose false statement needs what a six-turn window lost, through every
door (the proxy plain and streamed, ``POST /v1/guard/check``, LiteLLM's guardrail route, ``factdebate.guard``,
``factdebate.aguard_stream``, MCP ``check_answer``) under ``flag``, and the false replies under ``block`` and
``hold``, judged on the text the client receives (test_conversations.judge).

- a 41-message chat whose subject (the tower of the person's report) was set at turn 1 and 2, its last turns
  about another landmark (the Empire State Building, finished in 1931): "It was finished in 1931." is the
  report's tower, refuted, never the other landmark's, supported;
- the same chat with no landmark in its last turns: still the report's tower;
- a persona bot (its system prompt "You are the Eiffel Tower ..."): "I opened my doors in 1920." is the tower's;
- an elliptical follow-up ("And the Berlin Wall?" after a question about a fall): "In 1991." is the Wall's;
- a follow-up whose subject the conversation never names: unchecked, its subject unresolved, never checked
  as written.

The extractor double resolves each statement as a capable model does with what its prompt shows: the report's
tower when the prompt shows the turn that named it, else the landmark the recent turns name, else it keeps the
pronoun (:class:`WindowChecker`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from tests.guard.conformance.conversations import Conversation, Said, WorldChecker, _fold, _section
from tests.guard.conformance.test_conformance import (
    McpDoor,
    World,
    open_world,
)
from tests.guard.conformance.test_conformance import mcp as mcp  # the fixture, opened on this world
from tests.guard.conformance.test_conversations import (
    every_door,
    judge,
)

SUBJECT_SET = "I'm writing a report about the Eiffel Tower."
OTHER = "Empire State Building"
QUESTION = "Back to my report: when was the tower finished?"
ADVICE = ("Keep each paragraph on one idea, open it with a sentence that says what the paragraph is about, and end "
          "it with one that leads into the next, so that a reader can follow the report from the first paragraph "
          "to the last without going back.")


def _ask(*turns: str) -> list[dict[str, Any]]:
    return [{"role": "user" if n % 2 == 0 else "assistant", "content": t} for n, t in enumerate(turns)]


def long_chat(late: tuple[str, ...]) -> list[dict[str, Any]]:
    """41 messages: the subject set in the first two, 17 exchanges about writing, then ``late`` (two exchanges)
    and the question. Each answer is long, as a chatbot's are: the first two turns lie some 6,000 characters
    back, far outside a prompt's window of recent turns."""
    writing = [text for n in range(17) for text in (f"How long should paragraph {n + 2} of my report be?",
                                                     f"About {n + 4} sentences suits paragraph {n + 2}. {ADVICE}")]
    chat = _ask(f"{SUBJECT_SET} Can you help me with it?",
                "Of course! The Eiffel Tower is a wrought-iron lattice tower in Paris.", *writing, *late, QUESTION)
    assert len(chat) == 41
    return chat


LATE_OTHER = ("My friend writes her report on the Empire State Building.",
              f"The {OTHER} is a fine subject as well. {ADVICE}",
              "She says it went up in about a year.", f"Yes, the {OTHER} went up remarkably fast. {ADVICE}")
LATE_QUIET = ("Should I add pictures?", f"Yes, two or three pictures help a report. {ADVICE}",
              "Should they have captions?", f"Yes, a short caption under each one. {ADVICE}")
EVIDENCE = f"The Eiffel Tower was finished in 1889. The {OTHER} was finished in 1931."


def _finished(name: str, late: tuple[str, ...]) -> Conversation:
    false, true = "It was finished in 1931.", "It was finished in 1889."
    return Conversation(name, long_chat(late), false, true, false, (
        # The report's tower, when the prompt shows the turn that set it; else the landmark of the last turns.
        Said(false, "The Eiffel Tower was finished in 1931.", False, (SUBJECT_SET,)),
        Said(false, f"The {OTHER} was finished in 1931.", True, (OTHER,)),
        Said(true, "The Eiffel Tower was finished in 1889.", True, (SUBJECT_SET,)),
        Said(true, f"The {OTHER} was finished in 1889.", False, (OTHER,))),
        passage=EVIDENCE, shape="subject forty turns back")


PERSONA = "You are the Eiffel Tower, the wrought-iron tower in Paris. Answer every visitor in the first person."
WINDOW_WORLD = [
    _finished("report-tower-other-landmark-late", LATE_OTHER),
    _finished("report-tower-quiet-late", LATE_QUIET),
    Conversation("persona-tower", [{"role": "system", "content": PERSONA},
                                   *_ask("When did you first open to visitors?")],
                 "I opened my doors in 1920.", "I opened my doors in 1889.", "I opened my doors in 1920.", (
        Said("I opened my doors in 1920.", "The Eiffel Tower opened in 1920.", False, ("You are the Eiffel Tower",)),
        Said("I opened my doors in 1889.", "The Eiffel Tower opened in 1889.", True, ("You are the Eiffel Tower",))),
        passage="The Eiffel Tower opened in 1889.", shape="persona"),
    Conversation("berlin-wall-elliptical", _ask("When did the Western Roman Empire fall?", "In 476.",
                                                "And the Berlin Wall?"),
                 "In 1991.", "In 1989.", "In 1991.", (
        Said("In 1991.", "The fall of the Berlin Wall was in 1991.", False, ("And the Berlin Wall?", "Empire fall")),
        Said("In 1989.", "The fall of the Berlin Wall was in 1989.", True, ("And the Berlin Wall?", "Empire fall"))),
        passage="The fall of the Berlin Wall was in 1989.", shape="elliptical follow-up"),
]
UNRESOLVED = Conversation("never-named", _ask("When was it finished?"), "It was finished in 1931.",
                          "It was finished in 1889.", "It was finished in 1931.", (), passage=EVIDENCE)
# A short answer whose claim a capable model writes with the question's words and its unresolved "it".
UNRESOLVED_SHORT = Conversation("never-named-short", _ask("Was it finished in 1931?"), "Yes, in 1931.",
                                "No, in 1889.", "Yes, in 1931.", (), passage=EVIDENCE)
SHORT_ANSWERS = {"Yes, in 1931.": "It was finished in 1931.", "No, in 1889.": "It was finished in 1889."}


class WindowChecker(WorldChecker):
    """The extractor double of this module's world: for each statement of the text, the first resolution whose
    ``needs`` the prompt shows (as a capable model picks the subject the conversation gives it), else the
    statement with its pronoun kept (a model that cannot tell whom "It" means does not guess)."""

    def __init__(self) -> None:
        super().__init__()
        self.truth = {_fold(s.claim): "SUPPORTS" if s.true else "REFUTES" for c in WINDOW_WORLD for s in c.said}

    def respond(self, call: CallInfo, messages: list[Message], params: GenParams) -> str:
        prompt = messages[0]["content"]
        if not call.prompt.startswith("claims_extract"):
            return super().respond(call, messages, params)
        self.extractions.append(prompt)
        text = _section(prompt, "\nText:\n", "\n\nReply with a JSON object only")
        claims = []
        for sentence in ("It was finished in 1931.", "It was finished in 1889.", "I opened my doors in 1920.",
                         "I opened my doors in 1889.", "In 1991.", "In 1989."):
            if sentence not in text:
                continue
            said = [s for c in WINDOW_WORLD for s in c.said if s.sentence == sentence]
            chosen = next((s.claim for s in said if all(need in prompt for need in s.needs)), sentence)
            claims.append(chosen)
        claims += [claim for answer, claim in SHORT_ANSWERS.items() if answer in text]
        return json.dumps({"claims": claims})


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with open_world(tmp_path_factory.mktemp("window"), checker=WindowChecker(), upstream_timeout_s=30.0) as opened:
        yield opened


@pytest.mark.parametrize("twin", ["false", "true"])
@pytest.mark.parametrize("convo", WINDOW_WORLD, ids=lambda c: c.name)
def test_the_subject_is_kept_through_every_door(world: World, mcp: McpDoor, convo: Conversation,
                                                twin: str) -> None:
    outcomes = every_door(world, mcp, convo, twin, "flag")
    problems = [problem for out in outcomes for problem in judge(convo, twin, out)]
    assert not problems, "\n".join(problems)
    wanted = {s.claim for s in convo.said if s.sentence in (convo.false if twin == "false" else convo.true)
              and s.needs == convo.said[0].needs}
    for out in outcomes:  # the claim about the subject the conversation set, never the other landmark's
        assert out.result is not None, out.door
        assert {c["claim"] for c in out.result["claims"]} == wanted, (out.door, out.result["claims"])
        if twin == "false":
            assert out.result["label"] == "REFUTES", (out.door, out.result["claims"])


@pytest.mark.parametrize("policy", ["block", "hold"])
@pytest.mark.parametrize("convo", WINDOW_WORLD, ids=lambda c: c.name)
def test_block_refuses_and_hold_withholds_what_the_subject_makes_false(world: World, mcp: McpDoor,
                                                                       convo: Conversation, policy: str) -> None:
    outcomes = every_door(world, mcp, convo, "false", policy)
    problems = [problem for out in outcomes for problem in judge(convo, "false", out)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("convo", [UNRESOLVED, UNRESOLVED_SHORT], ids=lambda c: c.name)
def test_a_subject_the_conversation_never_names_is_unchecked_not_checked_as_written(
        world: World, mcp: McpDoor, convo: Conversation) -> None:
    for out in every_door(world, mcp, convo, "false", "flag"):
        assert out.result is not None, out.door
        claims = out.result["claims"]
        assert [(c["status"], c["label"]) for c in claims] == [("unchecked", None)], (out.door, claims)
        assert "could not be resolved" in claims[0]["reason"], (out.door, claims)
        assert out.result["label"] != "SUPPORTS" and convo.false in (out.delivered or ""), out.door
