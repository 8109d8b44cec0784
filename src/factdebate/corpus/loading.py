"""Read a user's document collection from JSONL, JSON, CSV or Parquet into :class:`Document` objects.

Each field accepts a few common spellings (``_id``, ``extract``, ``url``...). A bad row stops the load with the
file and line, rather than quietly shrinking the evidence."""

from __future__ import annotations

import csv
import gzip
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from factdebate.core.pathcheck import input_file
from factdebate.core.types import Document
from factdebate.util.errors import InputError, MissingDependencyError

ID_FIELDS = ("id", "_id", "doc_id", "docid")
TITLE_FIELDS = ("title", "name")
TEXT_FIELDS = ("text", "content", "body", "extract", "passage", "contents")
SOURCE_FIELDS = ("source", "url")

FORMATS = ("jsonl", "json", "csv", "tsv", "parquet")
_SUFFIXES = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def detect_format(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    fmt = _SUFFIXES.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        raise InputError(
            f"{path}: unknown document format (expected one of .jsonl, .json, .csv, .tsv, .parquet, "
            "optionally gzipped); pass the format explicitly"
        )
    return fmt


def _first(row: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        value = row.get(name)
        if value is not None and value != "":
            return value
    return None


def row_to_document(row: Any, where: str, fallback_id: str) -> Document:
    """One record to a Document; ``where`` (``file:line``) goes into every error message."""
    if not isinstance(row, Mapping):
        raise InputError(f"{where}: expected an object with id/title/text fields, got {type(row).__name__}")
    text = _first(row, TEXT_FIELDS)
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{where}: no text (looked for a non-empty string in {', '.join(TEXT_FIELDS)})")
    doc_id = _first(row, ID_FIELDS)
    if doc_id is None:
        doc_id = fallback_id  # stable across runs as long as the file does not change
    elif not isinstance(doc_id, str | int):
        raise InputError(f"{where}: id must be a string or an integer, got {type(doc_id).__name__}")
    title = _first(row, TITLE_FIELDS)
    source = _first(row, SOURCE_FIELDS)
    return Document(
        id=str(doc_id),
        title=str(title) if title is not None else "",
        text=text,
        source=str(source) if source is not None else "",
    )


def _open_text(path: Path) -> IO[str]:
    if path.suffix.lower() == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return path.open("r", encoding="utf-8", newline="")


def line_document(line: str, path: Path, lineno: int) -> Document:
    """Line ``lineno`` of a JSON lines file as a document (a whole file's and a shard's lines alike)."""
    where = f"{path}:{lineno}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: invalid JSON ({exc.msg})") from exc
    return row_to_document(row, where, f"{path.stem}:{lineno}")


def _jsonl(path: Path) -> Iterator[Document]:
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            if line.strip():
                yield line_document(line, path, lineno)


def _json(path: Path) -> Iterator[Document]:
    with _open_text(path) as fh:
        try:
            data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from exc
    if isinstance(data, Mapping):
        # Either {"documents": [...]} or a mapping key -> record (the key doubles as the id).
        inner = next((data[k] for k in ("documents", "docs", "data") if isinstance(data.get(k), list)), None)
        if inner is None:
            for key, row in data.items():
                where = f"{path}: record {key!r}"
                yield row_to_document(row, where, str(key))
            return
        data = inner
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of documents, got {type(data).__name__}")
    for n, row in enumerate(data):
        yield row_to_document(row, f"{path}: item {n}", f"{path.stem}:{n}")


def _csv(path: Path, delimiter: str) -> Iterator[Document]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # article-length cells exceed the 128 KiB default
    with _open_text(path) as fh:
        reader = csv.DictReader(fh, delimiter=delimiter)
        if not reader.fieldnames or not set(reader.fieldnames) & set(TEXT_FIELDS):
            raise InputError(f"{path}:1: header has no text column (expected one of {', '.join(TEXT_FIELDS)})")
        try:
            for row in reader:
                where = f"{path}:{reader.line_num}"
                if None in row:
                    raise InputError(f"{where}: more cells than header columns")
                yield row_to_document(row, where, f"{path.stem}:{reader.line_num}")
        except csv.Error as exc:
            raise InputError(f"{path}:{reader.line_num}: malformed CSV ({exc})") from exc


def _parquet(path: Path) -> Iterator[Document]:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingDependencyError("pyarrow", "retrieval") from exc
    try:
        parquet = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a damaged file
        raise InputError(f"{path}: not a readable Parquet file ({exc})") from exc
    n = 0
    for batch in parquet.iter_batches(batch_size=4096):
        for row in batch.to_pylist():
            yield row_to_document(row, f"{path}: row {n}", f"{path.stem}:{n}")
            n += 1


def load_documents(path: str | Path, fmt: str | None = None) -> Iterator[Document]:
    """Stream the documents of one file; ``fmt`` overrides the format guessed from the suffix."""
    path = input_file(path)
    if fmt is None:
        fmt = detect_format(path)
    elif fmt not in FORMATS:
        raise InputError(f"{path}: unknown document format {fmt!r} (expected one of {', '.join(FORMATS)})")
    if fmt == "jsonl":
        docs = _jsonl(path)
    elif fmt == "json":
        docs = _json(path)
    elif fmt in ("csv", "tsv"):
        docs = _csv(path, "\t" if fmt == "tsv" else ",")
    else:
        docs = _parquet(path)
    return _guard(path, docs)


def _guard(path: Path, docs: Iterator[Document]) -> Iterator[Document]:
    """Turn decoding and I/O failures halfway through a file into a user-facing error."""
    try:
        yield from docs
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from exc
    except (OSError, EOFError) as exc:  # gzip raises these for a truncated or non-gzip file
        raise InputError(f"{path}: could not read ({exc})") from exc
