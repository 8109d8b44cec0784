"""``single``: one plain question to the model, no reasoning asked for, no evidence (the floor every other
method should beat). Only when the reply names no verdict is the model re-asked once for the label alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation
from factdebate.core.types import Round, Verdict
from factdebate.methods.base import CallProbe, Method, MethodSettings, register
from factdebate.methods.kit.backbones import TOOLMAD_ALONE
from factdebate.methods.kit.paper_setup import toolmad_backbone
from factdebate.methods.kit.turns import answer_turn, end_round, finish
from factdebate.methods.resources import Resources
from factdebate.prompts import render

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings


async def one_answer(method: str, template: str, claim: str, resources: Resources, max_tokens: int,
                     reasoning: bool = True) -> Verdict:
    turn = await answer_turn(resources.debater, render(template, claim=claim), agent=method, round=1,
                             max_tokens=max_tokens, temperature=resources.settings.llm.temperature,
                             reasoning=reasoning)
    rnd = Round(round=1, turns=[turn])
    end_round(rnd, consensus=False, final=True)
    return finish(claim, method, turn.label, "single", [rnd])


class OneAnswer(Method[MethodSettings]):
    """One labelled answer (a second call only to re-ask for an unreadable label)."""

    template = "single"
    max_tokens = 48
    reasoning = False  # the prompt asks for the verdict alone: the answer is held to the label alone
    call_probe = CallProbe()

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        return 1, 2

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        # The Tool-MAD paper's zero-shot CoT rows ran on its backbones.
        return toolmad_backbone(settings, ("debater",))

    async def run(self, claim: str, resources: Resources) -> Verdict:
        return await one_answer(self.name, self.template, claim, resources, max_tokens=self.max_tokens,
                                reasoning=self.reasoning)


@register
class Single(OneAnswer):
    name = "single"
    description = "One plain call: the model answers with a verdict from its own knowledge"

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        return toolmad_backbone(settings, ("debater",), TOOLMAD_ALONE)  # Table III's rows for the model alone
