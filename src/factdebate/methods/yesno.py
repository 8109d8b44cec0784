"""A yes/no question with one constrained re-ask, for the baselines that ask one (HaluEval's detector,
self-check's consistency questions). An answer that stays unreadable is ``None``, never a default."""

from __future__ import annotations

from dataclasses import dataclass

from factdebate.events import ParseProblem
from factdebate.llm.base import GenParams, Message
from factdebate.llm.model import LLM
from factdebate.parsing import parse_choice
from factdebate.prompts import Prompt, render
from factdebate.runtime import emit

YES_NO = ("Yes", "No")


@dataclass
class YesNo:
    answer: bool | None
    response: str
    retries: int


async def ask_yes_no(llm: LLM, prompt: Prompt, *, agent: str, round: int = 1, temperature: float = 0.0,
                     max_tokens: int = 256) -> YesNo:
    messages: list[Message] = [{"role": "user", "content": prompt.text}]
    reply = await llm.complete(messages, GenParams(temperature=temperature, max_tokens=max_tokens),
                               agent=agent, round=round, prompt=prompt.name)
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
