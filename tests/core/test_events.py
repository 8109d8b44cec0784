"""Typed trace events: every method streams the same generic events (turns, answers, rounds, judgements,
verdict) with spans, every event parses back into its model, and the terminal view draws any method."""

from __future__ import annotations

import io
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError
from rich.console import Console

from factdebate.cli.render import LiveDebate
from factdebate.core.events import Answer, event_json_schema, parse_event
from factdebate.core.runtime import EventSink, RunRecorder, emit, recording, span
from factdebate.methods.base import Method
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for
from tests.methods.test_call_bounds import probed, reask_everything


class Listener:
    """A sink that names the events it reads (``span_begin:<kind>`` for one kind of span), as the guard's do:
    a recorder whose every sink names its events builds no other."""

    def __init__(self, events: tuple[str, ...], take: EventSink) -> None:
        self.events, self.take = frozenset(events), take

    def __call__(self, record: dict[str, Any]) -> None:
        self.take(record)


async def _trace(method: str, script: Any = truthful) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    resources, _, _ = resources_for(script, method=method, methods={"vote": {"samples": 3}})
    await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    return events


@pytest.mark.parametrize("method", probed())
async def test_every_method_streams_the_generic_events(method: str) -> None:
    events = await _trace(method, reask_everything)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert {"turn_started", "answer", "round", "verdict"} <= set(kinds)
    asks_a_model = Method.named(method).call_bounds(resources_for(truthful, method=method)[0].settings)[1] > 0
    assert ("llm_call" in kinds) == asks_a_model
    schema = jsonschema.Draft202012Validator(event_json_schema())
    for event in events:
        parse_event(event)  # each line of a trace is one of the typed events
        schema.validate(event)  # and what `factdebate schema --events` prints describes it
    assert all("span_id" in e and "parent_id" in e for e in events)


async def test_turns_nest_in_their_round_and_searches_in_their_tool_call() -> None:
    events = await _trace("tool-mad")
    rounds = {e["span_id"]: e for e in events if e["event"] == "span_begin" and e["kind"] == "round"}
    answers = [e for e in events if e["event"] == "answer"]
    assert answers and all(e["span_id"] in rounds for e in answers)
    tools = {e["span_id"] for e in events if e["event"] == "span_begin" and e["kind"] == "tool"}
    calls = [e for e in events if e["event"] == "tool_call"]
    assert calls and all(e["span_id"] in tools and e["parent_id"] in rounds for e in calls)


async def test_judgements_and_steps_are_events_of_their_own() -> None:
    mad = await _trace("mad", reask_everything)
    assert [e["role"] for e in mad if e["event"] == "judgement"] == ["moderator"] * 3 + ["judge"]
    react = await _trace("react", reask_everything)
    steps = [e for e in react if e["event"] == "step"]
    assert len(steps) == 5 and steps[0]["tool"] == "rag" and steps[0]["arguments"] == {"query": "capital"}


def test_events_are_validated_when_emitted() -> None:
    seen: list[dict[str, Any]] = []
    with recording(RunRecorder([seen.append], run_id="r")), span("team A", "team") as team:
        emit(Answer(agent="a", round=1, team="A"))
        emit("parse_failure", what="label", agent="a")
        with pytest.raises(ValidationError):
            emit("answr", agent="a")
    assert [e["event"] for e in seen] == ["span_begin", "answer", "parse_failure", "span_end"]
    assert seen[1]["span_id"] == team and seen[1]["run"] == "r" and seen[1]["team"] == "A"


@pytest.mark.parametrize("method", probed())
async def test_the_terminal_draws_any_method_live(method: str) -> None:
    out = io.StringIO()
    live = LiveDebate(Console(file=out, width=120), CLAIM)
    resources, _, _ = resources_for(reask_everything, method=method, methods={"vote": {"samples": 3}})
    await run_claim(CLAIM, resources.settings, resources, sinks=[live])
    text = out.getvalue()
    assert live.printed > 0 and "Round 1" in text and CLAIM in text
    if method in ("mad", "madke", "tool-mad"):
        assert "(judge)" in text


async def test_a_run_builds_only_the_events_its_listeners_read() -> None:
    """Sinks that name their events (the guard's: tool calls, kept model calls, a claim's span) get those and
    the run builds no other; the events they get are the ones an all-events sink gets for the same run."""
    everything: list[dict[str, Any]] = []
    named: list[dict[str, Any]] = []
    listener = Listener(("llm_call", "tool_call", "span_begin:round"), named.append)
    resources, _, _ = resources_for(truthful, method="tool-mad")
    await run_claim(CLAIM, resources.settings, resources, sinks=[listener])
    await run_claim(CLAIM, resources.settings, resources, sinks=[everything.append])
    wanted = [e for e in everything if e["event"] in ("llm_call", "tool_call")
              or (e["event"] == "span_begin" and e["kind"] == "round")]
    assert {e["event"] for e in named} == {"llm_call", "tool_call", "span_begin"}
    assert [(e["event"], e.get("kind"), e.get("agent")) for e in named] == \
        [(e["event"], e.get("kind"), e.get("agent")) for e in wanted]
    assert all(e["kind"] == "round" for e in named if e["event"] == "span_begin")


def test_an_event_no_listener_reads_is_not_built() -> None:
    """Not validated either: a kind nobody reads costs nothing, as with no sink at all; a sink that names no
    events (a plain function) beside a listener makes the run build every event again."""
    named: list[dict[str, Any]] = []
    with recording(RunRecorder([Listener(("answer",), named.append)], run_id="r")):
        emit("answr", agent="a")  # an unknown kind: never parsed, so never refused
        emit(Answer(agent="a", round=1, team="A"))
    assert [e["event"] for e in named] == ["answer"]
    seen: list[dict[str, Any]] = []
    with recording(RunRecorder([Listener(("answer",), named.append), seen.append], run_id="r")), \
            pytest.raises(ValidationError):
        emit("answr", agent="a")
