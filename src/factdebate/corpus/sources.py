"""What ``factdebate index SOURCE`` reads: one place that turns SOURCE into a list of document files.

SOURCE is, in this order: ``hf:owner/name[/folder]`` (fetched as ``corpus fetch`` does), a file or folder, or
the name of a corpus in ``<data dir>/corpora/``. A folder gives every JSONL, CSV, TSV and Parquet file under it
(gzipped too) in name order; a ``.json`` file only when named on its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from factdebate.corpus.folders import corpora_dir
from factdebate.corpus.hub_spec import parse_hub_spec
from factdebate.corpus.loading import detect_format
from factdebate.corpus.names import check_corpus_name
from factdebate.util.errors import ConfigError, InputError

HUB_PREFIX = "hf:"
_FOLDER_FORMATS = ("jsonl", "csv", "tsv", "parquet")


@dataclass(frozen=True)
class SourceFile:
    path: Path
    format: str  # one of corpus.loading.FORMATS


@dataclass(frozen=True)
class Source:
    """The files of one SOURCE; ``name`` is the downloaded corpus's name when SOURCE named one."""

    given: str
    files: tuple[SourceFile, ...]
    name: str | None = None


def resolve_source(source: str | Path, *, notify: Callable[[str], None] | None = None,
                   corpus: str | None = None) -> Source:
    """The files behind SOURCE, or one error saying what it was taken for; ``notify`` hears a download's progress."""
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
    """A Hub dataset's Parquet files, fetched as ``corpus fetch`` does, indexed under ``corpus``."""
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
