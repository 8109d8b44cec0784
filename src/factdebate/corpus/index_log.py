"""The record of a distributed index build: which shards are written, so a stopped build resumes.

One append-only JSONL file per (corpus, Milvus URI) under ``<data dir>/index-runs/``: a line describing the
build, then one per shard once every engine holds it. A torn last line is ignored (that shard is done again,
with the same ids); a build of another source or settings starts a new record."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from factdebate.corpus.names import collection_name
from factdebate.util.paths import data_dir


def index_log_path(corpus: str, milvus_uri: str) -> Path:
    where = hashlib.sha256(milvus_uri.encode()).hexdigest()[:12]
    return data_dir() / "index-runs" / f"{collection_name(corpus)}-{where}.jsonl"


class IndexLog:
    """``done`` maps each finished shard's key to what its worker reported."""

    def __init__(self, corpus: str, milvus_uri: str, plan: dict[str, Any]) -> None:
        self.path = index_log_path(corpus, milvus_uri)
        self.plan = json.loads(json.dumps(plan))  # as it reads back: tuples become lists
        self.done: dict[str, dict[str, Any]] = {}
        self.resumed = False  # an earlier record of the same build was found
        self.replaced = False  # an earlier record of another build was set aside

    def open(self) -> IndexLog:
        """Read an earlier record of the same build, or start a new one."""
        lines = self._read()
        if lines and lines[0].get("plan") == self.plan:
            self.resumed = True
            self.done = {line["shard"]: line for line in lines[1:] if isinstance(line.get("shard"), str)}
            return self
        self.replaced = bool(lines)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"plan": self.plan}) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)  # a new record replaces the old one whole
        return self

    def record(self, shard: str, report: dict[str, Any]) -> None:
        line = {**report, "shard": shard}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.done[shard] = line

    def _read(self) -> list[dict[str, Any]]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError:
            return []
        lines: list[dict[str, Any]] = []
        for raw in text.splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue  # the torn last line of a crash
            if isinstance(line, dict):
                lines.append(line)
        return lines


def plan_fingerprint(files: list[tuple[str, int, int]], **settings: Any) -> dict[str, Any]:
    """What makes two builds the same: the files (path, size, mtime) and the settings that shape the passages."""
    return {"files": [list(f) for f in files], **settings}
