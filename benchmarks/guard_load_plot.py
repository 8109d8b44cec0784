"""The picture of one ``benchmarks/guard_load.py --plot FILE`` run: how much of the capacity each guard answered
against how late its first tokens came, beside the unshed guard's own curve (``--curve``), with the goal's corner
drawn in. Read it as: a point inside the shaded corner met the goal; the unshed curve's points say what any
admission could reach within the bound on that machine."""

from __future__ import annotations

from pathlib import Path

GOAL_SHARE = 0.8  # of the capacity, answered and checked
GOAL_RATIO = 1.2  # the admitted p99 first token over a lone stream's


def plot(curve: list[tuple[int, float, float]], guards: list[tuple[str, float, float]], offered: float,
         title: str, path: Path) -> Path:
    """``curve``: (streams in flight, replies a second over the capacity, p99 over a lone stream's) of the
    unshed guard's closed runs; ``guards``: (name, goodput over the capacity, p99 over a lone stream's) of each
    shedding guard's open run at ``offered`` times the capacity. Written as a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")  # no display: a file
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7.5, 5))
    top = max([GOAL_RATIO + 0.3, *(ratio for *_, ratio in curve), *(ratio for *_, ratio in guards)]) * 1.05
    right = max([1.2, *(share for _, share, _ in curve), *(share for _, share, _ in guards)]) * 1.05
    axes.fill_between([GOAL_SHARE, right], 0.9, GOAL_RATIO, color="tab:green", alpha=0.12,
                      label=f"the goal: at least {GOAL_SHARE:g} of the capacity within {GOAL_RATIO:g}×")
    ordered = sorted(curve)  # by streams in flight
    axes.plot([share for _, share, _ in ordered], [ratio for *_, ratio in ordered], "o-", color="tab:gray",
              label="no shedding, N streams kept in flight")
    for streams, share, ratio in ordered:
        axes.annotate(str(streams), (share, ratio), textcoords="offset points", xytext=(6, -10), fontsize=8)
    for name, share, ratio in guards:
        axes.plot([share], [ratio], "D", markersize=8, label=f"{name}, random arrivals at {offered:g}× the capacity")
    axes.set_xlim(0, right)
    axes.set_ylim(0.9, top)
    axes.set_xlabel("replies answered and checked a second, over the capacity")
    axes.set_ylabel("p99 first token over a lone stream's")
    axes.set_title(title, fontsize=10)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
