"""The answers the relevance threshold is calibrated on: Tool-MAD's own round-1 debate answers.

The paper read its 0.8 off debate answers' scores (Fig. 3), so the calibration plays round 1 as a run does and
scores each answer's relevance with the run's encoder (scoring/calibrate.py reads the threshold off them)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING

from factdebate.methods.toolmad.method import ToolMAD, build_agents
from factdebate.scoring.calibrate import DEFAULT_SHARE, Calibration, relevance_encoder
from factdebate.scoring.relevance import answer_relevance

if TYPE_CHECKING:
    from factdebate.core.dataset_types import Sample
    from factdebate.methods.resources import Resources


async def round_one_relevance(claim: str, resources: Resources) -> list[float | None]:
    """Each debater's round-1 answer to ``claim``, scored for relevance (None when it could not be)."""
    method = ToolMAD()
    cfg = method.cfg(resources.settings)
    unscored = resources.settings.model_copy(update={"methods": {
        **resources.settings.methods, method.name: cfg.model_copy(update={"scoring": False})}})
    turns = await method._round(build_agents(list(cfg.agents), resources), claim, 1, None,
                                dataclasses.replace(resources, settings=unscored))  # the same models and tools
    found: list[float | None] = []
    for turn in turns:
        if not turn.response.strip():
            found.append(None)
            continue
        result = await answer_relevance(resources.scorer, resources.encoder, claim, turn.response,
                                        n=cfg.relevance_questions, agent=turn.agent, round=1)
        found.append(None if result.error else result.value)
    return found


async def calibrate_relevance(samples: list[Sample], resources: Resources, *, dataset: str,
                              pass_share: float = DEFAULT_SHARE, concurrency: int = 4) -> Calibration:
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(sample: Sample) -> list[float | None]:
        async with gate:
            return await round_one_relevance(sample.claim, resources)

    found = [score for scores in await asyncio.gather(*(one(s) for s in samples)) for score in scores]
    scores = [s for s in found if s is not None]
    result = Calibration(dataset=dataset, encoder=relevance_encoder(resources.settings.retrieval.encoder),
                         model=resources.settings.llm_for("debater"), pass_share=pass_share,
                         unscored=len(found) - len(scores))
    result.measure(scores, strict=ToolMAD().cfg(resources.settings).threshold_pass == "above")
    return result
