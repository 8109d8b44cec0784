"""Intervals and tests that stay honest at small n: Wilson's interval, Holm's correction, and the smallest
paired difference in accuracy n samples could detect.

A bootstrap of 3 right of 3 is the point [1, 1]; Wilson's interval is [0.44, 1]. The bootstrap stays where no
closed form fits (macro-F1, paired differences)."""

from __future__ import annotations

import math
from statistics import NormalDist

ALPHA = 0.05
POWER = 0.8


def z_value(confidence: float) -> float:
    """The two-sided normal quantile: 1.959964 for 95%."""
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of k successes in n trials (NaN bounds for n = 0)."""
    if n == 0:
        return math.nan, math.nan
    if not 0 <= k <= n:
        raise ValueError(f"{k} successes in {n} trials")
    z = z_value(confidence)
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # At k = 0 or k = n one bound is exactly 0 or 1; rounding must not leave it a hair inside.
    return (0.0 if k == 0 else max(0.0, centre - half)), (1.0 if k == n else min(1.0, centre + half))


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: the i-th smallest (from 0) times m - i, the
    running maximum carried, capped at 1."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def fewest_discordant(alpha: float) -> int:
    """The fewest discordant samples, all one way, with which McNemar's p = 2 / 2^k is below ``alpha``."""
    k = 1
    while 2.0 ** (1 - k) >= alpha:
        k += 1
    return k


def minimum_detectable_difference(n: int, discordant_share: float, *, alpha: float = ALPHA,
                                  power: float = POWER) -> float:
    """The paired accuracy difference a McNemar test at ``alpha`` detects with ``power`` at a
    ``discordant_share``: (z_{1-alpha/2} + z_power) * sqrt(psi / n), at least ``fewest_discordant(alpha) / n``."""
    if n <= 0:
        return math.nan
    z = NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power)
    return min(1.0, max(z * math.sqrt(discordant_share / n), fewest_discordant(alpha) / n))
