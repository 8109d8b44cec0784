"""The figures hallucination-detection papers report (DPD's Tables 2-3): accuracy, and precision, recall and F1
of the "factual" class, at claim and response level, plus a panel's consensus, agreement and cost per claim.

An unparsed or errored prediction is wrong, and not a positive prediction: it lowers recall, never precision."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

from factdebate.eval.report.metrics import COST_FIELDS, Outcome

POSITIVE = "SUPPORTS"


def positive_class(outcomes: list[Outcome], positive: str = POSITIVE) -> dict[str, Any] | None:
    if not outcomes:
        return None
    tp = sum(o.gold == positive and o.status == "ok" and o.predicted == positive for o in outcomes)
    fp = sum(o.gold != positive and o.status == "ok" and o.predicted == positive for o in outcomes)
    fn = sum(o.gold == positive for o in outcomes) - tp
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = (2 * precision * recall / (precision + recall)
          if precision is not None and recall is not None and precision + recall else None)
    return {"n": len(outcomes), "accuracy": sum(o.correct for o in outcomes) / len(outcomes),
            "precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def _claim_verdicts(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The per-claim verdicts inside one results record: the record itself, or a response's claims."""
    if isinstance(record.get("claims"), list) and record.get("kind") == "response":
        return [c["verdict"] for c in record["claims"] if isinstance(c, dict) and isinstance(c.get("verdict"), dict)]
    return [record] if "rounds" in record else []


def _final_votes(verdict: dict[str, Any]) -> dict[str, str]:
    """The readable votes of a verdict's final judges, by judge (unreadable ballots have none)."""
    return {str(j.get("agent")): str(j["vote"]) for j in verdict.get("judges") or []
            if isinstance(j, dict) and j.get("parsed", True) and j.get("vote") is not None}


def panel_agreement(verdicts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """How much a panel's referees agree over a run's final panels with two readable votes: pairwise share,
    Fleiss' kappa (None when undefined), unanimous share and each pair's agreement; None without panels."""
    panels = [votes for votes in map(_final_votes, verdicts) if len(votes) >= 2]
    if not panels:
        return None
    shares: list[float] = []
    counts: Counter[str] = Counter()
    pairs: dict[str, list[bool]] = {}
    for votes in panels:
        tally = Counter(votes.values())
        n = len(votes)
        shares.append(sum(c * (c - 1) for c in tally.values()) / (n * (n - 1)))
        counts.update(tally)
        for a, b in combinations(sorted(votes), 2):
            pairs.setdefault(f"{a}/{b}", []).append(votes[a] == votes[b])
    observed = sum(shares) / len(shares)
    chance = sum((c / sum(counts.values())) ** 2 for c in counts.values())
    return {"claims": len(panels), "pairwise": observed,
            "fleiss_kappa": (observed - chance) / (1 - chance) if chance < 1 else None,
            "unanimous": sum(share == 1 for share in shares) / len(shares),
            "pairs": {pair: sum(same) / len(same) for pair, same in sorted(pairs.items())}}


def paper_metrics(records: list[dict[str, Any]], outcomes: list[Outcome], claim_outcomes: list[Outcome] | None
                  ) -> dict[str, Any]:
    """``outcomes``: one per sample; ``claim_outcomes``: one per gold-labelled claim of a response run."""
    responses = any(r.get("kind") == "response" for r in records)
    verdicts = [v for r in records if not r.get("error") for v in _claim_verdicts(r)]
    consensus = [v["consensus"] for v in verdicts if isinstance(v.get("consensus"), int | float)]
    claims = sum(len(r.get("claims") or []) if r.get("kind") == "response" else 1
                 for r in records if not r.get("error"))
    totals = {name: sum(float((r.get("usage") or {}).get(name, 0)) for r in records if not r.get("error"))
              for name in COST_FIELDS}
    return {
        "positive_class": POSITIVE,
        "response_level": positive_class(outcomes) if responses else None,
        "claim_level": positive_class(claim_outcomes or []) if responses else positive_class(outcomes),
        "judges_mean_consensus": sum(consensus) / len(consensus) if consensus else None,
        "consensus_claims": len(consensus),
        "judges_agreement": panel_agreement(verdicts),
        # Response runs include the claim extraction in the cost; seconds of overlapping claims add up.
        "cost_per_claim": {name: value / claims for name, value in totals.items()} if claims else None,
        "claims": claims,
    }
