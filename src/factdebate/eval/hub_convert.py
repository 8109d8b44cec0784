"""Datasets the Hub holds in another shape than their benchmark's own: converted once, on first use, into
the file format the loaders read (eval/loaders.py). The result is kept beside the Hub cache, named after
the sha256 of the verified source, so a converted file always belongs to exactly one source file."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factdebate.core.errors import InputError, MissingDependencyError
from factdebate.hub.remote import cache_dir

Converter = Callable[[Path, Path], None]


def _rows(source: Path, columns: list[str] | None = None) -> list[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingDependencyError("pyarrow", "eval") from exc
    try:
        return list(pq.read_table(source, columns=columns).to_pylist())
    except Exception as exc:  # pyarrow raises several unrelated types for a damaged or different file
        raise InputError(f"{source}: not the Parquet file expected ({exc})") from None


def fever_parquet(source: Path, target: Path) -> None:
    """The Hub's FEVER Parquet has one row per evidence annotation; the loader wants one line per claim.
    Rows of one id agree on claim and label; a file where they do not is refused, not resolved."""
    claims: dict[Any, dict[str, Any]] = {}
    for row in _rows(source, ["id", "claim", "label"]):
        first = claims.setdefault(row["id"], row)
        if (first["claim"], first["label"]) != (row["claim"], row["label"]):
            raise InputError(f"{source}: claim id {row['id']} has two different claims or labels")
    _write(target, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in claims.values()))


def pubmedqa_parquet(source: Path, target: Path) -> None:
    """PubMedQA's Parquet rows back into the original JSON keyed by PMID (QUESTION, CONTEXTS, LABELS...)."""
    out = {}
    for row in _rows(source):
        context = row.get("context") or {}
        out[str(row["pubid"])] = {"QUESTION": row.get("question"), "CONTEXTS": context.get("contexts") or [],
                                  "LABELS": context.get("labels") or [], "MESHES": context.get("meshes") or [],
                                  "LONG_ANSWER": row.get("long_answer"), "final_decision": row.get("final_decision")}
    _write(target, json.dumps(out, ensure_ascii=False))


CONVERTERS: dict[str, tuple[Converter, str]] = {
    "fever-parquet": (fever_parquet, "jsonl"),
    "pubmedqa-parquet": (pubmedqa_parquet, "json"),
}


def _write(target: Path, text: str) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)  # never a half-written file under the final name


def converted(name: str, how: str, source: Path, sha256: str) -> Path:
    """The converted file of ``source`` (verified, with this ``sha256``), made on first use."""
    convert, suffix = CONVERTERS[how]
    target = cache_dir() / "converted" / name / f"{sha256[:16]}.{suffix}"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        convert(source, target)
    return target
