"""``llm.ask.ask``, the one ask-parse-re-ask helper: a readable reply costs one call and records nothing;
an unreadable one is re-asked once in the same conversation, and the problem is recorded as one
``ParseProblem`` (returned and traced), recovered or not; a value is never filled in."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from factdebate.core.events import ParseProblem
from factdebate.core.runtime import RunRecorder, recording
from factdebate.llm.ask import REASK_TEMPERATURE, Parsed, Reask, Unreadable, ask, clip, format_reask
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.model import LLM
from factdebate.llm.scripted import ScriptedBackend
from factdebate.prompts import Prompt

PROMPT = Prompt("question", "How many moons has Mars? Answer 'Moons: <n>'.")
PARAMS = GenParams(temperature=0.0, max_tokens=20)
Seen = list[tuple[CallInfo, list[Message], GenParams]]


def moons(text: str) -> int | None:
    head, _, number = text.partition("Moons: ")
    return int(number) if not head and number.isdigit() else None


def moons_or_why(text: str) -> int:
    if not text.startswith("Moons: "):
        raise Unreadable("the reply must start with 'Moons: '")
    return int(text.removeprefix("Moons: "))


async def asked(replies: list[str], parse: Any = moons, **options: Any) -> tuple[Parsed[int], Seen, list[dict]]:
    seen: Seen = []

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        seen.append((call, messages, params))
        return replies[len(seen) - 1]

    llm = LLM(ScriptedBackend(respond), "scorer")
    events: list[dict[str, Any]] = []
    with recording(RunRecorder([events.append])):
        parsed = await ask(llm, PROMPT, parse, what="moons", params=PARAMS, agent="a", round=2, **options)
    return parsed, seen, events


async def test_a_readable_reply_costs_one_call_and_records_nothing() -> None:
    parsed, seen, events = await asked(["Moons: 2"])
    assert (parsed.value, parsed.raw, parsed.first, parsed.problem, parsed.retries) == (2, "Moons: 2", "Moons: 2",
                                                                                         None, 0)
    assert len(seen) == 1 and not [e for e in events if e["event"].startswith("parse_")]


async def test_an_unreadable_reply_is_reasked_in_the_same_conversation_and_recorded_as_recovered() -> None:
    parsed, seen, events = await asked(["Two, I think.", "Moons: 2"], problem="no 'Moons:' line")
    assert parsed.value == 2 and parsed.raw == "Moons: 2" and parsed.first == "Two, I think."
    (call, messages, params) = seen[1]
    assert call.prompt == "question:reask" and (call.agent, call.round) == ("a", 2)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == "Two, I think." and "no 'Moons:' line" in messages[2]["content"]
    # No re-ask format given: the first ask's parameters, sampled warmer so that it can answer otherwise.
    assert params == replace(PARAMS, temperature=REASK_TEMPERATURE)
    [event] = [e for e in events if e["event"].startswith("parse_")]
    assert parsed.problem is not None and parsed.problem.recovered and parsed.retries == 1
    assert event == {**parsed.problem.model_dump(mode="json"), "t": event["t"], "run": event["run"]}
    assert (event["event"], event["what"], event["prompt"], event["problem"], event["reply"],
            event["reask_reply"]) == ("parse_recovered", "moons", "question", "no 'Moons:' line", "Two, I think.",
                                      "Moons: 2")


async def test_a_reply_that_stays_unreadable_is_none_and_a_parse_failure_never_a_default() -> None:
    parsed, seen, events = await asked(["Two.", "Two!"])
    assert parsed.value is None and parsed.raw == "Two!" and len(seen) == 2
    assert isinstance(parsed.problem, ParseProblem) and not parsed.problem.recovered
    assert [e["event"] for e in events if e["event"].startswith("parse_")] == ["parse_failure"]


async def test_the_parser_names_the_problem_that_the_reask_quotes() -> None:
    parsed, seen, _ = await asked(["2 moons", "Moons: 2"], parse=moons_or_why)
    assert parsed.value == 2
    assert "the reply must start with 'Moons: '" in seen[1][1][2]["content"]
    assert parsed.problem is not None and parsed.problem.problem == "the reply must start with 'Moons: '"


async def test_a_call_site_keeps_its_own_reask_template_name_and_constraint() -> None:
    held = GenParams(temperature=0.0, max_tokens=4, choices=("Yes", "No"))
    reask = Reask(template="yes_no_reask", params=held, name="moons_reask")
    parsed, seen, _ = await asked(["maybe", "Moons: 1"], reask=reask)
    assert parsed.value == 1 and seen[1][0].prompt == "moons_reask" and seen[1][2] == held
    assert seen[1][1][2]["content"] != seen[0][1][0]["content"]


def test_the_format_reask_is_held_to_a_grammar_or_its_json_twin() -> None:
    params = format_reask(30, 'root ::= "Moons: " [0-9]+', ({"type": "object"}, "Moons: {n}")).params
    assert params is not None and params.grammar and params.json_schema == {"type": "object"}
    assert params.json_template == "Moons: {n}" and params.max_tokens == 30
    plain = format_reask(30).params
    assert plain is not None and not plain.has_constraint


def test_a_long_reply_keeps_its_start_and_its_end() -> None:
    text = "{" + "x" * 1000 + "} Verdict: SUPPORTS"
    clipped = clip(text)
    assert clipped.startswith("{xxx") and clipped.endswith("Verdict: SUPPORTS") and len(clipped) < 420
    assert clip("short") == "short"
