"""``factdebate datasets``: what ``--dataset`` accepts (built-in names, Hub names, FORMAT:PATH), and
``datasets fetch NAME`` to download and verify a public one ahead of a run (e.g. before going offline)."""

from __future__ import annotations

from typing import Annotated

import typer

from factdebate.util.errors import InputError

app = typer.Typer(add_completion=False, help="List the datasets --dataset accepts; fetch the public ones.")


@app.callback(invoke_without_command=True)
def datasets_command(ctx: typer.Context) -> None:
    """List the built-in datasets, those fetched from the Hugging Face Hub by name (and whether each is
    cached here), and the file formats --dataset accepts as FORMAT:PATH."""
    if ctx.invoked_subcommand is not None:
        return
    from factdebate.eval.datasets.loader import describe

    for spec, description in describe():
        typer.echo(f"{spec:24} {description}")


@app.command("fetch")
def fetch_command(
    names: Annotated[list[str], typer.Argument(help="Dataset names (see `factdebate datasets`).")],
    update: Annotated[bool, typer.Option("--update", help="Forget the recorded commit and checksum, and fetch "
                                                          "the registry's revision afresh.")] = False,
) -> None:
    """Download, verify and convert public datasets now, so runs later need no network."""
    from factdebate.eval.datasets import hub_datasets

    known = hub_datasets.fetchable()
    unknown = [name for name in names if name not in known]
    if unknown:
        raise InputError(f"not fetchable: {', '.join(unknown)}; fetchable: {', '.join(sorted(known))}")
    for name in names:
        entry = known[name]
        path, fetched = hub_datasets.fetch(entry, update=update)
        sums = ", ".join(f"{got.sha256[:12]}… ({got.checked_against})" for got in fetched)
        typer.echo(f"{name}: {entry.repo}@{fetched[0].commit[:12]}, sha256 {sums} -> {path}")
