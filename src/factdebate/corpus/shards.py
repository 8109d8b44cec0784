"""Shards of a document source: the unit a distributed index build reads, embeds, writes and records as done.

A shard is a range of one file, planned the same way on every run: Parquet row ranges, plain JSONL line
ranges; CSV, TSV, JSON arrays and gzipped files are one shard each. Its documents carry the ids the
one-process loader gives them, so both executors build the same index."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from factdebate.core.types import Document
from factdebate.corpus.loading import line_document, load_documents, row_to_document
from factdebate.corpus.sources import SourceFile
from factdebate.util.errors import InputError, MissingDependencyError

DEFAULT_SHARD_DOCS = 5000


@dataclass(frozen=True)
class Shard:
    """Documents ``start`` to ``stop`` (Parquet rows, JSONL lines from 1); a whole file has both 0."""

    path: str
    format: str
    start: int = 0
    stop: int = 0
    byte_start: int = 0
    byte_stop: int = 0
    documents: int | None = None

    @property
    def key(self) -> str:
        return f"{self.path}#{self.start}-{self.stop}" if self.stop else self.path

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Shard:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__})


def plan_shards(files: tuple[SourceFile, ...] | list[SourceFile], shard_docs: int = DEFAULT_SHARD_DOCS) -> list[Shard]:
    """Every file's shards of at most ``shard_docs`` documents, in file order."""
    if shard_docs < 1:
        raise ValueError("shard_docs must be at least 1")
    shards: list[Shard] = []
    for source in files:
        path = source.path.resolve()
        gzipped = path.suffix.lower() == ".gz"
        if source.format == "parquet":
            shards.extend(_parquet_shards(path, shard_docs))
        elif source.format == "jsonl" and not gzipped:
            shards.extend(_jsonl_shards(path, shard_docs))
        else:
            shards.append(Shard(str(path), source.format))
    return shards


def _parquet_file(path: Path) -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingDependencyError("pyarrow", "retrieval") from exc
    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a damaged file
        raise InputError(f"{path}: not a readable Parquet file ({exc})") from exc


def _parquet_shards(path: Path, shard_docs: int) -> list[Shard]:
    rows = _parquet_file(path).metadata.num_rows
    return [Shard(str(path), "parquet", start, min(start + shard_docs, rows), documents=min(shard_docs, rows - start))
            for start in range(0, rows, shard_docs)]


def _jsonl_shards(path: Path, shard_docs: int) -> list[Shard]:
    """Line ranges holding ``shard_docs`` non-blank lines each, with the byte offsets where they begin."""
    shards: list[Shard] = []
    begin_byte, begin_line, offset, count = 0, 1, 0, 0
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, start=1):
            offset += len(line)
            if line.strip():
                count += 1
            if count == shard_docs:
                shards.append(Shard(str(path), "jsonl", begin_line, lineno + 1, begin_byte, offset, count))
                begin_byte, begin_line, count = offset, lineno + 1, 0
        if count:
            shards.append(Shard(str(path), "jsonl", begin_line, lineno + 1, begin_byte, offset, count))
    return shards


def read_shard(shard: Shard) -> Iterator[Document]:
    """The shard's documents, with the ids and error messages of :func:`corpus.loading.load_documents`."""
    path = Path(shard.path)
    if not shard.stop:
        return load_documents(path, shard.format)
    if shard.format == "parquet":
        return _parquet_rows(path, shard.start, shard.stop)
    return _jsonl_lines(path, shard)


def _parquet_rows(path: Path, start: int, stop: int) -> Iterator[Document]:
    parquet = _parquet_file(path)
    first = 0
    for group in range(parquet.metadata.num_row_groups):
        size = parquet.metadata.row_group(group).num_rows
        if first + size > start and first < stop:
            n = first
            for batch in parquet.iter_batches(batch_size=4096, row_groups=[group]):
                for row in batch.to_pylist():
                    if start <= n < stop:
                        yield row_to_document(row, f"{path}: row {n}", f"{path.stem}:{n}")
                    n += 1
        first += size


def _jsonl_lines(path: Path, shard: Shard) -> Iterator[Document]:
    with path.open("rb") as fh:
        fh.seek(shard.byte_start)
        for lineno in range(shard.start, shard.stop):
            raw = fh.readline()
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from exc
            if line.strip():
                yield line_document(line, path, lineno)
