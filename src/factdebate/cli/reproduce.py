"""``factdebate reproduce toolmad|mermaid|dpd``: a paper's main experiment with your model, side by side with
the paper's figures; ``--from RUN_DIR`` runs a recorded run again and compares. Thin: the work is in
``factdebate.eval.reproduce`` (docs/reproduce.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from factdebate.cli import exits
from factdebate.cli.options import ConfigFlag, with_option_flags
from factdebate.core.pathcheck import output_folder
from factdebate.util.errors import InputError

Opt = typer.Option


def _names(value: str | None) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


@with_option_flags(skip={"method"})
def reproduce_command(
    paper: Annotated[str | None, typer.Argument(help="toolmad, toolmad-draft, mermaid or dpd.")] = None,
    output: Annotated[Path | None, Opt("--output", "-o", help="Folder of the reproduction: one run folder per run "
                                                              "and dataset, reproduce.json, report.md, plots.")] = None,
    table: Annotated[str | None, Opt(help="Tables to run, comma-separated (default: the paper's main "
                                          "experiment; a name it does not know is answered with the list).")] = None,
    rows: Annotated[str | None, Opt(help="Only these runs of the tables, comma-separated "
                                         "(e.g. tool-mad,madke).")] = None,
    datasets: Annotated[str | None, Opt(help="Only these datasets of the tables, comma-separated (e.g. "
                                             "halueval-dialogue; the names --dry-run lists).")] = None,
    paper_model: Annotated[str | None, Opt(help="Whose figures to show: one of the paper's backbones "
                                                "(default: its main one).")] = None,
    data: Annotated[list[str] | None, Opt("--data", help="DATASET=FORMAT:PATH: where a paper dataset is, "
                                                         "e.g. fever=fever:dev.jsonl (repeatable).")] = None,
    limit: Annotated[int | None, Opt(min=1, help="Only the first N samples of each run's draw (a quick "
                                                 "version).")] = None,
    seed: Annotated[int, Opt(help="Seed of the draws, orders and bootstrap intervals.")] = 0,
    dry_run: Annotated[bool, Opt("--dry-run", help="Print the plan, the datasets and the estimated calls and "
                                                   "tokens; run nothing.")] = False,
    from_run: Annotated[Path | None, Opt("--from", help="Run a recorded run folder (eval or reproduce) again "
                                                        "into --output and compare the verdicts.")] = None,
    config: ConfigFlag = None,
    *,
    options: dict[str, Any],
) -> None:
    """Run a paper's experiment with your model and compare with the paper's figures (resumable)."""
    from factdebate.eval.reproduce.cells import parse_data

    if output is None:
        raise InputError("give --output DIR: the reproduction's folder (it also makes it resumable)")
    output_folder(output, "--output")  # a file there: one line now, not mkdir's error after the planning
    sources = parse_data(data or [])
    if from_run is not None:
        if paper is not None:
            raise InputError("give either a paper or --from RUN_DIR, not both")
        _rerun(from_run, output, options, sources)
        return
    if paper is None:
        raise InputError("name a paper: factdebate reproduce toolmad|toolmad-draft|mermaid|dpd --output DIR "
                         "(or --from RUN_DIR)")
    request = _request(paper, output, table, rows, paper_model, sources, limit, seed, options, config)
    request.datasets = _chosen_datasets(request, datasets)
    if not dry_run:
        _check_keys(request)
    from factdebate.eval.reproduce.cells import plan_cells

    if dry_run:  # the plan from what is here: a dataset not downloaded yet says so, and nothing is fetched
        from factdebate.hub.fetch import hold_downloads

        with hold_downloads("reproduce --dry-run downloads nothing"):
            cells = plan_cells(request)
    else:
        cells = plan_cells(request)
    if dry_run:
        from factdebate.eval.reproduce.dryrun import dry_run_lines

        for line in dry_run_lines(request, cells):
            typer.echo(line)
        return
    _run(request, cells)


def _request(paper: str, output: Path, table: str | None, rows: str | None, paper_model: str | None,
             sources: dict[str, str], limit: int | None, seed: int, options: dict[str, Any],
             config: Path | None) -> Any:
    from factdebate.eval.reproduce.cells import Request
    from factdebate.eval.reproduce.spec import get_paper

    spec = get_paper(paper)
    tables = [spec.table(name) for name in _names(table) or spec.main]
    chosen = set(_names(rows)) or None
    if chosen is not None and (unknown := chosen - {r.run for t in tables for r in t.rows}):
        raise InputError(f"--rows: no run named {', '.join(sorted(unknown))} in "
                         f"{', '.join(t.name for t in tables)}; runs: "
                         f"{', '.join(sorted({r.run for t in tables for r in t.rows}))}")
    if paper_model is not None and paper_model not in spec.models:
        raise InputError(f"--paper-model {paper_model}: {spec.short} reports {', '.join(spec.models)}")
    unknown_data = set(sources) - set(spec.datasets) - {d.name for d in spec.datasets.values()}
    if unknown_data:
        raise InputError(f"--data: {spec.short} has no dataset {', '.join(sorted(unknown_data))}; its datasets: "
                         f"{', '.join(spec.datasets)}")
    return Request(spec, tables, output, limit, seed, sources, options, config, chosen, paper_model)


def _chosen_datasets(request: Any, datasets: str | None) -> set[str] | None:
    chosen = set(_names(datasets)) or None
    offered = {column for table in request.tables for column in table.columns}
    if chosen is not None and (unknown := chosen - offered):
        raise InputError(f"--datasets: no dataset {', '.join(sorted(unknown))} in "
                         f"{', '.join(t.name for t in request.tables)}; its datasets: {', '.join(sorted(offered))}")
    return chosen


def _run(request: Any, cells: list[Any]) -> None:
    from factdebate.eval.reproduce.execute import run_cells, write_manifest
    from factdebate.eval.reproduce.report import TINY, build_report, capable_note
    from factdebate.settings.load import settings_from

    say = lambda text: typer.echo(text, err=True)  # noqa: E731
    for cell in cells:
        if cell.status == "skipped":
            say(f"{cell.key}: skipped: {cell.reason}")
    if not any(cell.status == "planned" for cell in cells):
        raise InputError("nothing to run: no dataset of these tables is available here; supply them with "
                         "--data DATASET=FORMAT:PATH (see --dry-run)")
    settings = settings_from({**request.options, "method": request.paper.method}, request.config)
    write_manifest(request, cells, settings)
    run_cells(cells, say=say)
    write_manifest(request, cells, settings)
    from factdebate.eval.reproduce.execute import read_manifest

    recorded = read_manifest(request.output)
    written = build_report(request.output, recorded)
    from factdebate.eval.reproduce.report import backbone_mismatches

    for line in backbone_mismatches(request.output, recorded):
        say(f"warning: {line} (report.md marks the row; --paper-model picks whose figures are shown)")
    done = sum(cell.status == "done" for cell in cells)
    say(f"{done} run(s) done, {sum(c.status == 'skipped' for c in cells)} skipped, "
        f"{sum(c.status == 'failed' for c in cells)} failed -> {written[0]}")
    models = [settings.llm_for(role) for role in ("debater", "judge", "scorer")]
    if any(model.startswith(TINY) for model in models):
        say(capable_note(models).replace("**", "").replace("`", ""))  # only where the embedded or a scripted model ran
    if any(cell.status == "failed" or cell.errored for cell in cells):
        raise typer.Exit(exits.SOME_FAILED)


def _check_keys(request: Any) -> None:
    """A served model without its key: said once, before the datasets are read (exit 2)."""
    from factdebate.llm import make_backend
    from factdebate.settings.load import settings_from

    settings = settings_from({**request.options, "method": request.paper.method}, request.config)
    endpoint = settings.llm.base_urls[0] if settings.llm.base_urls else None
    for spec in sorted({settings.llm_for(role) for role in ("debater", "judge", "scorer")}):
        if spec.startswith("openai:"):
            make_backend(spec, base_url=endpoint)


def _rerun(original: Path, output: Path, options: dict[str, Any], sources: dict[str, str]) -> None:
    from factdebate.eval.report.summary import RUN
    from factdebate.eval.reproduce.execute import MANIFEST
    from factdebate.eval.reproduce.rerun import comparison_lines, rerun_one, rerun_reproduction

    say = lambda text: typer.echo(text, err=True)  # noqa: E731
    if (original / MANIFEST).exists():
        results = rerun_reproduction(original, output, options, sources, say=say)
    elif (original / RUN).exists():
        results = [rerun_one(original, output, options, sources, say=say)]
    else:
        raise InputError(f"{original} is not a run folder: it has neither {RUN} (eval) nor {MANIFEST} (reproduce)")
    for result in results:
        for line in comparison_lines(result):
            typer.echo(line)
    if not results:
        say(f"{original} holds no finished run to rerun")


def register_reproduce(app: typer.Typer) -> None:
    app.command("reproduce")(reproduce_command)
