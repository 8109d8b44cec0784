"""``factdebate corpus fetch``: public corpora (Wikipedia, PubMed) from the Hugging Face Hub into the
data folder, for ``factdebate index NAME`` to follow (docs/scale.md)."""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Fetch public corpora into the data folder.")
Opt = typer.Option


@app.command("fetch")
def fetch_command(
    name: Annotated[str, typer.Argument(help="wikipedia or pubmed.")],
    lang: Annotated[str | None, Opt(help="Wikipedia's language code (default en).")] = None,
    date: Annotated[str | None, Opt(help="Wikipedia dump date, YYYYMMDD (default 20231101).")] = None,
    limit_files: Annotated[int | None, Opt("--limit-files", min=1, help="Fetch only the first N files (a "
                                                                         "slice, for trials).")] = None,
) -> None:
    """Download a corpus's files into <data>/corpora/NAME/ (verified, resumable), then `factdebate index NAME`."""
    from factdebate.corpus.fetch import fetch_corpus

    def say(line: str) -> None:
        typer.echo(line, err=True)

    report = fetch_corpus(name, {"lang": lang, "date": date}, limit_files=limit_files, notify=say)
    of = f" of {report.available}" if report.available is not None else ""
    typer.echo(f"corpus '{report.name}': {report.files}{of} file(s), {report.rows} rows in {report.folder} "
               f"({report.fetched} fetched now, {report.skipped} already there and verified); "
               f"next: factdebate index {report.name}", err=True)


def register_corpus(root: typer.Typer) -> None:
    root.add_typer(app, name="corpus")
