"""Every JSON schema a method holds a model to keeps its declared key order on every backend, and that
order has the model reason before it decides.

The schemas are collected by running each method on the scripted backend with every first reply
unreadable (so the re-asks and their schemas are asked too), plus MERMAID's decomposer, tool step and
forced answer; a new method's schemas are checked as soon as it registers. Each is then turned into the
llama.cpp grammar the in-process backend uses and sent to an OpenAI-compatible server in every mode."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.llama_cpp import _grammar_text
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.run.claim import run_claim
from tests.fake_openai import FakeOpenAI
from tests.helpers import CLAIM, resources_for
from tests.methods.mermaid.support import FactToolset, action, answer, decomposition, mermaid_resources
from tests.methods.test_call_bounds import probe_settings, probed, reask_everything

# What a model writes to think, and what it commits to; within one object the first come before the second.
REASONING = ("thought", "reasoning", "why", "reason")
DECISIONS = ("answer", "verdict", "vote", "confidence", "action", "factual", "preference")
# MAD's moderator keeps the baseline's own order (its paper's format): whether one side is preferred, why,
# then the answer. Its text form (``Preference: ...``) is what the llama.cpp grammar holds it to anyway.
OWN_ORDER = {("preference", "reason", "verdict")}
# Orders the papers fix, beyond reasoning first (MERMAID's action object; DPD's vote, then its confidence).
EXPECTED = {"mermaid_step": [("thought", "action"), ("name", "reason", "input")],
            "dpd_judge": [("why", "affirmative", "negative", "vote", "confidence")],
            "mermaid_decompose": [("triplets", "topic"), ("subject", "relation", "object", "attributes")]}


def objects(schema: Any) -> list[tuple[str, ...]]:
    """The declared property names of every object in ``schema``, nested ones included."""
    found: list[tuple[str, ...]] = []
    if isinstance(schema, dict):
        if isinstance(schema.get("properties"), dict) and schema["properties"]:
            found.append(tuple(schema["properties"]))
        for value in schema.values():
            found += objects(value)
    elif isinstance(schema, list):
        for value in schema:
            found += objects(value)
    return found


def grammar_objects(grammar: str) -> set[tuple[str, ...]]:
    """The property order of every object rule of a llama.cpp JSON grammar: a rule ``x-kv`` writes one
    key, and an object's rule names its ``-kv`` rules in the order the model must write them."""
    rules = dict(line.split(" ::= ", 1) for line in grammar.strip().splitlines())
    keys = {name: json.loads(json.loads(rhs.split(" ", 1)[0])) for name, rhs in rules.items() if name.endswith("-kv")}
    found = set()
    for rhs in rules.values():
        order = tuple(keys[ref] for ref in re.findall(r"[\w-]+-kv\b", rhs) if ref in keys)
        if order:
            found.add(order)
    return found


def recording(into: dict[str, list[dict[str, Any]]], respond: Any) -> Any:
    def respond_and_record(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if params.json_schema is not None and params.json_schema not in into.setdefault(call.prompt, []):
            into[call.prompt].append(params.json_schema)
        return str(respond(call, messages, params))

    return respond_and_record


def mermaid_replies(call: CallInfo, text: str) -> str:
    if call.prompt.startswith("mermaid_decompose"):
        return decomposition("Paris", "France")
    return action("search_facts", "capital of France") if call.round == 1 else answer("True")


async def method_schemas() -> dict[str, list[dict[str, Any]]]:
    """Prompt name -> the schemas its calls were held to, over every method."""
    schemas: dict[str, list[dict[str, Any]]] = {}
    for method in probed():
        resources, _, _ = resources_for(recording(schemas, reask_everything), method=method,
                                        methods=probe_settings(method))
        await run_claim(CLAIM, resources.settings, resources)
    resources, backend = await mermaid_resources(mermaid_replies, FactToolset({"capital": "Paris is the capital."}),
                                                 max_steps=1)  # the step, then the forced answer
    backend.responder = recording(schemas, backend.responder)
    async with resources:
        await run_claim(CLAIM, resources.settings, resources)
    return schemas


@pytest.fixture(scope="module")
def schemas() -> dict[str, list[dict[str, Any]]]:
    return asyncio.run(method_schemas())  # once for the module: every method runs


def every(schemas: dict[str, list[dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    return [(prompt, schema) for prompt, found in schemas.items() for schema in found]


def test_the_methods_schemas_were_all_collected(schemas: dict[str, list[dict[str, Any]]]) -> None:
    prompts = {prompt.removesuffix(":reask") for prompt in schemas}
    assert {"mermaid_decompose", "mermaid_step", "dpd_judge", "debate_answer", "factool_verify"} <= prompts, prompts


def test_each_schema_reasons_before_it_decides(schemas: dict[str, list[dict[str, Any]]]) -> None:
    for prompt, schema in every(schemas):
        for keys in objects(schema):
            if keys in OWN_ORDER:
                continue
            thinking = [keys.index(k) for k in REASONING if k in keys]
            deciding = [keys.index(k) for k in DECISIONS if k in keys]
            assert not thinking or not deciding or max(thinking) < min(deciding), (prompt, keys)
    for prompt, orders in EXPECTED.items():
        declared = {keys for schema in schemas[prompt] for keys in objects(schema)}
        assert set(orders) <= declared, (prompt, declared)


def test_the_llama_cpp_grammar_writes_keys_in_the_declared_order(
        schemas: dict[str, list[dict[str, Any]]]) -> None:
    for prompt, schema in every(schemas):
        grammar = _grammar_text(GenParams(json_schema=schema))
        assert grammar is not None
        assert grammar_objects(grammar) == set(objects(schema)), prompt


async def test_openai_compatible_servers_receive_the_declared_order_in_every_mode(
        schemas: dict[str, list[dict[str, Any]]]) -> None:
    sent = {"json_schema": lambda body: body["response_format"]["json_schema"]["schema"],
            "grammar": lambda body: body["response_format"]["schema"],  # llama.cpp servers' json_object
            "guided": lambda body: body["guided_json"]}  # vLLM
    user: list[Message] = [{"role": "user", "content": "Claim: Paris is in France."}]
    with FakeOpenAI(reply="{}") as server:
        for mode, read in sent.items():
            backend = OpenAIBackend("m", base_url=server.base_url, constrain=mode)
            for prompt, schema in every(schemas):
                await backend.complete(user, GenParams(json_schema=schema))
                assert objects(read(server.requests[-1]["body"])) == objects(schema), (mode, prompt)
