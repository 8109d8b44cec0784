"""The report's PNG plots (matplotlib, Agg backend: no display needed). Each function writes one file and
returns its path, or ``None`` when the runs hold nothing to plot (the report says so)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

DPI = 110


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def accuracy_by_run(names: list[str], accuracy: list[float], ci: list[tuple[float, float]], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(names) + 2), 4))
    lower = [max(0.0, a - lo) for a, (lo, _) in zip(accuracy, ci, strict=True)]
    upper = [max(0.0, hi - a) for a, (_, hi) in zip(accuracy, ci, strict=True)]
    ax.bar(range(len(names)), accuracy, yerr=[lower, upper], capsize=4, color="#4C72B0")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy (exact match)")
    ax.set_title("Accuracy by run, 95% bootstrap CI")
    return _save(fig, path)


def accuracy_by_rounds(series: dict[str, list[tuple[int, float]]], path: Path, *, title: str,
                       xlabel: str) -> Path:
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for label, points in sorted(series.items()):
        points = sorted(points)
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("accuracy (exact match)")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if len(series) > 1:
        ax.legend(fontsize="small")
    return _save(fig, path)


def score_distributions(faith: list[float], relevance: list[float], thresholds: tuple[float, float],
                        path: Path) -> Path:
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    bins = [i / 20 for i in range(21)]
    for ax, values, threshold, name in ((axes[0], faith, thresholds[0], "faithfulness"),
                                        (axes[1], relevance, thresholds[1], "answer relevance")):
        ax.hist(values, bins=bins, color="#55A868", edgecolor="white")
        if not values:
            ax.text(0.5, 0.5, "no scored answers", ha="center", transform=ax.transAxes)
        ax.axvline(threshold, color="#C44E52", linestyle="--", label=f"threshold {threshold:g}")
        ax.set_xlabel(name)
        ax.set_ylabel("answers")
        ax.set_title(f"{name} (n={len(values)})")
        ax.legend(fontsize="small")
    return _save(fig, path)


def scores_by_correctness(means: dict[str, dict[str, float | None]], path: Path) -> Path:
    """``means``: {"correct"|"incorrect": {"faithfulness": m, "answer relevance": m}}."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    metrics = ["faithfulness", "answer relevance"]
    width = 0.38
    for offset, (group, color) in enumerate((("correct", "#4C72B0"), ("incorrect", "#C44E52"))):
        values = [means.get(group, {}).get(m) or 0.0 for m in metrics]
        ax.bar([i + (offset - 0.5) * width for i in range(len(metrics))], values, width, label=group, color=color)
    ax.set_xticks(range(len(metrics)), metrics)
    ax.set_ylim(0, 1)
    ax.set_ylabel("mean score")
    ax.set_title("Scores of correct vs incorrect answers")
    ax.legend()
    return _save(fig, path)


def cost_per_claim(names: list[str], calls: list[tuple[float, float]], tokens: list[tuple[float, float]],
                   path: Path) -> Path:
    """Mean with the p95 marked, for LLM calls and tokens per claim."""
    fig, axes = plt.subplots(1, 2, figsize=(max(8.0, 1.4 * len(names) + 3), 4))
    for ax, values, name in ((axes[0], calls, "LLM calls per claim"), (axes[1], tokens, "tokens per claim")):
        ax.bar(range(len(names)), [v[0] for v in values], color="#8172B2", label="mean")
        ax.scatter(range(len(names)), [v[1] for v in values], color="black", marker="_", s=300, label="p95",
                   zorder=3)
        ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
        ax.set_title(name)
        ax.legend(fontsize="small")
    return _save(fig, path)


def paper_vs_ours(panels: list[tuple[str, list[str], list[float], list[tuple[float, float]], list[float]]],
                  path: Path, *, title: str, ylabel: str) -> Path:
    """A paper's table against ours, a panel per metric (metric, labels, ours, intervals, the paper's values)."""
    width = max(5.0, 0.6 * max(len(p[1]) for p in panels) + 2.5) + 1.6  # the legend's column, right of the bars
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, 3.2 * len(panels) + 0.8), squeeze=False)
    for ax, (metric, labels, ours, ci, paper) in zip(axes[:, 0], panels, strict=True):
        xs = list(range(len(labels)))
        lower = [max(0.0, v - lo) if v == v and lo == lo else 0.0 for v, (lo, _) in zip(ours, ci, strict=True)]
        upper = [max(0.0, hi - v) if v == v and hi == hi else 0.0 for v, (_, hi) in zip(ours, ci, strict=True)]
        ax.bar(xs, ours, yerr=[lower, upper], capsize=3, color="#4C72B0", label="ours (95% CI)")
        ax.scatter(xs, paper, color="#C44E52", marker="D", zorder=3, label="paper")
        ax.set_xticks(xs, labels, rotation=30, ha="right", fontsize="small")
        ax.set_ylabel(ylabel)
        ax.set_title(metric, fontsize="medium")
        # beside the axes, not over them: inside, "best" puts it on the first bar
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.suptitle(title)
    return _save(fig, path)
