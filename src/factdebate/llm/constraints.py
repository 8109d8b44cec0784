"""Output constraints spelled the ways backends understand them: GBNF grammars, JSON schemas and vLLM's
guided decoding. A request states its constraint once in :class:`~factdebate.llm.base.GenParams`; what a
backend cannot enforce is sent unconstrained and reported so (``constrained=False``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from factdebate.llm.base import GenParams, ToolSchema
from factdebate.llm.json_reply import loads

# How an OpenAI-compatible server is asked to constrain: ``grammar`` (llama.cpp servers), ``guided`` (vLLM),
# ``json_schema`` (``response_format``: OpenAI, Ollama and most others), ``none``; ``auto`` asks the server.
CONSTRAIN_MODES: tuple[str, ...] = ("auto", "grammar", "guided", "json_schema", "none")
# What to try next when a server rejects a constrained request.
FALLBACK: dict[str, str] = {"grammar": "json_schema", "guided": "json_schema", "json_schema": "none"}


def choice_grammar(choices: tuple[str, ...]) -> str:
    alternatives = " | ".join(json.dumps(c) for c in choices)  # JSON string escapes are valid GBNF literals
    return f"root ::= {alternatives}\n"


def choice_schema(choices: tuple[str, ...]) -> dict[str, Any]:
    """Strict-mode schemas need an object at the root, so a bare choice is wrapped as ``{"answer": ...}``."""
    return {"type": "object", "properties": {"answer": {"type": "string", "enum": list(choices)}},
            "required": ["answer"], "additionalProperties": False}


def tool_call_schema(tools: tuple[ToolSchema, ...]) -> dict[str, Any]:
    """One JSON object naming a tool and its arguments, for a backend without native tool calling."""
    return {"anyOf": [{"type": "object",
                       "properties": {"name": {"const": t.name}, "arguments": t.parameters},
                       "required": ["name", "arguments"]} for t in tools]}


def render_json(text: str, template: str) -> str | None:
    """The JSON object ``text`` put into ``template``; ``None`` if it is not such an object."""
    try:
        data = loads(text)
        return template.format_map({k: str(v).strip() for k, v in data.items()})
    except (ValueError, AttributeError, KeyError, IndexError):
        return None


@dataclass
class Request:
    """The constraint part of one chat-completions request."""

    kwargs: dict[str, Any] = field(default_factory=dict)  # top-level SDK arguments (response_format)
    extra_body: dict[str, Any] = field(default_factory=dict)  # server-specific fields
    template: str | None = None  # JSON answer → text
    choices: tuple[str, ...] | None = None  # checked on the answer

    @property
    def constrained(self) -> bool:
        return bool(self.kwargs or self.extra_body)


# Bounds on a string keep a free-text field from eating the token budget where a grammar enforces them; strict
# structured outputs (OpenAI's) refuse lengths and differ on patterns, so there the token cap alone bounds it.
_LENGTH_KEYS = ("minLength", "maxLength", "pattern")


def without_lengths(schema: Any) -> Any:
    """``schema`` without ``minLength``/``maxLength``/``pattern`` on any string in it."""
    if isinstance(schema, dict):
        string = schema.get("type") == "string"
        return {k: without_lengths(v) for k, v in schema.items() if not (string and k in _LENGTH_KEYS)}
    if isinstance(schema, list):
        return [without_lengths(v) for v in schema]
    return schema


def _response_format(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": without_lengths(schema),
                                                   "strict": True}}


def openai_request(params: GenParams, mode: str) -> Request:
    """The fields that ask an OpenAI-compatible server in ``mode`` for ``params``'s constraint."""
    req = Request(choices=params.choices)
    if mode == "none" or not params.has_constraint:
        return req
    if params.choices:
        if mode == "grammar":
            req.extra_body["grammar"] = choice_grammar(params.choices)
        elif mode == "guided":
            req.extra_body["guided_choice"] = list(params.choices)
        else:
            req.kwargs["response_format"] = _response_format(choice_schema(params.choices))
            req.template = "{answer}"
    elif params.grammar:
        if mode == "grammar":
            req.extra_body["grammar"] = params.grammar
        elif mode == "guided":
            req.extra_body["guided_grammar"] = params.grammar
        elif params.json_schema is not None and params.json_template:
            req.kwargs["response_format"] = _response_format(params.json_schema)
            req.template = params.json_template
    elif params.json_schema is not None:
        if mode == "grammar":  # both llama.cpp servers turn a json_object schema into a grammar
            req.kwargs["response_format"] = {"type": "json_object", "schema": params.json_schema}
        elif mode == "guided":
            req.extra_body["guided_json"] = params.json_schema
        else:
            req.kwargs["response_format"] = _response_format(params.json_schema)
    return req


def mode_from_owner(owned_by: str) -> str:
    """``/v1/models``' ``owned_by`` to a mode: guided (``vllm``), grammar (``llamacpp``, ``me``), else json_schema."""
    owner = owned_by.strip().lower()
    if owner == "vllm":
        return "guided"
    if owner in ("llamacpp", "llama.cpp", "me"):
        return "grammar"
    return "json_schema"
