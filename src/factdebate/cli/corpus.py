"""``factdebate corpus fetch``: public corpora (Wikipedia, PubMed) from the Hugging Face Hub into the
data folder, for ``factdebate index NAME`` to follow (docs/scale.md); ``factdebate corpus titles``: the
pages a corpus holds."""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Fetch public corpora into the data folder; list the pages a corpus holds.")
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


@app.command("titles")
def titles_command(
    name: Annotated[str, typer.Argument(help="The corpus: builtin, or a name given to factdebate index.")] = "builtin",
    ids: Annotated[bool, Opt("--ids", help="Each document's id and title, tab-separated (ids differ from "
                                            "titles in corpora indexed from files).")] = False,
) -> None:
    """List a corpus's pages, one title a line (stdout), and their count (stderr). The built-in corpus's are
    those its index holds: all 10,033, or the first retrieval.builtin_docs."""
    from factdebate.corpus.builtin import BUILTIN_CORPUS
    from factdebate.corpus.titles import corpus_pages
    from factdebate.settings.load import settings_from

    limit = settings_from({}, None).retrieval.builtin_docs if name == BUILTIN_CORPUS else None
    pages = corpus_pages(name, limit=limit)
    for doc_id, title in pages.items():
        typer.echo(f"{doc_id}\t{title}" if ids else title)
    typer.echo(f"corpus '{name}': {len(pages)} page(s)", err=True)


def register_corpus(root: typer.Typer) -> None:
    root.add_typer(app, name="corpus")
