"""How constraints reach OpenAI-compatible servers (request shapes per server kind), how a rejected
constraint degrades, and how a JSON answer comes back as the text the parsers read. A real loopback HTTP
server stands in for the provider; tests/llm/test_llama_server.py runs the same path against llama.cpp."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from factdebate.core.parsing import parse_label
from factdebate.core.types import Label
from factdebate.llm.base import Completion, GenParams, Message, ToolSchema
from factdebate.llm.cache import ResponseCache
from factdebate.llm.constraints import choice_grammar, mode_from_owner, openai_request, render_json
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.methods.kit.common import LABEL_CHOICES
from factdebate.methods.kit.formats import VERDICT_GRAMMAR, verdict_params
from tests.fake_openai import FakeOpenAI

USER: list[Message] = [{"role": "user", "content": "Is Paris in France?"}]


def backend(server: FakeOpenAI, constrain: str) -> OpenAIBackend:
    return OpenAIBackend("m", base_url=server.base_url, constrain=constrain)


async def test_choices_become_a_strict_schema_and_the_json_answer_is_unwrapped() -> None:
    with FakeOpenAI(reply='{"answer": "REFUTES"}') as server:
        reply = await backend(server, "json_schema").complete(USER, GenParams(choices=LABEL_CHOICES))
    body = server.requests[0]["body"]
    schema = body["response_format"]["json_schema"]["schema"]
    assert body["response_format"]["type"] == "json_schema"
    assert schema["properties"]["answer"]["enum"] == list(LABEL_CHOICES)
    assert (reply.text, reply.constrained) == ("REFUTES", True)


async def test_llama_cpp_servers_get_a_grammar_and_vllm_guided_fields() -> None:
    with FakeOpenAI(reply="SUPPORTS") as server:
        await backend(server, "grammar").complete(USER, GenParams(choices=LABEL_CHOICES))
        await backend(server, "guided").complete(USER, GenParams(choices=LABEL_CHOICES))
        await backend(server, "guided").complete(USER, GenParams(grammar=VERDICT_GRAMMAR))
    grammar_body, guided_choice, guided_grammar = (r["body"] for r in server.requests)
    assert grammar_body["grammar"] == choice_grammar(LABEL_CHOICES) and "response_format" not in grammar_body
    assert guided_choice["guided_choice"] == list(LABEL_CHOICES)
    assert guided_grammar["guided_grammar"] == VERDICT_GRAMMAR


async def test_reasoning_and_verdict_come_back_as_text_from_a_schema_only_server() -> None:
    answer = json.dumps({"reasoning": "Paris is in France.", "verdict": "SUPPORTS"})
    with FakeOpenAI(reply=answer) as server:
        reply = await backend(server, "json_schema").complete(USER, verdict_params(0.0, 100))
    assert reply.text == "Paris is in France.\nVerdict: SUPPORTS"
    assert reply.constrained and parse_label(reply.text) is Label.SUPPORTS
    assert "grammar" not in server.requests[0]["body"]


async def test_a_rejected_constraint_degrades_once_and_is_recorded() -> None:
    with FakeOpenAI(failures=[(400, None)], reply="SUPPORTS",
                    error_message="response_format json_schema is not supported") as server:
        client = backend(server, "json_schema")
        first = await client.complete(USER, GenParams(choices=LABEL_CHOICES))
        await client.complete(USER, GenParams(choices=LABEL_CHOICES))
    bodies = [r["body"] for r in server.requests]
    assert "response_format" in bodies[0] and "response_format" not in bodies[1]
    assert "response_format" not in bodies[2]  # the lowered mode sticks
    assert client.constrain == "none" and len(client.constraint_notes) == 1
    assert (first.text, first.constrained) == ("SUPPORTS", False)


async def test_an_answer_that_ignores_the_schema_is_not_called_constrained() -> None:
    with FakeOpenAI(reply="I think SUPPORTS") as server:
        reply = await backend(server, "json_schema").complete(USER, GenParams(choices=LABEL_CHOICES))
    assert (reply.text, reply.constrained) == ("I think SUPPORTS", False)


async def test_auto_without_a_model_list_uses_the_standard_response_format() -> None:
    with FakeOpenAI(reply='{"answer": "REFUTES"}') as server:  # the fake has no GET /models
        client = backend(server, "auto")
        await client.complete(USER, GenParams(choices=LABEL_CHOICES))
    assert client.constrain == "json_schema"


async def test_tools_are_sent_as_functions() -> None:
    tool = ToolSchema("search", "Search the corpus.", {"type": "object", "properties": {"q": {"type": "string"}}})
    with FakeOpenAI(reply="ok") as server:
        reply = await backend(server, "none").complete(USER, GenParams(tools=(tool,)))
    assert server.requests[0]["body"]["tools"] == [{"type": "function", "function": tool.as_dict()}]
    assert reply.tool_calls == []


@pytest.mark.parametrize(("owner", "mode"), [("vllm", "guided"), ("llamacpp", "grammar"), ("me", "grammar"),
                                              ("openai", "json_schema"), ("library", "json_schema")])
def test_server_kind_from_owned_by(owner: str, mode: str) -> None:
    assert mode_from_owner(owner) == mode


def test_a_grammar_without_a_json_form_is_sent_unconstrained_to_schema_only_servers() -> None:
    request = openai_request(GenParams(grammar='root ::= "x"'), "json_schema")
    assert not request.constrained


def test_render_json_rejects_what_is_not_an_object_of_the_template() -> None:
    assert render_json('{"a": "x"}', "[{a}]") == "[x]"
    assert render_json("not json", "[{a}]") is None
    assert render_json('{"b": "x"}', "[{a}]") is None
    assert render_json('["x"]', "[{a}]") is None


def test_cache_keeps_the_constrained_flag_and_upgrades_old_files(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, text TEXT NOT NULL, prompt_tokens INTEGER,"
                " completion_tokens INTEGER)")
    old.execute("INSERT INTO responses VALUES ('old', 'SUPPORTS', 1, 1)")
    old.commit()
    old.close()
    cache = ResponseCache(path)
    cache.put("new", Completion(text="REFUTES", constrained=True, completion_tokens=70, reasoning_tokens=64))
    old_entry, new_entry = cache.get("old"), cache.get("new")
    assert old_entry is not None and old_entry.text == "SUPPORTS" and not old_entry.constrained
    assert old_entry.reasoning_tokens == 0
    assert new_entry is not None and new_entry.constrained and new_entry.reasoning_tokens == 64
    cache.close()


def test_params_key_is_unchanged_for_requests_without_the_new_fields() -> None:
    assert set(GenParams(choices=("a",)).key()) == {"temperature", "max_tokens", "choices", "grammar"}
