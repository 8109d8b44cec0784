"""What ``factdebate index SOURCE`` reads: one place that turns SOURCE into a list of document files.

SOURCE is, in this order: ``hf:owner/name[/folder]`` (a Hugging Face Hub dataset's Parquet files, downloaded
and verified into ``<data dir>/corpora/hf-owner-name[-folder]-<hash>/``, or the folder ``--corpus`` names,
first, as ``corpus fetch`` does), a file or a folder of files, or the bare name of a corpus downloaded into the
data folder (``<data dir>/corpora/<name>/``, written by ``factdebate corpus fetch`` with its Parquet files). A folder
contributes every JSONL, CSV, TSV and Parquet file under it (gzipped too), in name order; a plain
``.json`` file is read only when named on its own, so a folder's ``manifest.json`` is never taken for
documents. Both executors (one process, or Ray) read what this returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from factdebate.core.errors import ConfigError, InputError
from factdebate.corpus.folders import MANIFEST, corpora_dir
from factdebate.corpus.hub_spec import parse_hub_spec
from factdebate.corpus.loading import detect_format
from factdebate.corpus.names import check_corpus_name

HUB_PREFIX = "hf:"
_FOLDER_FORMATS = ("jsonl", "csv", "tsv", "parquet")


@dataclass(frozen=True)
class SourceFile:
    path: Path
    format: str  # one of corpus.loading.FORMATS


@dataclass(frozen=True)
class Source:
    """The files of one SOURCE; ``name`` is the downloaded corpus's name when SOURCE named one (the index's
    corpus name then defaults to it), else ``None``."""

    given: str
    files: tuple[SourceFile, ...]
    name: str | None = None


def fetched_corpora() -> list[str]:
    """The corpora ``corpus fetch`` (or an ``hf:`` source) downloaded into the data folder."""
    folder = corpora_dir()
    return sorted(p.name for p in folder.iterdir() if (p / MANIFEST).is_file()) if folder.is_dir() else []


def resolve_source(source: str | Path, *, notify: Callable[[str], None] | None = None,
                   corpus: str | None = None) -> Source:
    """The files behind SOURCE, or one clear error saying what SOURCE was taken for; ``notify`` hears the
    progress of an ``hf:`` source's download, and ``corpus`` (``--corpus``) names the folder it goes to."""
    given = str(source)
    if given.startswith(HUB_PREFIX):
        return _hub_source(given[len(HUB_PREFIX):], notify, corpus)
    path = Path(given)
    if path.is_file():
        return Source(given, (SourceFile(path, detect_format(path)),))
    if path.is_dir():
        return Source(given, _folder_files(path, given))
    named = corpora_dir() / given
    if _is_name(given) and named.is_dir():
        return Source(given, _folder_files(named, f"the downloaded corpus '{given}' ({named})"), name=given)
    raise InputError(f"{given}: no such file or folder, and no downloaded corpus of that name in {corpora_dir()} "
                     "(give a JSONL, CSV or Parquet file, a folder of them, or a corpus name)")


def _hub_source(spec: str, notify: Callable[[str], None] | None, corpus: str | None) -> Source:
    """A Hub dataset by repo id (``owner/name``, optionally ``/folder`` inside it): its Parquet files are
    fetched and verified into the data folder like a ``corpus fetch`` (resumable, then read offline), and
    indexed from there under ``corpus``, by default ``hf-owner-name[-folder]-<hash>`` (corpus/hub_spec.py)."""
    from factdebate.corpus.fetch import fetch_repo  # only when asked: it brings huggingface_hub

    repo, folder = parse_hub_spec(spec)  # before any call to the Hub
    report = fetch_repo(repo, folder, notify=notify, name=corpus)
    return Source(f"{HUB_PREFIX}{spec}", _folder_files(report.folder, f"hf:{spec} ({report.folder})"),
                  name=report.name)


def _is_name(given: str) -> bool:
    try:
        check_corpus_name(given)
    except ConfigError:
        return False
    return "/" not in given


def _folder_files(folder: Path, what: str) -> tuple[SourceFile, ...]:
    found: list[SourceFile] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        try:
            fmt = detect_format(path)
        except InputError:
            continue  # a README, a manifest, a checksum file: not documents
        if fmt in _FOLDER_FORMATS:
            found.append(SourceFile(path, fmt))
    if not found:
        raise InputError(f"{what} holds no JSONL, CSV, TSV or Parquet files")
    return tuple(found)
