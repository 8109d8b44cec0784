"""The layout of a full-text index split into parts, and how the parts' answers become one answer.

Tantivy lets one writer into an index (about 12,000 passages a second: not enough for a few GPUs). A
partitioned index has ``parts.json`` and ``part-0`` … ``part-<n-1>``, a passage in the part a hash of its id
names, so a build runs one writer per part. A search keeps the ``k`` best of every part's top ``k``: each part
scores BM25 with its own statistics, so the ranking is close to one index's (benchmarks/decisions/lexical_parts.py)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from factdebate.core.types import Document
from factdebate.corpus.ranking import best_first

LAYOUT_FILE = "parts.json"


def part_of(passage_id: str, parts: int) -> int:
    """The part a passage belongs to: stable across processes and machines (not Python's salted hash)."""
    return int.from_bytes(hashlib.blake2b(passage_id.encode("utf-8"), digest_size=8).digest(), "big") % parts


def read_layout(folder: Path) -> int | None:
    """The number of parts of the index in ``folder``, or ``None`` when it is not partitioned."""
    try:
        data = json.loads((folder / LAYOUT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    parts = data.get("parts") if isinstance(data, dict) else None
    return parts if isinstance(parts, int) and parts > 1 else None


def write_layout(folder: Path, parts: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{LAYOUT_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps({"parts": parts}), encoding="utf-8")
    os.replace(tmp, folder / LAYOUT_FILE)


def merge_hits(per_part: list[list[Document]], k: int) -> list[Document]:
    """The ``k`` best-scored hits of all parts, equal scores by id (corpus/ranking.py)."""
    return best_first([hit for hits in per_part for hit in hits], k)
