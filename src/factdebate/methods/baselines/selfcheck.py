"""``selfcheck``: the model checks the claim against its own knowledge, the "Self-Check" rows of the DPD and
FacTool papers (docs/methods/selfcheck.md). ``samples`` = 0: one reasoned verdict (``shots`` worked examples);
N > 0: SelfCheckGPT's sample consistency, the share of N sampled passages that do not support the claim
against ``threshold`` (unreadable answers left out and counted)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from factdebate.core.claim_context import binary_task
from factdebate.core.fields import offered
from factdebate.core.runtime import span
from factdebate.core.types import Label, Round, Turn, Verdict
from factdebate.llm.ask import say
from factdebate.llm.base import GenParams
from factdebate.methods.base import CallProbe, Method, MethodSettings, register
from factdebate.methods.baselines import paper_rows
from factdebate.methods.kit.turns import answer_turn, answered, end_round, finish, turn_started
from factdebate.methods.kit.yesno import ask_yes_no
from factdebate.methods.resources import Resources
from factdebate.methods.view import declare_view
from factdebate.prompts import render
from factdebate.util.tasks import gather_all  # a failed part cancels its siblings

# Worked examples for ``shots`` (written for this project): a true, a false and an undecidable claim.
EXAMPLES = (
    ("Mount Everest is the highest mountain above sea level.",
     "Everest's summit, at about 8,849 metres, is higher than any other peak.", "SUPPORTS"),
    ("The Amazon River flows into the Pacific Ocean.",
     "The Amazon empties into the Atlantic Ocean on Brazil's north coast, not the Pacific.", "REFUTES"),
    ("The composer of the first opera ever staged in Lima kept a diary.",
     "I know nothing reliable about this person or a diary, so I cannot tell.", "NOT ENOUGH INFO"),
)
# On a two-label task the third example teaches no third label: a false claim whose error is a date.
EXAMPLES_TWO_LABELS = (*EXAMPLES[:2], (
    "The Berlin Wall fell in 1991.",
    "The Berlin Wall was opened in November 1989; 1991 is the year the Soviet Union dissolved.", "REFUTES"))

if TYPE_CHECKING:
    from factdebate.core.deviations import Deviation
    from factdebate.methods.settings_protocol import RunSettings


class SelfCheckSettings(MethodSettings):
    samples: int = Field(
        title="Sampled passages", default=0, ge=0, le=20, json_schema_extra=offered(group="scoring", main=True),
        description="Passages sampled to test consistency (0: one verdict from the model's own knowledge).")
    shots: int = Field(
        title="Worked examples", default=0, ge=0, le=3, json_schema_extra=offered(group="agents"),
        description="Examples shown before the claim, 0 to 3 (samples = 0).")
    temperature: float = Field(
        title="Sampling temperature", default=1.0, ge=0, le=2, json_schema_extra=offered(group="scoring"),
        description="How varied the sampled passages are.")
    threshold: float = Field(
        title="Inconsistency threshold", default=0.5, ge=0, le=1, json_schema_extra=offered(group="labels", main=True),
        description="Inconsistency (share of No) above which the claim is REFUTES.")


@register
class SelfCheck(Method[SelfCheckSettings]):
    name = "selfcheck"
    description = "Self-check: a verdict from the model's own knowledge, or sample consistency (SelfCheckGPT)"
    settings_model = SelfCheckSettings
    view = declare_view(decisions={"consistency": "the consistency of sampled passages"})
    call_probe = CallProbe()

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        n = self.cfg(settings).samples
        return (1, 2) if n == 0 else (2 * n, 3 * n)

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        return paper_rows.chatgpt_only(settings)  # the DPD paper's Self-Check rows ran on ChatGPT

    async def run(self, claim: str, resources: Resources) -> Verdict:
        cfg = self.cfg(resources.settings)
        if cfg.samples == 0:
            with span("round 1", "round", round=1):
                examples = (EXAMPLES_TWO_LABELS if binary_task() else EXAMPLES)[:cfg.shots]
                turn = await answer_turn(resources.debater, render("selfcheck", claim=claim, examples=examples),
                                         agent="self-check", round=1, temperature=resources.settings.llm.temperature)
            rnd = Round(round=1, turns=[turn])
            end_round(rnd, consensus=False, final=True)
            return finish(claim, self.name, turn.label, "single", [rnd])
        with span("round 1", "round", round=1):
            samples = await gather_all(*(self._sample(i, claim, cfg, resources) for i in range(1, cfg.samples + 1)))
        first = Round(round=1, turns=list(samples))
        end_round(first, consensus=False)
        with span("round 2", "round", round=2):
            checks = await gather_all(*(self._check(turn, claim, resources) for turn in samples))
        second = Round(round=2, turns=list(checks))
        answers = [t.label for t in checks]
        readable = [a for a in answers if a is not None]
        label: Label | None = None
        if readable:
            score = sum(a == Label.REFUTES for a in readable) / len(readable)
            label = Label.REFUTES if score > cfg.threshold else Label.SUPPORTS
            note = (f"inconsistency {score:.2f} ({sum(a == Label.REFUTES for a in readable)} of {len(readable)} "
                    f"passages do not support the claim); threshold {cfg.threshold}")
        else:
            note = "no passage's Yes/No answer could be read"
        if len(readable) < len(answers):
            note += f"; {len(answers) - len(readable)} unreadable answer(s) left out"
        end_round(second, consensus=False, final=True)
        # Sampled passages carry no label by design: only unreadable Yes/No answers count as unparsed.
        return finish(claim, self.name, label, "consistency", [first, second], explanation=note,
                      unparsed_turns=len(answers) - len(readable))

    async def _sample(self, number: int, claim: str, cfg: SelfCheckSettings, resources: Resources) -> Turn:
        # The draft number is in the prompt so that the cache and fixed-seed backends give distinct samples.
        prompt = render("selfcheck_sample", claim=claim, sample=number)
        turn = Turn(agent=f"sample-{number}", role="sampler")
        turn_started(turn, 1)
        reply = await say(resources.debater, prompt, GenParams(temperature=cfg.temperature, max_tokens=200),
                          agent=turn.agent, round=1)
        turn.response = reply.text.strip()
        answered(turn, 1)
        return turn

    async def _check(self, sample: Turn, claim: str, resources: Resources) -> Turn:
        turn = Turn(agent=f"check-{sample.agent.removeprefix('sample-')}", role="consistency")
        turn_started(turn, 2)
        answer = await ask_yes_no(resources.debater, render("selfcheck_consistency", passage=sample.response,
                                                            claim=claim), agent=turn.agent, round=2, max_tokens=8)
        turn.response, turn.parse_retries = answer.response, answer.retries
        turn.label = None if answer.answer is None else (Label.SUPPORTS if answer.answer else Label.REFUTES)
        answered(turn, 2)
        return turn
