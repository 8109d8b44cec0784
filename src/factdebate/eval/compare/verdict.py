"""What ``compare`` may conclude from several paired tests at small n, in one plain sentence.

Holm's correction keeps the chance of a false difference among the pairs at 5%. A run off the front is "not
distinguishable from the front" unless a front run beating it is significantly more accurate (after Holm) or
cheaper beyond its paired cost interval."""

from __future__ import annotations

from typing import Any

from factdebate.eval.report.intervals import ALPHA, POWER, fewest_discordant, holm, minimum_detectable_difference


def mark_pairs(pairs: list[dict[str, Any]]) -> None:
    """Add to every pair its Holm-adjusted McNemar p, whether it differs at ``ALPHA``, and the smallest
    difference it could detect (at ALPHA / m, with ``POWER``)."""
    m = len(pairs)
    for pair, adjusted in zip(pairs, holm([p["mcnemar_p"] for p in pairs]), strict=True):
        n = pair["n"]
        share = (pair["only_a"] + pair["only_b"]) / n if n else 0.0
        pair["mcnemar_p_holm"] = adjusted
        pair["differs"] = adjusted < ALPHA
        pair["detectable_difference"] = minimum_detectable_difference(n, share, alpha=ALPHA / m) if m else None


def _pair(pairs: list[dict[str, Any]], x: str, y: str) -> dict[str, Any] | None:
    return next((p for p in pairs if {p["a"], p["b"]} == {x, y}), None)


def _dominates(s: dict[str, Any], r: dict[str, Any]) -> bool:
    cs, cr = s["cost"]["axis_per_claim"], r["cost"]["axis_per_claim"]
    return cs <= cr and s["accuracy"] >= r["accuracy"] and (cs < cr or s["accuracy"] > r["accuracy"])


def _cheaper_beyond_doubt(pair: dict[str, Any] | None, front: str) -> bool:
    """Whether ``front`` is cheaper with the pair's cost ratio interval wholly below 1."""
    ratio = (pair or {}).get("cost_ratio") or {}
    low, high = (ratio.get("ci") or [None, None])[:2]
    if low is None or high is None or pair is None:
        return False
    return bool(high < 1) if pair["a"] == front else bool(low > 1)


def front_marks(rows: list[dict[str, Any]], front: list[str], pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """For every run off the front: the front runs beating it, of equal cost, significantly better or cheaper."""
    by_name = {r["name"]: r for r in rows}
    behind: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["name"] in front or row["cost"]["axis_per_claim"] is None or row["accuracy"] is None:
            continue
        beaten_by = [f for f in front if _dominates(by_name[f], row)]
        same_cost = [f for f in beaten_by if by_name[f]["cost"]["axis_per_claim"] == row["cost"]["axis_per_claim"]]
        significant = [f for f in beaten_by if (p := _pair(pairs, f, row["name"])) is not None and p["differs"]]
        cheaper = [f for f in beaten_by
                   if f not in same_cost and _cheaper_beyond_doubt(_pair(pairs, f, row["name"]), f)]
        behind[row["name"]] = {"beaten_by": beaten_by, "same_cost": same_cost, "significantly": significant,
                               "significantly_cheaper": cheaper}
    return {"not_distinguishable": [name for name, b in behind.items()
                                    if not b["significantly"] and not b["significantly_cheaper"]],
            "behind": behind}


def _points(value: float) -> str:
    return f"{value * 100:.0f}"


def sentence(pairs: list[dict[str, Any]], n: int) -> str:
    """The verdict in words: which pairs differ after Holm, and what difference could have been seen."""
    if not pairs:
        return "No pair to compare."
    m = len(pairs)
    correction = "after Holm's correction" if m > 1 else "(one comparison, nothing to correct)"
    threshold = ALPHA / m
    if fewest_discordant(threshold) > n:
        reach = (f"at n = {n} no difference can be significant: McNemar's exact test needs at least "
                 f"{fewest_discordant(threshold)} samples on which the two runs disagree, all one way")
    else:
        detectable = sorted(p["detectable_difference"] for p in pairs)
        low, high = _points(detectable[0]), _points(detectable[-1])
        size = f"about {low} points" if low == high else f"about {low} to {high} points, by how often the runs disagree"
        reach = (f"at n = {n} a difference in accuracy of {size} could be seen ({POWER:.0%} power, two-sided "
                 f"{ALPHA:g}/{m}); a smaller one may be there unseen")
    differing = [p for p in pairs if p["differs"]]
    if not differing:
        smallest = min(p["mcnemar_p_holm"] for p in pairs)
        return (f"No pair differs at {ALPHA:g} {correction} (smallest adjusted McNemar p = {smallest:.2f}); "
                f"{reach}.")
    found = "; ".join(
        f"{p['a'] if p['difference'] > 0 else p['b']} is more accurate than {p['b'] if p['difference'] > 0 else p['a']}"
        f" by {_points(abs(p['difference']))} points (adjusted p = {p['mcnemar_p_holm']:.3f})" for p in differing)
    rest = m - len(differing)
    return (f"{len(differing)} of {m} pair(s) differ at {ALPHA:g} {correction}: {found}"
            + (f". The other {rest} do not; {reach}." if rest else "."))
