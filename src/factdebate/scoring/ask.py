"""Ask a scorer model, parse the answer, and re-ask once with the problem if it cannot be parsed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from factdebate.llm.base import GenParams, Message
from factdebate.llm.model import LLM
from factdebate.prompts import Prompt, render

T = TypeVar("T")


async def ask_parsed(llm: LLM, prompt: Prompt, parse: Callable[[str], T | None], problem: str, *,
                     agent: str, round: int, max_tokens: int,
                     reask_grammar: str | None = None) -> tuple[T | None, str]:
    """Returns the parsed value (``None`` after one failed re-ask) and the last raw reply. The re-ask can
    be constrained by a grammar on backends that support one."""
    params = GenParams(temperature=0.0, max_tokens=max_tokens)
    messages: list[Message] = [{"role": "user", "content": prompt.text}]
    reply = await llm.complete(messages, params, agent=agent, round=round, prompt=prompt.name)
    value = parse(reply.text)
    if value is not None:
        return value, reply.text
    reask = render("reask_format", problem=problem)
    messages = [*messages, {"role": "assistant", "content": reply.text},
                {"role": "user", "content": reask.text}]
    reask_params = GenParams(temperature=0.0, max_tokens=max_tokens, grammar=reask_grammar)
    reply = await llm.complete(messages, reask_params, agent=agent, round=round, prompt=prompt.name + ":reask")
    return parse(reply.text), reply.text


def numbered_lines_grammar(count: int, item: str = '[^\\n]+') -> str:
    """GBNF for exactly ``count`` lines "1. <item>" ... (used to constrain re-asks on llama.cpp)."""
    lines = " \"\\n\" ".join(f'"{i}. " item' for i in range(1, count + 1))
    return f"root ::= {lines}\nitem ::= {item}\n"


def verdict_lines_grammar(count: int) -> str:
    """GBNF for exactly ``count`` lines "1: yes" / "1: no"."""
    lines = " \"\\n\" ".join(f'"{i}: " yn' for i in range(1, count + 1))
    return f'root ::= {lines}\nyn ::= "yes" | "no"\n'
