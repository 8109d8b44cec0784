"""CLI commands of the evaluation harness: ``eval`` and ``report`` (``datasets`` is cli/datasets.py,
``methods`` lives in the main CLI). Heavy imports happen inside the commands so ``factdebate --help`` stays fast."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from factdebate.cli import exits
from factdebate.cli.options import (
    ConfigFlag,
    DeviationsFlag,
    TraceFlag,
    TraceTextFlag,
    warn_unread,
    with_option_flags,
    with_trace_text,
)
from factdebate.scale.options import ExecutorFlag, RayAddressFlag, WorkersFlag
from factdebate.util.errors import InputError

Opt = typer.Option


def _concurrency() -> object:
    from factdebate.settings.model import Settings

    return Settings.model_fields["concurrency"].default


@with_option_flags(skip={"method", "concurrency"})
def eval_command(
    method: Annotated[str | None, Opt(help="Method (see `factdebate methods`); default: the config's (--config, "
                                      "FACTDEBATE_METHOD), else tool-mad. Several, comma-separated: each on the "
                                      "same draw in OUTPUT/<method>/, then compared (OUTPUT/compare.md).")] = None,
    dataset: Annotated[str | None, Opt("--dataset", "-d", help="Built-in or Hub name, or "
                                                               "FORMAT:PATH (see `factdebate datasets`).")] = None,
    output: Annotated[Path | None, Opt("--output", "-o", help="Run directory (grid: parent directory).")] = None,
    limit: Annotated[int | None, Opt(min=1, help="Evaluate this many samples: the first after a seeded shuffle "
                                     "(with --file-order, the file's first).")] = None,
    seed: Annotated[int | None, Opt(min=0, help="Shuffle and bootstrap seed (default 0).")] = None,
    file_order: Annotated[bool, Opt("--file-order", help="Keep the dataset file's order: no shuffle, so --limit "
                                    "takes the file's first samples (samples are otherwise shuffled with --seed). "
                                    "The order a method that learns across claims saw in its paper (MERMAID's "
                                    "memory).")] = False,
    concurrency: Annotated[int | None, Opt(min=1, max=1024, help="Samples evaluated at once (default: the "
                                           f"settings' concurrency, {_concurrency()}).")] = None,
    dry_run: Annotated[bool, Opt("--dry-run", help="Print samples and estimated cost; call nothing.")] = False,
    strict: Annotated[bool, Opt("--strict", help="Refuse a dataset file with records the loader must skip.")] = False,
    grid: Annotated[Path | None, Opt(help="YAML grid of runs (ablations, baselines).")] = None,
    config: ConfigFlag = None,
    trace: TraceFlag = None,
    trace_text: TraceTextFlag = False,
    executor: ExecutorFlag = None,
    ray_address: RayAddressFlag = None,
    workers: WorkersFlag = None,
    deviations: DeviationsFlag = False,
    *,
    options: dict[str, Any],
) -> None:
    """Evaluate a method on a dataset: results.jsonl, summary.json and summary.md in --output (resumable)."""
    if output is None:
        raise InputError("give --output DIR: the run directory (it also makes the run resumable)")
    if trace_text and executor == "ray":  # its workers' calls would come without their text
        raise InputError("--trace-text records the text of model calls run in this process: leave out "
                         "--executor ray (or drop --trace-text)")
    with with_trace_text(trace, trace_text):  # as verify's: the text of each model call in the trace
        _evaluate(method, dataset, output, limit, seed, file_order, concurrency, dry_run, strict, grid, config,
                  trace, (executor, ray_address, workers), options, every_deviation=deviations)


def _evaluate(method: str | None, dataset: str | None, output: Path, limit: int | None, seed: int | None,
              file_order: bool, concurrency: int | None, dry_run: bool, strict: bool, grid: Path | None,
              config: Path | None, trace: Path | None, scale: tuple[str | None, str | None, int | None],
              options: dict[str, Any], *, every_deviation: bool = False) -> None:
    executor, ray_address, workers = scale
    order = "file" if file_order else "shuffled"
    if method is not None and "," in method:
        if grid is not None:
            raise InputError("give either --grid or several --method names, not both")
        _several(method, dataset, output, options, limit, seed or 0, concurrency, dry_run, config, trace, strict,
                 (executor, ray_address, workers), order, every_deviation=every_deviation)
        return
    if grid is not None:
        from factdebate.eval.grid import load_grid

        spec = load_grid(grid)
        runs: list[tuple[Path, str | None, dict[str, Any], str]] = [
            (output / run.name, run.method, {**run.options, **options}, run.name) for run in spec.runs]
        dataset = dataset or spec.dataset
        limit = limit if limit is not None else spec.limit
        seed = seed if seed is not None else spec.seed
    else:
        runs = [(output, method, options, output.name)]  # None: the method the settings name
    if not dataset:
        raise InputError("give --dataset (a built-in or Hub name, or FORMAT:PATH; see `factdebate datasets`)")
    errored = 0
    for directory, run_method, run_options, name in runs:
        errored += _run_one(directory, run_method, run_options, name, dataset, limit, seed or 0, concurrency,
                            dry_run, config, trace, strict, scale=(executor, ray_address, workers), order=order,
                            warn=grid is None,  # a grid's flags are meant for some of its runs only
                            every_deviation=every_deviation)
    if errored:
        raise typer.Exit(exits.SOME_FAILED)


def _several(methods_flag: str, dataset: str | None, output: Path, options: dict[str, Any], limit: int | None,
             seed: int, concurrency: int | None, dry_run: bool, config: Path | None, trace: Path | None,
             strict: bool, scale: tuple[str | None, str | None, int | None], order: str = "shuffled", *,
             every_deviation: bool = False) -> None:
    """Several methods on one draw, each in OUTPUT/<method>/, then their comparison in OUTPUT."""
    from factdebate.core.pathcheck import output_folder
    from factdebate.eval.datasets import select
    from factdebate.eval.datasets.loader import load_dataset
    from factdebate.eval.multi_method import parse_methods, route_options

    methods = parse_methods(methods_flag)
    if len(methods) < 2:
        raise InputError(f"--method {methods_flag}: name two or more methods to compare them, or one without a comma")
    if not dataset:
        raise InputError("give --dataset (a built-in or Hub name, or FORMAT:PATH; see `factdebate datasets`)")
    output_folder(output, "--output")  # a file: one line now, not after the first method's run
    routed, shared = route_options(options, methods)
    loaded = load_dataset(dataset, strict=strict)
    drawn = (loaded, select(loaded.samples, limit, seed, shuffle=order == "shuffled"))  # one draw for every method
    # Every method's settings, plan and resume check before the first one runs: a bad value for the last
    # method must not come after the first has spent its model calls.
    plans = [_prepare(output / name, name, routed[name], name, dataset, limit, seed, config, strict, scale=scale,
                      drawn=drawn, order=order) for name in methods]
    typer.echo(f"{len(methods)} methods on the same {len(drawn[1])} samples (seed {seed}); shared options: "
               + (", ".join(f"--{name.replace('_', '-')}" for name in shared) or "none given"), err=True)
    errored = 0
    for plan in plans:
        errored += _run_plan(plan, concurrency, dry_run, trace, every_deviation=every_deviation)
    if not dry_run:
        from factdebate.eval.compare import compare_runs

        # The draw's seed is the bootstrap's too, as in each run's summary: the intervals match it.
        for path in compare_runs([output / name for name in methods], output, seed=seed, shared_options=shared):
            typer.echo(str(path))
    if errored:
        raise typer.Exit(exits.SOME_FAILED)


def _run_one(directory: Path, method: str | None, options: dict[str, Any], name: str, dataset: str, limit: int | None,
             seed: int, concurrency: int | None, dry_run: bool, config: Path | None, trace: Path | None,
             strict: bool = False, scale: tuple[str | None, str | None, int | None] = (None, None, None),
             drawn: tuple[Any, list[Any]] | None = None, order: str = "shuffled", warn: bool = False,
             every_deviation: bool = False) -> int:
    """Runs (or estimates) one run; the count of samples in error. ``drawn``: a shared dataset and draw."""
    plan = _prepare(directory, method, options, name, dataset, limit, seed, config, strict, scale=scale, drawn=drawn,
                    order=order, warn=warn)
    return _run_plan(plan, concurrency, dry_run, trace, every_deviation=every_deviation)


def _prepare(directory: Path, method: str | None, options: dict[str, Any], name: str, dataset: str,
             limit: int | None, seed: int, config: Path | None, strict: bool = False,
             scale: tuple[str | None, str | None, int | None] = (None, None, None),
             drawn: tuple[Any, list[Any]] | None = None, order: str = "shuffled", warn: bool = False) -> Any:
    """One run's plan, with every check that needs no model call done."""
    from factdebate.core.pathcheck import output_folder
    from factdebate.eval.runner import check_resume, make_plan
    from factdebate.methods import Method
    from factdebate.scale.options import with_scale
    from factdebate.settings.load import settings_from

    output_folder(directory, "--output")
    settings = with_scale(settings_from({**options, **({"method": method} if method else {})}, config), *scale)
    Method.named(settings.method)  # an unknown method fails before the dataset is read
    if warn:
        warn_unread(options, settings.method, "eval")
    if drawn is None:
        plan = make_plan(settings, dataset, directory, limit=limit, seed=seed, name=name, options=options,
                         strict=strict, order=order)
    else:
        plan = make_plan(settings, drawn[0], directory, limit=limit, seed=seed, name=name, options=options,
                         samples=drawn[1], order=order)
    Method.named(settings.method).check(settings)
    check_resume(plan)
    return plan


def _run_plan(plan: Any, concurrency: int | None, dry_run: bool, trace: Path | None, *,
              every_deviation: bool = False) -> int:
    """Runs (or estimates) a prepared run, then prints its paper deviations; the count of samples in error."""
    from factdebate.core.deviations import Deviation
    from factdebate.eval.report.reply_counts import lost_warning, short_text
    from factdebate.eval.report.summary import RESULTS, base_rate_warning, fmt
    from factdebate.run.batch import finished_ids, in_order_note

    name, settings, directory = plan.name, plan.settings, plan.output
    typer.echo(f"{name}: {plan.dataset.load_report()}", err=True)
    info = plan.info()
    differences = [Deviation.model_validate(d) for d in info["deviations"]]
    for deviation in differences:
        if deviation.key == "tools_homogeneous":  # the papers' premise is gone: say so before the run
            typer.echo(f"{name}: {deviation.line()}", err=True)
    asked = concurrency if concurrency is not None else (
        settings.concurrency if "concurrency" in settings.model_fields_set else None)
    if note := in_order_note(settings, asked):
        typer.echo(f"{name}: {note}", err=True)
    if dry_run:
        from factdebate.eval.estimate import estimate

        est = estimate(plan, finished_ids(directory / RESULTS))
        typer.echo(f"{name}: {settings.method} on {plan.dataset.spec} ({plan.dataset.answer_format}, labels "
                   f"{', '.join(plan.dataset.labels)})")
        for line in est.lines():
            typer.echo(f"  {line}")
        _say_differences(name, differences, every_deviation)
        return 0
    from factdebate.run.foreground import prepare_in_foreground

    prepare_in_foreground(settings)  # a dead model server: one line in seconds, before any build
    summary = asyncio.run(_execute(plan, concurrency, trace))
    m = summary["metrics"]
    lo, hi = m["ci"]["accuracy"]
    typer.echo(f"{name}: accuracy {fmt(m['accuracy'])} [{fmt(lo)}, {fmt(hi)}], macro-F1 {fmt(m['macro_f1'])}, "
               f"{len(m['unparsed'])} unparsed, {len(m['errored'])} errored -> {directory / 'summary.md'}", err=True)
    typer.echo(f"{name}: {short_text(m.get('replies') or {})}", err=True)
    if warning := base_rate_warning(m):
        typer.echo(f"{name}: warning: {warning}", err=True)
    if warning := lost_warning(m.get("replies") or {}):
        typer.echo(f"{name}: warning: {warning}", err=True)
    _say_differences(name, differences, every_deviation)
    return len(m["errored"])


def _say_differences(name: str, differences: list[Any], every: bool) -> None:
    """A run's paper differences on stderr, verify's way: each, or past three one line with their count."""
    from factdebate.cli.render import deviation_lines

    for line in deviation_lines(differences, every=every, also="as run.json and summary.md do"):
        typer.echo(f"{name}: {line}", err=True)


async def _execute(plan: Any, concurrency: int | None, trace: Path | None) -> dict[str, Any]:
    from factdebate.core.runtime import trace_file
    from factdebate.eval.runner import execute

    with trace_file(trace) as sinks:
        if plan.settings.scale.executor == "ray":
            from factdebate.eval.runner import check_resume
            from factdebate.llm.transcript import transcript_chars

            if transcript_chars():  # ray from the config file (the flag is refused up front)
                raise InputError("--trace-text records the text of model calls run in this process: leave out "
                                 "scale.executor ray (or drop --trace-text)")
            from factdebate.methods.resources import RunScope
            from factdebate.scale.pool import RayPool, slim_plan

            check_resume(plan)  # before starting any worker
            async with RayPool(plan.settings, trace=bool(sinks), context=slim_plan(plan),
                               run=RunScope(plan.output)) as pool:
                return await execute(plan, concurrency=concurrency, sinks=sinks, executor=pool)
        return await execute(plan, concurrency=concurrency, sinks=sinks)


def report_command(
    runs: Annotated[list[Path], typer.Argument(help="Run directories (each with summary.json).")],
    output: Annotated[Path, Opt("--output", "-o", help="Directory for report.md and the plots.")],
) -> None:
    """Compare runs side by side: a markdown table and PNG plots."""
    from factdebate.eval.report.side_by_side import build_report

    written = build_report(runs, output)
    for path in written:
        typer.echo(str(path))


def register_eval(app: typer.Typer) -> None:
    from factdebate.cli.datasets import app as datasets_app

    app.command("eval")(eval_command)
    app.command("report")(report_command)
    from factdebate.cli.compare import compare_command

    app.command("compare")(compare_command)
    app.add_typer(datasets_app, name="datasets")
