"""``factdebate compare RUN_DIR... -o OUT``: runs of several methods on the same samples, paired (the
statistics live in eval/compare/__init__.py; this file only reads the flags)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from factdebate.util.errors import InputError

Opt = typer.Option


def compare_command(
    runs: Annotated[list[Path], typer.Argument(help="Run directories (each written by `factdebate eval`).")],
    output: Annotated[Path, Opt("--output", "-o", help="Directory for compare.md, compare.json and the plots.")],
    intersection: Annotated[bool, Opt("--intersection", help="Compare runs drawn differently on the samples they "
                                                             "share (the report says so); refused otherwise.")] = False,
    price: Annotated[list[str] | None, Opt("--price", help="MODEL=IN,OUT: dollars per million prompt and completion "
                                                          "tokens (repeatable); no dollars without it.")] = None,
    cost_axis: Annotated[str | None, Opt("--cost-axis", help="Cost of the cost-vs-accuracy plot and its Pareto "
                                                             "front: tokens, calls, seconds or dollars (default: "
                                                             "dollars when every run has a price, else tokens).")]
    = None,
    seed: Annotated[int, Opt(min=0, help="Bootstrap seed.")] = 0,
    resamples: Annotated[int, Opt(min=100, max=100_000, help="Bootstrap resamples.")] = 1000,
) -> None:
    """Which method should I use? Accuracy and macro-F1 with intervals, paired tests, cost per correct verdict."""
    from factdebate.eval.compare import COMPARE_JSON, COST_AXES, check_values, compare_runs
    from factdebate.eval.pricing import parse_prices

    check_values(output, seed=seed, resamples=resamples)  # -o FILE: one line, before any run folder is read

    if cost_axis is not None and cost_axis not in COST_AXES:
        raise InputError(f"--cost-axis {cost_axis!r}: use one of {', '.join(COST_AXES)}")
    prices = parse_prices(price or [])
    if cost_axis == "dollars" and not prices:
        raise InputError("--cost-axis dollars needs prices: give --price MODEL=IN,OUT")
    written = compare_runs(runs, output, intersection=intersection, seed=seed, resamples=resamples, prices=prices,
                           cost_axis=cost_axis, warn=lambda line: typer.echo(f"warning: {line}", err=True))
    verdict = json.loads((output / COMPARE_JSON).read_text(encoding="utf-8")).get("verdict")
    if verdict:
        typer.echo(verdict)  # the answer first (compare.md says it again, with its figures), then the files
    for path in written:
        typer.echo(str(path))
