"""A yes/no question with one constrained re-ask, for the baselines that ask one (HaluEval's detector,
self-check's consistency questions). An answer that stays unreadable is ``None``, never a default."""

from __future__ import annotations

from dataclasses import dataclass

from factdebate.core.parsing import parse_choice
from factdebate.llm.ask import Reask, ask
from factdebate.llm.base import GenParams
from factdebate.llm.model import LLM
from factdebate.methods.kit.formats import sentences_rule
from factdebate.prompts import Prompt

YES_NO = ("Yes", "No")
REASK = Reask(template="yes_no_reask", params=GenParams(temperature=0.0, max_tokens=4, choices=YES_NO))


def held_params(line: str, temperature: float, max_tokens: int) -> GenParams:
    """Reasoning on one line, then ``<line>: Yes|No``, held by a grammar or schema, so the first answer
    carries a readable Yes/No."""
    grammar = (f'root ::= reason "\\n{line}: " ("Yes" | "No")\n' +
               sentences_rule(3, max_tokens, len(f"\n{line}: Yes")))
    schema = {"type": "object", "additionalProperties": False, "required": ["reasoning", "answer"],
              "properties": {"reasoning": {"type": "string"}, "answer": {"type": "string", "enum": list(YES_NO)}}}
    return GenParams(temperature=temperature, max_tokens=max_tokens, grammar=grammar, json_schema=schema,
                     json_template=f"{{reasoning}}\n{line}: {{answer}}")


@dataclass
class YesNo:
    answer: bool | None
    response: str
    retries: int


async def ask_yes_no(llm: LLM, prompt: Prompt, *, agent: str, round: int = 1, temperature: float = 0.0,
                     max_tokens: int = 256, line: str | None = None) -> YesNo:
    """A Yes or No: reasoning then ``<line>: Yes|No`` with ``line``, else bare; held to that form where it can."""
    if not llm.one_call_verdict:
        params = GenParams(temperature=temperature, max_tokens=max_tokens)
    elif line:
        params = held_params(line, temperature, max_tokens)
    else:
        params = GenParams(temperature=temperature, max_tokens=4, choices=YES_NO)
    asked = await ask(llm, prompt, lambda text: parse_choice(text, list(YES_NO)), what="yes_no", params=params,
                      reask=REASK, agent=agent, round=round)
    return YesNo(None if asked.value is None else asked.value == "Yes", asked.first, asked.retries)
