"""Test doubles for MERMAID: an in-process toolset (for the protocol paths; the MCP paths use real
servers) and a scripted model whose decomposer and executor replies are given per call."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.mermaid.method import MermaidSettings, toolbox_key
from factdebate.methods.mermaid.toolbox import Toolbox
from factdebate.methods.resources import Resources, RunScope
from factdebate.tools.toolset import ToolResult, ToolSchema
from tests.helpers import resources_for

SEARCH_SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}, "k": {"type": "integer"},
                                                  "search_before": {"type": "string"}},
                 "required": ["query"]}


class FactToolset:
    """``search_facts(query)``: the facts whose key occurs in the query; ``explode`` always fails."""

    def __init__(self, facts: dict[str, str], name: str = "facts") -> None:
        self.name = name
        self.facts = facts
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def list_tools(self) -> list[ToolSchema]:
        return [ToolSchema("search_facts", "Find short facts about a topic.", SEARCH_SCHEMA),
                ToolSchema("explode", "Always fails.", SEARCH_SCHEMA)]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        self.calls.append((name, arguments))
        if name == "explode":
            return ToolResult("the archive is closed", is_error=True)
        query = str(arguments.get("query", "")).lower()
        hits = [{"title": key.title(), "text": fact, "source": f"https://facts.example/{key}", "score": 1.0}
                for key, fact in self.facts.items() if key in query]
        return ToolResult(json.dumps({"results": hits, "notes": []}), data={"results": hits, "notes": []})


Replies = Callable[[CallInfo, str], str]


def script(replies: Replies) -> Callable[[CallInfo, list[Message], GenParams], str]:
    """The replier sees the call and the last user message."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        return replies(call, messages[-1]["content"])

    return respond


def decomposition(subject: str, obj: str, topic: str = "Geography") -> str:
    return json.dumps({"triplets": [{"subject": subject, "relation": "is", "object": obj, "attributes": ""}],
                       "topic": topic})


def action(tool: str, query: str, thought: str = "look it up") -> str:
    return json.dumps({"thought": thought, "action": {"name": tool, "reason": "need evidence",
                                                      "input": {"query": query}}})


def answer(value: str, thought: str = "the evidence settles it") -> str:
    return json.dumps({"thought": thought, "answer": value})


async def mermaid_resources(replies: Replies, toolset: Any, *, memory_path: Path | None = None,
                            run: RunScope | None = None, **mermaid: Any) -> tuple[Resources, Any]:
    section: dict[str, Any] = {"memory": "off", **mermaid}
    if memory_path is not None:
        section.update(memory=mermaid.get("memory", "on"), memory_path=str(memory_path), memory_semantic=False)
    resources, backend, _ = resources_for(script(replies), method="mermaid", tools={},
                                          methods={"mermaid": section}, run=run)
    cfg = resources.settings.methods["mermaid"]
    assert isinstance(cfg, MermaidSettings)
    await resources.services.get(toolbox_key(resources.settings, cfg), lambda: Toolbox([toolset]))
    return resources, backend
