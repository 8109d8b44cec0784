"""Datasets the Hub holds in another shape: converted once, on first use, into the loaders' format, kept beside
the Hub cache under the sha256 of the verified source."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factdebate.hub.remote import cache_dir
from factdebate.util.errors import InputError, MissingDependencyError

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


_FEVER_EVIDENCE = ["evidence_annotation_id", "evidence_id", "evidence_wiki_url", "evidence_sentence_id"]


def fever_parquet(source: Path, target: Path) -> None:
    """The Hub's FEVER Parquet (a row per evidence sentence) as one line per claim with FEVER's own
    ``evidence``; rows of one id that disagree on claim or label are refused."""
    claims: dict[Any, dict[str, Any]] = {}
    sets: dict[Any, dict[Any, list[list[Any]]]] = {}
    for row in _rows(source, ["id", "claim", "label", *_FEVER_EVIDENCE]):
        first = claims.setdefault(row["id"], {"id": row["id"], "label": row["label"], "claim": row["claim"]})
        if (first["claim"], first["label"]) != (row["claim"], row["label"]):
            raise InputError(f"{source}: claim id {row['id']} has two different claims or labels")
        # NOT ENOUGH INFO rows name no page ("" and -1): FEVER writes them as nulls
        page = row["evidence_wiki_url"] or None
        item = [row["evidence_annotation_id"], row["evidence_id"] if page else None, page,
                row["evidence_sentence_id"] if page else None]
        sets.setdefault(row["id"], {}).setdefault(row["evidence_annotation_id"], []).append(item)
    lines = (json.dumps({**claim, "evidence": list(sets[key].values())}, ensure_ascii=False) + "\n"
             for key, claim in claims.items())
    _write(target, "".join(lines))


def pubmedqa_parquet(source: Path, target: Path) -> None:
    """PubMedQA's Parquet rows back into the original JSON keyed by PMID (QUESTION, CONTEXTS, LABELS...)."""
    out = {}
    for row in _rows(source):
        context = row.get("context") or {}
        out[str(row["pubid"])] = {"QUESTION": row.get("question"), "CONTEXTS": context.get("contexts") or [],
                                  "LABELS": context.get("labels") or [], "MESHES": context.get("meshes") or [],
                                  "LONG_ANSWER": row.get("long_answer"), "final_decision": row.get("final_decision")}
    _write(target, json.dumps(out, ensure_ascii=False))


# The suffix names the converter's output version too: a file converted before FEVER's evidence was kept
# (".jsonl") is not read in place of one that keeps it.
CONVERTERS: dict[str, tuple[Converter, str]] = {
    "fever-parquet": (fever_parquet, "evidence.jsonl"),
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
