"""Would a gate learned from labelled pairs make "checked" mean "the quote states the claim" more often than the
word rule ``writes_claim`` does? Run on all of Factcheck-Bench's claim-evidence stance pairs; no model is called,
the retrieval's int8 encoder is.

    .venv/bin/python benchmarks/decisions/stance_gate.py [--pairs FILE] [--folds 5] [--plot FILE] [--show 10]

Each sentence of a passage is described by what the word rules look at (the share of the claim's words, names
and numbers it writes, a negation in one and not the other, the rules' own answers) and by the encoder's cosine
with the claim. A pair is described by its closest sentence and by the best of its sentences. Logistic
regression and gradient-boosted trees learn completely-support against the other stances, each scored on pairs
whose claim it never saw in training (folds grouped by claim), so the scores are what a shipped gate would give a
new claim. For each, the table gives the precision (the share of the pairs let through whose passage completely
supports the claim) at the recall ``writes_claim`` has, and the most recall at a precision of 0.8 and 0.9. A gate
is worth shipping in the rule's place only where it beats the rule on both. A last line does the same for a flag
(refute against the rest, beside ``writes_against``). ``--show`` prints the pairs that the logistic regression
scores highest among those that do not completely support, each with the sentence that shares most of its words.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from factdebate.core.types import Document
from factdebate.embeddings import get_embedder
from factdebate.guard_engine import stance
from factdebate.guard_engine.fast import same_word
from factdebate.response_level.grounding import names, numbers, predicate_words

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.stance_pairs import PAIRS, STANCES

FEATURES = ("cosine", "predicate_share", "names_share", "numbers_written", "numbers_missing", "negation_differs",
            "writes_claim", "writes_against", "length_ratio")


def sentence_features(claim: str, sentence: str, cosine: float) -> list[float]:
    written = stance._words(sentence)
    predicate, claim_names, claim_numbers = predicate_words(claim), names(claim), numbers(claim)

    def share(words: set[str]) -> float:
        return sum(any(same_word(w, o) for o in written) for w in words) / len(words) if words else 1.0

    missing = len(claim_numbers - numbers(sentence))
    return [cosine, share(predicate), share(claim_names), float(missing == 0), float(missing),
            float(stance._negated(claim) != stance._negated(sentence)), float(stance.writes_claim(claim, sentence)),
            float(stance.writes_against(claim, sentence)), len(sentence) / max(len(claim), 1)]


async def describe(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each pair's features (its closest sentence's, then the best of each over its sentences), whether it
    completely supports, its claim's group, and whether ``writes_claim`` passes on any of its sentences."""
    encoder = get_embedder("int8")
    claims = sorted({r["claim"] for r in rows})
    claim_vectors = dict(zip(claims, await encoder.aencode(claims), strict=True))
    features, rule = [], []
    for n, row in enumerate(rows):
        sents = stance.passage_sentences(Document(id=str(n), title="", text=row["evidence"])) or [""]
        vectors = await encoder.aencode(sents)
        cosines = vectors @ claim_vectors[row["claim"]]
        per = np.array([sentence_features(row["claim"], s, float(c)) for s, c in zip(sents, cosines, strict=True)])
        features.append(np.concatenate([per[int(np.argmax(cosines))], per.max(axis=0)]))
        rule.append(bool(per[:, FEATURES.index("writes_claim")].max()))
        if n % 500 == 0:
            print(f"  described {n}/{len(rows)} pairs", file=sys.stderr, flush=True)
    target = np.array([r["stance"] == "completely-support" for r in rows])
    groups = np.array([claims.index(r["claim"]) for r in rows])
    return np.array(features), target, groups, np.array(rule)


def out_of_fold(model: Any, x: np.ndarray, y: np.ndarray, groups: np.ndarray, folds: int) -> np.ndarray:
    from sklearn.model_selection import GroupKFold

    scores = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=folds).split(x, y, groups):
        model.fit(x[train], y[train])
        scores[test] = model.predict_proba(x[test])[:, 1]
    return scores


def at_recall(scores: np.ndarray, y: np.ndarray, recall: float) -> float:
    """Precision at the highest threshold whose recall reaches ``recall``."""
    order = np.argsort(-scores)
    hits = np.cumsum(y[order])
    k = int(np.searchsorted(hits, recall * y.sum())) + 1
    return float(hits[k - 1] / k)


def most_recall(scores: np.ndarray, y: np.ndarray, precision: float) -> float:
    order = np.argsort(-scores)
    hits = np.cumsum(y[order])
    ok = np.nonzero(hits / np.arange(1, len(y) + 1) >= precision)[0]
    return float(hits[ok.max()] / y.sum()) if len(ok) else 0.0


def flags(rows: list[dict[str, Any]], x: np.ndarray, groups: np.ndarray, folds: int) -> None:
    """The same for a flag: refute against the other stances, beside ``writes_against`` on any sentence."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    y = np.array([r["stance"] == "refute" for r in rows])
    rule = x[:, len(FEATURES) + FEATURES.index("writes_against")] > 0
    recall = float((rule & y).sum() / y.sum())
    scores = out_of_fold(make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)), x, y, groups, folds)
    print(f"\nflags: {int(y.sum())} refuting pairs; writes_against (any sentence): precision "
          f"{(rule & y).sum() / rule.sum():.3f}, recall {recall:.3f}; logistic regression at that recall: precision "
          f"{at_recall(scores, y, recall):.3f}, recall at precision 0.5: {most_recall(scores, y, 0.5):.3f}")


def show_mistakes(rows: list[dict[str, Any]], scores: np.ndarray, y: np.ndarray, count: int) -> None:
    mistakes = [i for i in np.argsort(-scores) if not y[i]][:count]
    for i in mistakes:
        row = rows[i]
        sents = stance.passage_sentences(Document(id=str(i), title="", text=row["evidence"]))
        claim_words = stance._words(row["claim"])
        closest = max(sents, key=lambda s: len(claim_words & stance._words(s)), default="")
        print(f"\n{row['stance']}, scored {scores[i]:.2f}\n  claim:    {row['claim']}\n  sentence: {closest[:300]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--plot", type=Path, help="write the precision-recall curves here (PNG)")
    parser.add_argument("--show", type=int, default=0, help="print this many of the gate's worst mistakes")
    args = parser.parse_args()
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rows = [json.loads(line) for line in args.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r.get("stance") in STANCES]
    x, y, groups, rule = asyncio.run(describe(rows))
    rule_recall = float((rule & y).sum() / y.sum())
    rule_precision = float((rule & y).sum() / rule.sum())
    print(f"{len(rows)} pairs, {int(y.sum())} completely supporting, {len(set(groups))} claims")
    print(f"writes_claim (any sentence): precision {rule_precision:.3f}, recall {rule_recall:.3f}")
    print("| gate | precision at the rule's recall | recall at precision 0.8 | recall at precision 0.9 |")
    print("| --- | --- | --- | --- |")
    curves = {}
    for name, model in (("logistic regression", make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))),
                        ("gradient-boosted trees", HistGradientBoostingClassifier(max_iter=200, random_state=0))):
        scores = out_of_fold(model, x, y, groups, args.folds)
        curves[name] = scores
        print(f"| {name} | {at_recall(scores, y, rule_recall):.3f} | {most_recall(scores, y, 0.8):.3f} | "
              f"{most_recall(scores, y, 0.9):.3f} |")
    flags(rows, x, groups, args.folds)
    show_mistakes(rows, curves["logistic regression"], y, args.show)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4.5))
        for name, scores in curves.items():
            order = np.argsort(-scores)
            hits = np.cumsum(y[order])
            ax.plot(hits / y.sum(), hits / np.arange(1, len(y) + 1), label=name)
        ax.plot([rule_recall], [rule_precision], "o", label="writes_claim")
        ax.axhline(y.mean(), color="grey", lw=0.8, ls=":", label="base rate")
        ax.set(xlabel="recall (completely-support pairs let through)", ylabel="precision", ylim=(0, 1))
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
