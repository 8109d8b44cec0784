"""Cost in ``compare``: each pair's cost ratio with a paired bootstrap interval, and dollars with enough digits
to read."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from factdebate.eval.pricing import Price, dollars, dollars_by_model, sum_by_model
from factdebate.eval.report.metrics import Outcome


def sample_cost(outcome: Outcome, axis: str, prices: dict[str, Price], models: list[str]) -> float | None:
    """One sample's cost on ``axis``; None without usage or, for dollars, a price."""
    usage = outcome.usage
    if usage is None:
        return None
    if axis == "dollars":
        if outcome.usage_by_model is None:
            return dollars(float(usage.get("prompt_tokens", 0) or 0), float(usage.get("completion_tokens", 0) or 0),
                           models, prices)[0]
        spent, _, _ = dollars_by_model(sum_by_model([outcome.usage_by_model]), prices)
        return spent
    if axis == "tokens":
        return float(usage.get("prompt_tokens", 0) or 0) + float(usage.get("completion_tokens", 0) or 0)
    return float(usage.get({"calls": "llm_calls", "seconds": "seconds"}[axis], 0) or 0)


def cost_ratio(a: list[Outcome], b: list[Outcome], axis: str, prices: dict[str, Price],
               models: tuple[list[str], list[str]], *, seed: int, resamples: int,
               confidence: float = 0.95) -> dict[str, Any]:
    """A's cost per claim over B's on the samples both have a cost for, with a paired bootstrap; or None."""
    both = [(x, y) for x, y in ((sample_cost(p, axis, prices, models[0]), sample_cost(q, axis, prices, models[1]))
                                for p, q in zip(a, b, strict=True)) if x is not None and y is not None]
    empty = {"ratio": None, "ci": [None, None], "n": len(both)}
    if not both or sum(y for _, y in both) == 0:
        return empty
    xa, xb = np.array([x for x, _ in both]), np.array([y for _, y in both])
    index = np.random.default_rng(seed).integers(0, len(both), size=(resamples, len(both)))
    sa, sb = xa[index].sum(axis=1), xb[index].sum(axis=1)
    ratios = sa[sb > 0] / sb[sb > 0]
    tail = (1 - confidence) / 2 * 100
    ci = [float(np.percentile(ratios, tail)), float(np.percentile(ratios, 100 - tail))] if len(ratios) else [None,
                                                                                                             None]
    return {"ratio": float(xa.sum() / xb.sum()), "ci": ci, "n": len(both)}


def dollars_text(value: float | None) -> str:
    """Dollars with three significant digits and at least four decimals (0.000123, 12.3400); n/a for none."""
    if value is None or math.isnan(value):
        return "n/a"
    if value == 0:
        return "0.0000"
    decimals = max(4, 2 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"
