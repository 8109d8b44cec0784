"""A yes/no question with one constrained re-ask, for the baselines that ask one (HaluEval's detector,
self-check's consistency questions). An answer that stays unreadable is ``None``, never a default."""

from __future__ import annotations

from dataclasses import dataclass

from factdebate.core.events import ParseProblem
from factdebate.core.parsing import parse_choice
from factdebate.core.runtime import emit
from factdebate.llm.base import GenParams, Message
from factdebate.llm.model import LLM
from factdebate.prompts import Prompt, render

YES_NO = ("Yes", "No")


def held_params(line: str, temperature: float, max_tokens: int) -> GenParams:
    """Reasoning (one to three sentences on one line), then ``<line>: Yes|No``, in one generation held by
    a grammar (or the equivalent JSON object on servers that take schemas), as ``verdict_params`` does for
    labels: the first answer then always carries a readable Yes/No."""
    grammar = (f'root ::= reason "\\n{line}: " ("Yes" | "No")\n'
               'reason ::= sentence sentence? sentence?\n'
               'sentence ::= [^\\n.!?]+ [.!?]+\n')
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
    """``line``: the answer is reasoning then ``<line>: Yes|No``, held to that form where the backend can
    (``llm.one_call_verdict``); without it the question wants a bare Yes or No, held to the two words."""
    messages: list[Message] = [{"role": "user", "content": prompt.text}]
    if not llm.one_call_verdict:
        params = GenParams(temperature=temperature, max_tokens=max_tokens)
    elif line:
        params = held_params(line, temperature, max_tokens)
    else:
        params = GenParams(temperature=temperature, max_tokens=4, choices=YES_NO)
    reply = await llm.complete(messages, params, agent=agent, round=round, prompt=prompt.name)
    choice = parse_choice(reply.text, list(YES_NO))
    if choice is not None:
        return YesNo(choice == "Yes", reply.text, 0)
    reask = render("yes_no_reask")
    messages = [*messages, {"role": "assistant", "content": reply.text}, {"role": "user", "content": reask.text}]
    again = await llm.complete(messages, GenParams(temperature=0.0, max_tokens=4, choices=YES_NO),
                               agent=agent, round=round, prompt=f"{prompt.name}:reask")
    choice = parse_choice(again.text, list(YES_NO))
    emit(ParseProblem(event="parse_failure" if choice is None else "parse_recovered", what="yes_no", agent=agent,
                      round=round, reply=reply.text[-200:], reask_reply=again.text[:100],
                      constrained=again.constrained))
    return YesNo(None if choice is None else choice == "Yes", reply.text, 1)
