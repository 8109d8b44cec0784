"""Calibrating the answer-relevance threshold to the encoder in use (issue 29, item 7).

Tool-MAD set 0.8 from its own score distribution: "answer relevance was strongly skewed toward high values,
with most scores above 0.8, making 0.8 a natural cutoff that filters low-quality outputs without affecting
the majority of valid ones" (Section III.C, Fig. 3). Our encoder (all-MiniLM-L6-v2) scores the same
answers lower, so the paper's 0.8 rejects more of them than the paper's did. Calibration measures our
encoder's distribution on a dataset, the way the paper's Fig. 3 did (first-round debate answers, scored by
the relevance metric the debate uses), and reports the threshold that lets the same share of answers pass.
The paper gives no number for "most"; ``pass_share`` (default 0.8) is ours and recorded with the result.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from factdebate.llm.ask import ask
from factdebate.llm.base import GenParams
from factdebate.prompts import render
from factdebate.scoring.relevance import answer_relevance

if TYPE_CHECKING:
    from factdebate.eval.datasets import Sample
    from factdebate.methods.resources import Resources

DEFAULT_SHARE = 0.8
MIN_ANSWERS = 5  # below this, one answer more or less moves the threshold anywhere


@dataclass
class Calibration:
    dataset: str
    encoder: str
    model: str
    pass_share: float
    scores: list[float] = field(default_factory=list)
    unscored: int = 0  # answers whose relevance could not be computed (no readable question)
    threshold: float | None = None
    quantiles: dict[str, float] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        return asdict(self)

    def note(self) -> str:
        """What ``--relevance-calibration`` records in the run."""
        return (f"{self.encoder} on {self.dataset} ({len(self.scores)} answers of {self.model}): "
                f"{self.pass_share:.0%} of them score at least {self.threshold:.3f}")


def min_answers(pass_share: float) -> int:
    """The fewest scored answers a threshold for ``pass_share`` is read from: at least one answer on each
    side of it (with 80% to pass, five answers, one of them below), and never fewer than
    :data:`MIN_ANSWERS`. With fewer, the "threshold" is simply the lowest (or highest) answer's score: from
    a one-claim dataset, that one answer's."""
    below, above = 1 - pass_share, pass_share
    return max(MIN_ANSWERS, math.ceil(round(1 / below, 9)), math.ceil(round(1 / above, 9)))


def threshold_for(scores: list[float], pass_share: float) -> float:
    """The highest score that at least ``pass_share`` of ``scores`` reach (so that share passes ``>=``)."""
    if not scores:
        raise ValueError("no scores to calibrate on")
    ranked = sorted(scores, reverse=True)
    return float(ranked[max(1, math.ceil(pass_share * len(ranked))) - 1])


async def _score(sample: Sample, resources: Resources, gate: asyncio.Semaphore) -> float | None:
    async with gate:
        prompt = render("debate_answer", agent_desc="debater", claim=sample.claim, others=[], documents=[],
                        answer_sentences=None)
        answer = await ask(resources.debater, prompt, lambda text: text.strip() or None, what="answer",
                           params=GenParams(temperature=resources.settings.llm.temperature, max_tokens=384),
                           problem="the answer was empty", agent="calibration", round=1)
        if answer.value is None:
            return None
        result = await answer_relevance(resources.scorer, resources.encoder, sample.claim, answer.value,
                                        agent="calibration", round=1)
        return result.value


async def calibrate_relevance(samples: list[Sample], resources: Resources, *, dataset: str,
                              pass_share: float = DEFAULT_SHARE, concurrency: int = 4) -> Calibration:
    settings = resources.settings
    gate = asyncio.Semaphore(max(1, concurrency))
    found = await asyncio.gather(*(_score(sample, resources, gate) for sample in samples))
    scores = [s for s in found if s is not None]
    result = Calibration(dataset=dataset, encoder=f"all-MiniLM-L6-v2 ({settings.retrieval.encoder})",
                         model=settings.llm_for("debater"), pass_share=pass_share, scores=scores,
                         unscored=len(found) - len(scores))
    if scores:
        result.threshold = round(threshold_for(scores, pass_share), 3)
        values = np.asarray(scores)
        result.quantiles = {name: round(float(np.quantile(values, q)), 3) for name, q in
                            (("min", 0.0), ("p10", 0.1), ("p25", 0.25), ("median", 0.5), ("p75", 0.75),
                             ("p90", 0.9), ("max", 1.0))}
        result.quantiles["mean"] = round(float(values.mean()), 3)
        result.quantiles["share_at_0.8"] = round(float((values >= 0.8).mean()), 3)
    return result
