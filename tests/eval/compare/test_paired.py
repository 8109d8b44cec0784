"""The paired statistics against values worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from factdebate.eval.compare.paired import cohen_kappa, mcnemar_exact, paired_bootstrap


def test_mcnemar_exact_is_the_two_sided_binomial_tail() -> None:
    # 1 vs 5 discordant: P(X <= 1 | n=6) = (1 + 6) / 64, doubled.
    assert mcnemar_exact(1, 5) == 14 / 64
    assert mcnemar_exact(5, 1) == 14 / 64
    # 0 vs 10: both tails of the one-sided 1/1024.
    assert mcnemar_exact(0, 10) == 2 / 1024
    # Balanced counts: the doubled tail passes 1 and is capped.
    assert mcnemar_exact(3, 3) == 1.0
    # No discordant claim: nothing to test.
    assert mcnemar_exact(0, 0) == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_kappa_against_hand_values() -> None:
    # p_o = 3/4; p_e = 1/2 * 1/4 + 1/2 * 3/4 = 1/2; kappa = (3/4 - 1/2) / (1 - 1/2) = 1/2.
    assert cohen_kappa(["S", "S", "R", "R"], ["S", "R", "R", "R"]) == pytest.approx(0.5)
    # Perfect agreement on two labels: 1; systematic swap: p_o = 0, p_e = 1/2, kappa = -1.
    assert cohen_kappa(["S", "R"], ["S", "R"]) == 1.0
    assert cohen_kappa(["S", "R"], ["R", "S"]) == -1.0
    # Both always answered the same one label: 0/0, undefined, not a made-up 1 or 0.
    assert cohen_kappa(["S", "S", "S"], ["S", "S", "S"]) is None
    assert cohen_kappa([], []) is None


def test_paired_bootstrap_degenerate_cases_are_exact() -> None:
    # A right and B wrong on every claim: every resample's difference is 1.
    assert paired_bootstrap([True] * 7, [False] * 7, seed=3) == (1.0, 1.0)
    # The same outcomes: every resample's difference is 0, whatever the accuracy.
    same = [True, False, True, True, False]
    assert paired_bootstrap(same, same, seed=3) == (0.0, 0.0)


def test_paired_bootstrap_follows_its_documented_recipe_with_a_fixed_seed() -> None:
    a = [True, True, True, True, False, True, True, True, False, False]
    b = [True, False, False, True, False, True, False, False, False, True]
    index = np.random.default_rng(7).integers(0, 10, size=(1000, 10))
    delta = np.array(a, dtype=float) - np.array(b, dtype=float)
    resampled = delta[index].mean(axis=1)
    expected = (float(np.percentile(resampled, 2.5)), float(np.percentile(resampled, 97.5)))
    assert paired_bootstrap(a, b, seed=7) == expected
    assert paired_bootstrap(a, b, seed=7) == paired_bootstrap(a, b, seed=7)
    lo, hi = expected
    assert lo < 0.3 < hi  # the observed difference lies inside its interval
