"""What ``factdebate index SOURCE`` reads: a file, a folder of files, or the name of a corpus fetched into
the data folder (``factdebate corpus fetch``), whose files lie in ``<data>/corpora/<name>/``.

A path that exists wins over a corpus of the same name, so a local folder is never shadowed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from factdebate.core.errors import ConfigError, InputError
from factdebate.core.types import Document
from factdebate.corpus.loading import detect_format, load_documents
from factdebate.corpus.names import check_corpus_name
from factdebate.util.paths import data_dir

MANIFEST = "manifest.json"  # a fetched corpus's record of its files (corpus/fetch.py), not a document file


def corpora_dir() -> Path:
    return data_dir() / "corpora"


def fetched_corpora() -> list[str]:
    folder = corpora_dir()
    return sorted(p.name for p in folder.iterdir() if (p / MANIFEST).is_file()) if folder.is_dir() else []


def files_in(folder: Path) -> list[Path]:
    """The document files directly in ``folder``, in name order (hidden files and the manifest aside)."""
    found = []
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name.startswith(".") or path.name == MANIFEST:
            continue
        try:
            detect_format(path)
        except InputError:
            continue
        found.append(path)
    return found


def _is_name(text: str) -> bool:
    try:
        check_corpus_name(text)
    except ConfigError:
        return False
    return True


def resolve_source(source: str | Path) -> tuple[list[Path], str | None]:
    """The files to index, and the fetched corpus's name when ``source`` named one (else None)."""
    path = Path(source).expanduser()
    name = str(source)
    if not path.exists() and _is_name(name) and (corpora_dir() / name).is_dir():
        path = corpora_dir() / name
        files = files_in(path)
        if not files:
            raise InputError(f"the fetched corpus '{name}' ({path}) holds no document files yet: run "
                             "`factdebate corpus fetch` again to finish it")
        return files, name
    if path.is_file():
        return [path], None
    if path.is_dir():
        files = files_in(path)
        if not files:
            raise InputError(f"{path}: no JSONL, JSON, CSV or Parquet files in this folder")
        return files, None
    fetched = ", ".join(fetched_corpora()) or "none yet"
    raise InputError(f"{source}: no such file or folder, nor a fetched corpus (fetched: {fetched}; e.g. "
                     "`factdebate corpus fetch wikipedia --lang en`)")


def load_sources(files: list[Path]) -> Iterator[Document]:
    for file in files:
        yield from load_documents(file)
