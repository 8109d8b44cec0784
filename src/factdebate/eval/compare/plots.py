"""The comparison's figures as PNG and SVG, byte for byte the same on every run (metadata emptied, SVG hash
salt fixed)."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

DPI = 110
AXIS_LABEL = {"tokens": "tokens per claim (prompt + completion)", "calls": "LLM calls per claim",
              "seconds": "seconds per claim", "dollars": "dollars per claim"}


def _save(fig: Any, output: Path, stem: str) -> list[Path]:
    fig.tight_layout()
    png, svg = output / f"{stem}.png", output / f"{stem}.svg"
    with matplotlib.rc_context({"svg.hashsalt": "factdebate-compare", "svg.fonttype": "path"}):
        fig.savefig(png, dpi=DPI, metadata={"Software": None})
        fig.savefig(svg, metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return [png, svg]


def _shown_names(names: list[str]) -> dict[str, str]:
    """Each run's name as a figure prints it: its folder's name where unique, cut to ``_LONGEST``."""
    short = {name: Path(name).name or name for name in names}
    taken = Counter(short.values())
    shown = {name: (short[name] if taken[short[name]] == 1 else name) for name in names}
    return {name: (text if len(text) <= _LONGEST else f"{text[:_LONGEST // 2 - 1]}…{text[-(_LONGEST // 2):]}")
            for name, text in shown.items()}


_LONGEST = 40


def _finite(value: float | None) -> bool:
    return value is not None and not math.isnan(value)


def cost_vs_accuracy(data: dict[str, Any], output: Path) -> list[Path]:
    """Each run at its cost per claim and accuracy, with its 95% interval; the Pareto front joined."""
    axis = data["pareto"]["cost_axis"]
    front = data["pareto"]["front"]
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    placed = [r for r in data["runs"] if _finite(r["cost"]["axis_per_claim"]) and _finite(r["accuracy"])]
    shown = _shown_names([r["name"] for r in data["runs"]])
    order = sorted(range(len(placed)), key=lambda i: placed[i]["cost"]["axis_per_claim"])
    for rank, run in enumerate(placed[i] for i in order):
        x, y = run["cost"]["axis_per_claim"], run["accuracy"]
        lo, hi = run["ci"]["accuracy"]
        on_front = run["name"] in front
        ax.errorbar([x], [y], yerr=[[max(0.0, y - (lo if lo is not None else y))],
                                    [max(0.0, (hi if hi is not None else y) - y)]],
                    fmt="o" if on_front else "s", color="#C44E52" if on_front else "#4C72B0", capsize=4)
        # Names above and below in turn, by cost: runs of about the same cost do not print over each other.
        ax.annotate(shown[run["name"]], (x, y), textcoords="offset points", xytext=(6, 6 if rank % 2 == 0 else -14),
                    fontsize="small")
    points = sorted((r["cost"]["axis_per_claim"], r["accuracy"]) for r in placed if r["name"] in front)
    if len(points) > 1:
        ax.plot([p[0] for p in points], [p[1] for p in points], color="#C44E52", linestyle="--", linewidth=1,
                label="Pareto front")
        ax.legend(fontsize="small", loc="lower right")
    ax.set_ylim(-0.02, 1.02)
    widest = max((r["cost"]["axis_per_claim"] for r in placed), default=0.0)
    ax.set_xlim(0, widest * 1.2 if widest > 0 else 1)  # room for the names of the costliest runs
    ax.set_xlabel(AXIS_LABEL[axis])
    ax.set_ylabel("accuracy (exact match)")
    ax.set_title("Cost vs accuracy, 95% bootstrap CI\nPareto front: " + (", ".join(front) or "none"),
                 fontsize="medium")
    return _save(fig, output, "cost_vs_accuracy")


def paired_differences(data: dict[str, Any], output: Path) -> list[Path]:
    """accuracy(A) - accuracy(B) of every pair with its paired bootstrap interval and McNemar's p."""
    pairs = data["pairs"]
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * len(pairs) + 1.6))
    shown = _shown_names(sorted({name for p in pairs for name in (p["a"], p["b"])}))
    for row, pair in enumerate(pairs):
        diff = pair["difference"]
        lo, hi = pair["ci"]
        if not all(_finite(v) for v in (diff, lo, hi)):
            continue
        ax.errorbar([diff], [row], xerr=[[diff - lo], [hi - diff]], fmt="o", color="#4C72B0", capsize=4)
        ax.annotate(f"p={pair['mcnemar_p']:.3g}", (hi, row), textcoords="offset points", xytext=(6, -3),
                    fontsize="x-small")
    ax.axvline(0, color="grey", linewidth=1)
    ax.set_yticks(range(len(pairs)), [f"{shown[p['a']]} - {shown[p['b']]}" for p in pairs], fontsize="small")
    ax.set_ylim(-0.7, len(pairs) - 0.3)
    ax.invert_yaxis()
    ax.set_xlim(-1.05, 1.25)
    ax.set_xlabel("accuracy difference, 95% paired bootstrap CI (McNemar exact p)")
    ax.set_title("Paired differences", fontsize="medium")
    return _save(fig, output, "paired_differences")


def write_all(data: dict[str, Any], output: Path) -> list[Path]:
    return [*cost_vs_accuracy(data, output), *paired_differences(data, output)]
