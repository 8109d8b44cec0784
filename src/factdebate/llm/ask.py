"""Ask a scorer model, parse the answer, and re-ask once with the problem if it cannot be parsed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from factdebate.llm.base import GenParams, Message
from factdebate.llm.model import LLM
from factdebate.prompts import Prompt, render

T = TypeVar("T")


@dataclass(frozen=True)
class Parsed(Generic[T]):
    value: T | None  # None: not parseable even after the re-ask
    raw: str  # the last reply
    constrained: bool  # the last reply was held to the format by the backend


async def ask_parsed(llm: LLM, prompt: Prompt, parse: Callable[[str], T | None], problem: str, *,
                     agent: str, round: int, max_tokens: int, reask_grammar: str | None = None,
                     reask_json: tuple[dict[str, Any], str] | None = None) -> tuple[T | None, str]:
    """Returns the parsed value (``None`` after one failed re-ask) and the last raw reply."""
    parsed = await ask_parsed_full(llm, prompt, parse, problem, agent=agent, round=round, max_tokens=max_tokens,
                                   reask_grammar=reask_grammar, reask_json=reask_json)
    return parsed.value, parsed.raw


async def ask_parsed_full(llm: LLM, prompt: Prompt, parse: Callable[[str], T | None], problem: str, *,
                          agent: str, round: int, max_tokens: int, reask_grammar: str | None = None,
                          reask_json: tuple[dict[str, Any], str] | None = None) -> Parsed[T]:
    """Ask, parse, and re-ask once with the problem. The re-ask is held to ``reask_grammar`` on backends
    with grammars, or to ``reask_json`` (a schema and the template that turns it into the same text) on
    servers that take JSON schemas only."""
    params = GenParams(temperature=0.0, max_tokens=max_tokens)
    messages: list[Message] = [{"role": "user", "content": prompt.text}]
    reply = await llm.complete(messages, params, agent=agent, round=round, prompt=prompt.name)
    value = parse(reply.text)
    if value is not None:
        return Parsed(value, reply.text, reply.constrained)
    reask = render("reask_format", problem=problem)
    messages = [*messages, {"role": "assistant", "content": reply.text},
                {"role": "user", "content": reask.text}]
    schema, template = reask_json if reask_json and reask_grammar else (None, None)
    reask_params = GenParams(temperature=0.0, max_tokens=max_tokens, grammar=reask_grammar, json_schema=schema,
                             json_template=template)
    reply = await llm.complete(messages, reask_params, agent=agent, round=round, prompt=prompt.name + ":reask")
    return Parsed(parse(reply.text), reply.text, reply.constrained)


def numbered_lines_grammar(count: int, item: str = '[^\\n]+') -> str:
    """GBNF for exactly ``count`` lines "1. <item>" ... (used to constrain re-asks on llama.cpp)."""
    lines = " \"\\n\" ".join(f'"{i}. " item' for i in range(1, count + 1))
    return f"root ::= {lines}\nitem ::= {item}\n"


def verdict_lines_grammar(count: int) -> str:
    """GBNF for exactly ``count`` lines "1: yes" / "1: no"."""
    lines = " \"\\n\" ".join(f'"{i}: " yn' for i in range(1, count + 1))
    return f'root ::= {lines}\nyn ::= "yes" | "no"\n'
