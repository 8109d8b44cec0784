"""``single``: one plain question to the model, no reasoning asked for, no evidence (the floor every other
method should beat). Only when the reply names no verdict is the model re-asked once for the label alone."""

from __future__ import annotations

from factdebate.methods.base import Resources, register
from factdebate.methods.baseline_utils import finish
from factdebate.methods.common import labelled_answer
from factdebate.prompts import render
from factdebate.types import Round, Turn, Verdict


async def one_answer(method: str, template: str, claim: str, resources: Resources, max_tokens: int) -> Verdict:
    prompt = render(template, claim=claim)
    answer = await labelled_answer(resources.debater, prompt, agent=method, round=1, max_tokens=max_tokens,
                                   temperature=resources.settings.llm.temperature)
    turn = Turn(agent=method, tool="none", response=answer.response, label=answer.label,
                parse_retries=answer.retries, label_constrained=answer.constrained)
    return finish(claim, method, answer.label, "single", [Round(round=1, turns=[turn])])


@register("single", "One plain call: the model answers with a verdict from its own knowledge")
class Single:
    name = "single"

    async def run(self, claim: str, resources: Resources) -> Verdict:
        return await one_answer(self.name, "single", claim, resources, max_tokens=48)
