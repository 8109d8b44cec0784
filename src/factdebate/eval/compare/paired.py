"""Paired statistics for two runs on the same samples: is a difference in accuracy real?

McNemar's exact test reads the claims one got right and the other wrong; the paired bootstrap resamples claims
with both outcomes; Cohen's kappa is agreement beyond chance."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value, in exact fractions: p = min(1, 2 P(X <= min)), X binomial(only_a +
    only_b, 1/2); 1 with no discordant claim."""
    if only_a < 0 or only_b < 0:
        raise ValueError("counts of discordant claims cannot be negative")
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(Fraction(math.comb(n, k)) for k in range(min(only_a, only_b) + 1)) / Fraction(2) ** n
    return float(min(Fraction(1), 2 * tail))


def cohen_kappa(a: list[str], b: list[str]) -> float | None:
    """Agreement of two label sequences beyond chance: (p_o - p_e) / (1 - p_e); None when p_e is 1."""
    if len(a) != len(b):
        raise ValueError("kappa needs two label lists of the same length")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    count_a, count_b = Counter(a), Counter(b)
    expected = sum(count_a[label] * count_b[label] for label in count_a) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def paired_bootstrap(a: list[bool], b: list[bool], *, seed: int, resamples: int = 1000,
                     confidence: float = 0.95) -> tuple[float, float]:
    """Percentile interval of accuracy(A) - accuracy(B), resampling claims with both outcomes
    (default_rng(seed).integers(0, n, (resamples, n)))."""
    if len(a) != len(b):
        raise ValueError("a paired bootstrap needs both runs' outcomes of the same claims")
    n = len(a)
    if n == 0:
        return (math.nan, math.nan)
    index = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    delta = np.array(a, dtype=float) - np.array(b, dtype=float)
    differences = delta[index].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    return (float(np.percentile(differences, tail)), float(np.percentile(differences, 100 - tail)))


@dataclass(frozen=True)
class Pair:
    """Two runs' outcomes on the claims both hold a record for."""

    a: str
    b: str
    n: int
    both_right: int
    only_a: int  # right in A, wrong in B
    only_b: int
    both_wrong: int
    difference: float  # accuracy(A) - accuracy(B) on these claims
    interval: tuple[float, float]
    mcnemar_p: float
    kappa: float | None
    failed_either: int  # claims where A or B errored or gave no parsable answer (counted wrong)


def compare_pair(a: str, b: str, correct_a: list[bool], correct_b: list[bool], shown_a: list[str],
                 shown_b: list[str], failed_either: int, *, seed: int, resamples: int = 1000) -> Pair:
    pairs = list(zip(correct_a, correct_b, strict=True))
    n = len(pairs)
    only_a = sum(x and not y for x, y in pairs)
    only_b = sum(y and not x for x, y in pairs)
    both = sum(x and y for x, y in pairs)
    return Pair(a, b, n, both, only_a, only_b, n - both - only_a - only_b,
                (only_a - only_b) / n if n else math.nan,
                paired_bootstrap(correct_a, correct_b, seed=seed, resamples=resamples),
                mcnemar_exact(only_a, only_b), cohen_kappa(shown_a, shown_b), failed_either)
