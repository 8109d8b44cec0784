"""Limits and formats that must fail closed, through every door (the proxy plain and streamed,
``POST /v1/guard/check``, LiteLLM's guardrail route, ``factdebate.guard``, ``factdebate.aguard_stream``, MCP
``check_answer``) under ``flag``, and the false replies under ``block`` and ``hold``, judged on the text the
client receives (test_conversations.judge):

- a sentence that states four facts, the false one last: the extractor's room is counted from the sentence's
  parts, so its fourth claim is taken and refuted, and the true twin passes; one that states more than its
  parts count (five facts, two parts) fills the call's room: the sentence is unchecked, said why, never passed;
- a Markdown table whose middle row is false: each row is a unit of its own for the extractor, with room for
  its cells, so every row gets its claims (the true twin is not flagged for a row left without one);
- a JSON object, on one line and pretty-printed (as a ``response_format: json_object`` answer is), an array
  of objects under a key, and a YAML mapping: what their keys and values state is checked, not passed as code
  or as too short to state anything;
- a Japanese reply, whose sentences end at "。" with no space after it, a Thai one, whose sentences end at a
  space between Thai letters, and a French one, each with its claims written in English: the translated claim
  is held to the text's numbers and names (response_level/translated.py), not dropped;
- a year written as "the following year" or "two years later", which the extractor resolves to the year it
  names: the claim's year is the text's, not dropped as a number the text does not write;
- "In 1991." after "And the Berlin Wall?", whose claim says "fell" where the conversation said "collapse":
  kept (its names and numbers are the conversation's), not dropped for a verb written nowhere;
- a sentence wrapped across a line break: checked whole, streamed as plain, and marked on both its lines.

Each false reply and its twin also go through every door under ``annotate`` (delivered as written, the verdicts
beside it) and ``rewrite`` (the revision, checked again, delivered instead), and through
``factdebate.aguard_stream`` under ``hold`` one character a delta.

The extractor double writes the claims a capable model writes, each with the number of the sentence it is
drawn from (conversations.WorldChecker).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import factdebate as fd
from tests.guard.conformance.conversations import Conversation, Said, WorldChecker
from tests.guard.conformance.test_conformance import (
    FOOTNOTES,
    HTTP,
    McpDoor,
    World,
    conversation,
    open_world,
    options_of,
    prepare,
)
from tests.guard.conformance.test_conformance import mcp as mcp  # the fixture, opened on this world
from tests.guard.conformance.test_conversations import (
    every_door,
    judge,
    scenario,
)
from tests.server.conftest import AUTH


def _ask(question: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": question}]


EIFFEL = ("The Eiffel Tower, in Paris, opened in 1889, is 330 metres tall and remained the tallest man-made "
          "structure in the world until {}.")
EIFFEL_FIRST = "The Eiffel Tower, in Paris, opened in 1889, is 330 metres tall"
SKYSCRAPERS = ("| Building | City | Completed |\n|---|---|---|\n| Chrysler Building | New York City | 1930 |\n"
               "| Empire State Building | New York City | {} |\n| Willis Tower | Chicago | 1973 |")
BIG_BEN = '{{"landmark": "Big Ben", "city": "{}", "completed": 1859}}'
BIG_BEN_PRETTY = '{{\n  "landmark": "Big Ben",\n  "city": "{}",\n  "completed": 1859\n}}'
BIG_BEN_YAML = "landmark: Big Ben\ncity: {}\ncompleted: 1859"
LANDMARKS = ('{{\n  "landmarks": [\n    {{"name": "Big Ben", "city": "{}"}},\n'
             '    {{"name": "Colosseum", "city": "Rome"}}\n  ]\n}}')
FUJI = "富士山は日本で一番高い山です。富士山の高さは{}メートルです。"
# Thai writes no sentence punctuation: its sentences are parted by a space between Thai letters.
FUJI_THAI = "ภูเขาไฟฟูจิเป็นภูเขาที่สูงที่สุดในญี่ปุ่น ภูเขาไฟฟูจิสูง {} เมตร"


def _big_ben(name: str, shape: str, form: str, city: str = '"city": "{}"') -> Conversation:
    """Big Ben's facts as a JSON object or a YAML mapping (``form``; ``city``: how it writes the city), its city
    false or true: a claim for each member, the object's subject in each."""
    landmark, completed = ("landmark: Big Ben", "completed: 1859") if "YAML" in shape else (
        '"landmark": "Big Ben"', '"completed": 1859')
    return Conversation(name, _ask("Give me Big Ben's key facts as a JSON object."), form.format("Paris"),
                        form.format("London"), city.format("Paris"), (
        Said(landmark, "Big Ben is a landmark.", True),
        Said(city.format("Paris"), "Big Ben is in Paris.", False, ("Big Ben",)),
        Said(city.format("London"), "Big Ben is in London.", True, ("Big Ben",)),
        Said(completed, "Big Ben was completed in 1859.", True, ("Big Ben",))), shape=shape)


LIMITS: list[Conversation] = [
    Conversation("eiffel-four-facts", _ask("Tell me about the Eiffel Tower."), EIFFEL.format(1950),
                 EIFFEL.format(1930), "remained the tallest man-made structure in the world until 1950.", (
        Said(EIFFEL_FIRST, "The Eiffel Tower is in Paris.", True),
        Said(EIFFEL_FIRST, "The Eiffel Tower opened in 1889.", True),
        Said(EIFFEL_FIRST, "The Eiffel Tower is 330 metres tall.", True),
        Said("until 1950.", "The Eiffel Tower remained the tallest man-made structure in the world until 1950.",
             False),
        Said("until 1930.", "The Eiffel Tower remained the tallest man-made structure in the world until 1930.",
             True)), shape="one sentence, four facts, the false one last"),
    Conversation("skyscraper-table", _ask("When were New York's and Chicago's famous skyscrapers completed? "
                                          "Answer with a table."),
                 SKYSCRAPERS.format(1913), SKYSCRAPERS.format(1931),
                 "| Empire State Building | New York City | 1913 |", (
        Said("| Chrysler Building | New York City | 1930 |", "The Chrysler Building is in New York City.", True),
        Said("| Chrysler Building | New York City | 1930 |", "The Chrysler Building was completed in 1930.", True),
        Said("| Empire State Building | New York City |", "The Empire State Building is in New York City.", True),
        Said("| Empire State Building | New York City | 1913 |", "The Empire State Building was completed in 1913.",
             False),
        Said("| Empire State Building | New York City | 1931 |", "The Empire State Building was completed in 1931.",
             True),
        Said("| Willis Tower | Chicago | 1973 |", "The Willis Tower is in Chicago.", True),
        Said("| Willis Tower | Chicago | 1973 |", "The Willis Tower was completed in 1973.", True)),
        shape="table, the middle row false"),
    _big_ben("big-ben-json", "a JSON object on one line", BIG_BEN),
    _big_ben("big-ben-json-pretty", "a JSON object, pretty-printed", BIG_BEN_PRETTY),
    _big_ben("big-ben-yaml", "a YAML mapping", BIG_BEN_YAML, "city: {}"),
    Conversation("landmarks-json-array", _ask("List two landmarks and their cities as JSON."),
                 LANDMARKS.format("Paris"), LANDMARKS.format("London"), '{"name": "Big Ben", "city": "Paris"}', (
        Said('{"name": "Big Ben", "city": "Paris"}', "Big Ben is in Paris.", False),
        Said('{"name": "Big Ben", "city": "London"}', "Big Ben is in London.", True),
        Said('{"name": "Colosseum", "city": "Rome"}', "The Colosseum is in Rome.", True)),
        shape="a JSON array of objects under a key"),
    Conversation("fuji-japanese", _ask("富士山の高さはどれくらいですか？"), FUJI.format("4,776"), FUJI.format("3,776"),
                 "富士山の高さは4,776メートルです。", (
        Said("富士山は日本で一番高い山です。", "Mount Fuji is the highest mountain in Japan.", True),
        Said("富士山の高さは4,776メートルです。", "Mount Fuji is 4,776 m tall.", False),
        Said("富士山の高さは3,776メートルです。", "Mount Fuji is 3,776 m tall.", True)),
        shape="Japanese, no spaces, claims in English"),
    Conversation("fuji-thai", _ask("ภูเขาไฟฟูจิสูงเท่าไร"), FUJI_THAI.format("4,776"), FUJI_THAI.format("3,776"),
                 "ภูเขาไฟฟูจิสูง 4,776 เมตร", (
        Said("ภูเขาไฟฟูจิเป็นภูเขาที่สูงที่สุดในญี่ปุ่น", "Mount Fuji is the highest mountain in Japan.", True),
        Said("ภูเขาไฟฟูจิสูง 4,776 เมตร", "Mount Fuji is 4,776 m tall.", False),
        Said("ภูเขาไฟฟูจิสูง 3,776 เมตร", "Mount Fuji is 3,776 m tall.", True)),
        shape="Thai, no sentence punctuation, claims in English"),
    Conversation("eiffel-french", _ask("Où se trouve la tour Eiffel ?"), "La tour Eiffel se trouve à Rome.",
                 "La tour Eiffel se trouve à Paris.", "La tour Eiffel se trouve à Rome.", (
        Said("La tour Eiffel se trouve à Rome.", "The Eiffel Tower is in Rome.", False),
        Said("La tour Eiffel se trouve à Paris.", "The Eiffel Tower is in Paris.", True)),
        shape="French, the claim's names held to the text's"),
    Conversation("titanic-following-year", _ask("When did the Titanic sink?"),
                 "The Titanic was launched in 1911. It sank two years later.",
                 "The Titanic was launched in 1911. It sank the following year.", "It sank two years later.", (
        Said("The Titanic was launched in 1911.", "The Titanic was launched in 1911.", True),
        Said("It sank two years later.", "The Titanic sank in 1913.", False),
        Said("It sank the following year.", "The Titanic sank in 1912.", True)),
        shape="a year the extractor resolved from a relative date"),
    Conversation("berlin-wall-and", [*_ask("When did the Soviet Union collapse?"),
                                     {"role": "assistant", "content": "In 1991."},
                                     {"role": "user", "content": "And the Berlin Wall?"}],
                 "In 1991.", "In 1989.", "In 1991.", (
        Said("In 1991.", "The Berlin Wall fell in 1991.", False, ("And the Berlin Wall?",)),
        Said("In 1989.", "The Berlin Wall fell in 1989.", True, ("And the Berlin Wall?",))),
        shape="a short answer whose claim puts the conversation's verb in other words"),
    Conversation("eiffel-wrapped", _ask("When was the Eiffel Tower completed?"),
                 "The Eiffel Tower was completed in\n1899.", "The Eiffel Tower was completed in\n1889.", "1899.", (
        Said("completed in\n1899.", "The Eiffel Tower was completed in 1899.", False),
        Said("completed in\n1889.", "The Eiffel Tower was completed in 1889.", True)),
        shape="a sentence wrapped across a line break"),
]


DENSE = ("The Eiffel Tower opened in 1889 in Paris on the Champ de Mars for the World's Fair and was the tallest "
         "structure in the world until 1950.")
# A sentence that states more than it was counted to (five facts in two parts): the extractor writes a claim a
# fact, the false one last, and its call's room (four) cuts it off.
CROWDED = Conversation("eiffel-dense", _ask("Tell me about the Eiffel Tower."), DENSE, DENSE, DENSE, (
    Said("opened in 1889", "The Eiffel Tower opened in 1889.", True),
    Said("in Paris", "The Eiffel Tower is in Paris.", True),
    Said("on the Champ de Mars", "The Eiffel Tower stands on the Champ de Mars.", True),
    Said("for the World's Fair", "The Eiffel Tower was built for the World's Fair.", True),
    Said("until 1950.", "The Eiffel Tower was the tallest structure in the world until 1950.", False)),
    shape="more facts than the room")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with open_world(tmp_path_factory.mktemp("limits"), checker=WorldChecker([*LIMITS, CROWDED]),
                    upstream_timeout_s=30.0) as opened:
        yield opened


CASES = [pytest.param(convo, twin, id=f"{convo.name}-{twin}") for convo in LIMITS for twin in ("false", "true")]


@pytest.mark.parametrize(("convo", "twin"), CASES)
def test_every_door_refutes_the_false_statement_and_passes_its_twin(world: World, mcp: McpDoor,
                                                                    convo: Conversation, twin: str) -> None:
    outcomes = every_door(world, mcp, convo, twin, "flag")
    problems = [problem for out in outcomes for problem in judge(convo, twin, out)]
    assert not problems, "\n".join(problems)
    if twin == "false":  # refuted, not only unchecked: the claim was taken and checked
        for out in outcomes:
            assert out.result is not None and out.result["label"] == "REFUTES", (out.door, out.result)


@pytest.mark.parametrize("policy", ["block", "hold"])
@pytest.mark.parametrize("convo", LIMITS, ids=lambda c: c.name)
def test_block_refuses_and_hold_withholds_the_false_statement(world: World, mcp: McpDoor,
                                                              convo: Conversation, policy: str) -> None:
    outcomes = every_door(world, mcp, convo, "false", policy)
    problems = [problem for out in outcomes for problem in judge(convo, "false", out)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("policy", ["annotate", "rewrite"])
@pytest.mark.parametrize(("convo", "twin"), CASES)
def test_annotate_marks_and_rewrite_replaces_the_false_statement(world: World, mcp: McpDoor, convo: Conversation,
                                                                 twin: str, policy: str) -> None:
    """Under ``annotate`` the reply goes out as written with its verdicts beside it (the false statement's claim
    refuted); under ``rewrite`` the model asked to revise writes the true twin, which is checked again and is
    what every door delivers. The true twin passes either way, as written."""
    outcomes = every_door(world, mcp, convo, twin, policy)
    problems = [problem for out in outcomes for problem in judge(convo, twin, out)]
    assert not problems, "\n".join(problems)
    for out in outcomes:
        assert out.result is not None, (out.door, out.problem)
        if twin == "true":
            continue
        assert out.result["label"] == "REFUTES", (out.door, out.result)
        if policy == "annotate":
            assert out.result["action_taken"] == "annotated" and out.delivered == convo.false, (out.door, out.delivered)
        else:
            assert out.result["action_taken"] == "rewritten", (out.door, out.result.get("action_reason"))
            assert out.delivered == convo.true, (out.door, out.delivered)


def test_hold_withholds_the_false_thai_sentence_alone(world: World, mcp: McpDoor) -> None:
    """A Thai reply's sentences end at the space between them (it writes no stops): under ``hold`` every door
    withholds the false one and shows the true one before it, as a reply with stops."""
    convo = next(c for c in LIMITS if c.name == "fuji-thai")
    kept = convo.false.split(" ")[0]
    for out in every_door(world, mcp, convo, "false", "hold"):
        shown = (out.delivered or "").split(FOOTNOTES)[0]
        assert kept in shown and convo.wrong not in shown, (out.door, out.delivered)


LANDMARK_SCHEMA = {"type": "json_schema", "json_schema": {"name": "landmark", "schema": {
    "type": "object", "properties": {"landmark": {"type": "string"}, "city": {"type": "string"},
                                     "completed": {"type": "integer"}}}}}


@pytest.mark.parametrize("response_format", [{"type": "json_object"}, LANDMARK_SCHEMA], ids=["object", "schema"])
def test_a_json_object_answer_asked_for_with_response_format_is_checked(world: World,
                                                                        response_format: dict[str, Any]) -> None:
    """A chat request that asks for ``response_format`` (``json_object`` or ``json_schema``) gets a
    pretty-printed object back: under ``block`` the client receives no "Paris" for Big Ben; its true twin comes
    back as written."""
    convo = next(c for c in LIMITS if c.name == "big-ben-json-pretty")
    for twin, reply in (("false", convo.false), ("true", convo.true)):
        case = scenario(convo, twin, "block")
        prepare(world, case)
        body = {"model": "scripted", "messages": conversation(case), "factdebate": options_of(case),
                "response_format": response_format}
        answer = HTTP.post(f"{world.guard_url}/v1/chat/completions", json=body, headers=AUTH)
        assert answer.status_code == 200, answer.text
        content = answer.json()["choices"][0]["message"].get("content") or ""
        if twin == "false":
            assert '"Paris"' not in content, content
        else:
            assert content == reply


@pytest.mark.parametrize("policy", ["flag", "block", "hold"])
def test_what_the_room_cut_off_is_unchecked_never_passed(world: World, mcp: McpDoor, policy: str) -> None:
    """The claims kept do not cover the sentence: it is unchecked, said why, on every door, and no door but
    MCP's (which hands the agent its own reply back, annotated) delivers it as if it had been checked."""
    for out in every_door(world, mcp, CROWDED, "false", policy):
        assert out.result is not None, out.problem
        assert out.result["label"] != "SUPPORTS", (out.door, out.result)
        reasons = [c.get("reason") or "" for c in out.result["claims"] if c["status"] == "unchecked"]
        assert any("as many claims as one call allows" in why for why in reasons), (out.door, out.result["claims"])
        assert out.door == "mcp" or out.delivered != DENSE, (out.door, out.delivered)


@pytest.mark.parametrize("twin", ["false", "true"])
@pytest.mark.parametrize("convo", LIMITS, ids=lambda c: c.name)
def test_a_stream_cut_one_character_at_a_time_reads_as_the_whole_reply(world: World, convo: Conversation,
                                                                       twin: str) -> None:
    """``factdebate.aguard_stream`` under ``hold``, the reply one character a delta (a full-width stop, a
    table's bar, a JSON brace and a line break each arriving alone): the false statement is never shown, and
    the true twin is shown as written, every claim supported."""
    case = scenario(convo, twin, "hold")

    async def deltas() -> AsyncIterator[str]:
        for character in case.reply:
            yield character

    async def run() -> tuple[str, Any]:
        shown, result = "", None
        async for out in fd.aguard_stream(deltas(), messages=case.messages, backends={"debater": world.checker},
                                          config_file=world.config_file, **options_of(case)):
            shown += out.text if out.kind == "text" else ""
            if out.result is not None:
                result = out.result
        return shown, result

    shown, result = asyncio.run(run())
    assert result is not None
    if twin == "false":
        assert result.label != "SUPPORTS" and convo.wrong not in shown.split(FOOTNOTES)[0], (shown, result)
    else:
        assert result.label == "SUPPORTS" and shown == convo.true, (shown, result)
