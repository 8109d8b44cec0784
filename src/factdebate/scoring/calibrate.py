"""Calibrating the answer-relevance threshold to the encoder in use.

Tool-MAD set 0.8 because "most scores" of its encoder were above it (Section III.C, Fig. 3); MiniLM scores
lower. Calibration reads our encoder's scores of debate answers (methods/toolmad/calibrate.py) and reports
the threshold that lets ``pass_share`` (ours: 0.8) of them pass."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

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
        return {**asdict(self), "settings": self.settings()}

    def settings(self) -> dict[str, Any]:
        """The Tool-MAD settings a run takes this threshold with, its origin recorded field by field."""
        return {"methods": {"tool-mad": {
            "relevance_threshold": self.threshold, "relevance_calibrated_dataset": self.dataset,
            "relevance_calibrated_encoder": self.encoder, "relevance_calibrated_share": self.pass_share}}}

    def measure(self, scores: list[float], *, strict: bool = False) -> None:
        """Record ``scores``, the threshold that lets ``pass_share`` of them pass (``strict``: a score must be
        above it, Tool-MAD's default test), and their spread."""
        self.scores = scores
        if not scores:
            return
        import numpy as np  # here, not at the top: Tool-MAD's method imports this module in every command

        self.threshold = threshold_for(scores, self.pass_share, digits=3, strict=strict)
        values = np.asarray(scores)
        self.quantiles = {name: round(float(np.quantile(values, q)), 3) for name, q in
                          (("min", 0.0), ("p10", 0.1), ("p25", 0.25), ("median", 0.5), ("p75", 0.75),
                           ("p90", 0.9), ("max", 1.0))}
        self.quantiles["mean"] = round(float(values.mean()), 3)
        self.quantiles["share_at_0.8"] = round(float((values >= 0.8).mean()), 3)


def relevance_encoder(encoder: str) -> str:
    """The encoder answer relevance is scored with, as a calibration records it (``retrieval.encoder``)."""
    return f"all-MiniLM-L6-v2 ({encoder})"


def min_answers(pass_share: float) -> int:
    """The fewest scored answers a threshold for ``pass_share`` is read from: one on each side of it, and at
    least :data:`MIN_ANSWERS`."""
    below, above = 1 - pass_share, pass_share
    return max(MIN_ANSWERS, math.ceil(round(1 / below, 9)), math.ceil(round(1 / above, 9)))


def threshold_for(scores: list[float], pass_share: float, digits: int | None = None, *,
                  strict: bool = False) -> float:
    """The highest score that at least ``pass_share`` of ``scores`` reach, rounded down to ``digits``;
    ``strict``: one step lower, for a ``>`` test."""
    if not scores:
        raise ValueError("no scores to calibrate on")
    ranked = sorted(scores, reverse=True)
    exact = float(ranked[max(1, math.ceil(pass_share * len(ranked))) - 1])
    if digits is None:
        return exact
    shown = round(exact, digits)
    if shown < exact or (shown == exact and not strict):
        return shown
    return round(shown - 10**-digits, digits)  # rounded up (or, strict, equal): one step down
