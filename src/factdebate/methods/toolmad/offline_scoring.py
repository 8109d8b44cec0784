"""The scores tuned to the offline model (``offline_scoring``): answer relevance against a threshold calibrated
for it, and faithfulness without an answer's conclusion, so that its agreeing rounds can stop early
(benchmarks/decisions/offline_scoring.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdebate.hub.offline_model import QWEN_CODER_1_5B
from factdebate.scoring.calibrate import relevance_encoder

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings
    from factdebate.methods.toolmad.settings import ToolMADSettings

PAPER_RELEVANCE = 0.8
# `factdebate calibrate relevance` with the offline model as debater and scorer and the int8 encoder, on eight
# claims outside every draw of the offline accuracy table (`benchmarks/offline_accuracy.py --held-out FILE`
# writes them): the threshold that 80 % of their 16 round-1 answers pass, strictly above it.
CALIBRATED = {"relevance_threshold": 0.51,
              "relevance_calibrated_dataset": "offline-held-out (4 fever-builtin and 4 countries claims outside "
                                              "the offline accuracy table's draws)",
              "relevance_calibrated_encoder": relevance_encoder("int8"), "relevance_calibrated_share": 0.8}


def offline_scoring_on(cfg: ToolMADSettings, settings: RunSettings) -> bool:
    """``offline_scoring`` where set; else on when the offline model both debates and scores."""
    if cfg.offline_scoring is not None:
        return cfg.offline_scoring
    return settings.llm_for("debater") == QWEN_CODER_1_5B.spec == settings.llm_for("scorer")


def tuned(cfg: ToolMADSettings, settings: RunSettings) -> ToolMADSettings:
    """``cfg`` with the calibrated relevance threshold where offline scoring is on and the threshold is 0.8."""
    if cfg.calibrated or cfg.relevance_threshold != PAPER_RELEVANCE or not offline_scoring_on(cfg, settings):
        return cfg
    return cfg.model_copy(update=CALIBRATED)
