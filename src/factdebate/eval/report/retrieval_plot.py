"""The retrieval evaluation's figure: recall@k of each search with its Wilson 95% interval, one line per
search over k = 1, 3, 10, written as PNG without the date and version matplotlib would stamp into it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def recall_plot(summary: dict[str, Any], target: Path) -> Path:
    ks = summary["ks"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for offset, row in enumerate(summary["searches"]):
        rates = [row["recall"][str(k)] for k in ks]
        values = [r["value"] for r in rates]
        low = [max(0.0, v - r["ci"][0]) for v, r in zip(values, rates, strict=True)]
        high = [max(0.0, r["ci"][1] - v) for v, r in zip(values, rates, strict=True)]
        xs = [x * (1 + 0.03 * (offset - 1)) for x in ks]  # side by side, so the intervals do not overlap
        ax.errorbar(xs, values, yerr=[low, high], marker="o", capsize=3, label=row["search"])
    ax.set_xscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("k (passages returned)")
    ax.set_ylabel("recall@k (a gold evidence set found whole)")
    ax.set_title(f"{summary.get('dataset', '')}: {summary['claims']} claims, corpus {summary.get('corpus', '')}",
                 fontsize="medium")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    fig.savefig(target, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return target
