"""``halueval-fewshot``: HaluEval's few-shot prompting baseline (Li et al., 2023), the DPD paper's "HaluEval"
row: one call, three worked examples, then "does it contain a hallucination?" (Yes -> REFUTES)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdebate.core.runtime import span
from factdebate.core.types import Label, Round, Turn, Verdict
from factdebate.methods.base import CallProbe, Method, MethodSettings, register
from factdebate.methods.baselines import paper_rows
from factdebate.methods.baselines.scripted import HALUEVAL_REPLIES
from factdebate.methods.kit.turns import answered, end_round, finish, turn_started
from factdebate.methods.kit.yesno import ask_yes_no
from factdebate.methods.resources import Resources
from factdebate.prompts import render

if TYPE_CHECKING:
    from factdebate.core.deviations import Deviation
    from factdebate.methods.settings_protocol import RunSettings

AGENT = "detector"


def label_of(hallucinated: bool | None) -> Label | None:
    return None if hallucinated is None else (Label.REFUTES if hallucinated else Label.SUPPORTS)


@register
class HaluEvalFewShot(Method[MethodSettings]):
    name = "halueval-fewshot"
    description = "HaluEval's few-shot prompting baseline: three examples, then 'does it hallucinate? yes/no'"
    call_probe = CallProbe(reasks={"halueval_fewshot": "Yes"})
    scripted_replies = HALUEVAL_REPLIES

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        return 1, 2

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        return paper_rows.halueval_fewshot(settings)

    async def run(self, claim: str, resources: Resources) -> Verdict:
        turn = Turn(agent=AGENT, role="detector")
        with span("round 1", "round", round=1):
            turn_started(turn, 1)
            answer = await ask_yes_no(resources.debater, render("halueval_fewshot", claim=claim), agent=AGENT,
                                      temperature=resources.settings.llm.temperature, line="Hallucination")
            turn.response, turn.label, turn.parse_retries = answer.response, label_of(answer.answer), answer.retries
            answered(turn, 1)
        rnd = Round(round=1, turns=[turn])
        end_round(rnd, consensus=False, final=True)
        return finish(claim, self.name, turn.label, "single", [rnd])
