"""The persistent evidence memory: SQLite in WAL mode, keyed by (namespace, normalised entity).

A run's record carries the ``position`` of the claim that first stored it; a claim recalls only records from
before its own (or without one), so a resume sees what the first run saw.

Every operation opens its own connection, so a store is safe from any thread or process; writes take the lock
up front (``BEGIN IMMEDIATE``) and wait up to ``busy_timeout``. A read-only memory never creates the file.
Every SQLite failure becomes one :class:`MemoryFileError` that names the file and what to do."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from factdebate.core.types import Document
from factdebate.memory.guard import check_evidence, check_fields
from factdebate.memory.normalize import normalize_entity
from factdebate.memory.settings import DEFAULT_FILE, MemorySettings
from factdebate.util.errors import InputError

if TYPE_CHECKING:
    import numpy as np  # imported where vectors are read: every command imports this module, few recall

Encode = Callable[[list[str]], "np.ndarray"]  # texts -> unit-length rows
BUSY_TIMEOUT_S = MemorySettings.model_fields["busy_timeout_s"].default
_SEMANTIC_SCAN = 20_000  # newest records compared by vector per recall; older ones need an exact key match

_SCHEMA = """
CREATE TABLE IF NOT EXISTS evidence (
    id INTEGER PRIMARY KEY,
    namespace TEXT NOT NULL,
    entity_key TEXT NOT NULL,
    entity TEXT NOT NULL,
    text TEXT NOT NULL,
    source TEXT NOT NULL,
    query TEXT NOT NULL,
    tool TEXT NOT NULL,
    stored REAL NOT NULL,
    expires REAL,
    encoder TEXT,
    vector BLOB,
    digest TEXT NOT NULL,
    position INTEGER,
    UNIQUE (namespace, entity_key, digest)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS evidence_key ON evidence (namespace, entity_key);
CREATE INDEX IF NOT EXISTS evidence_stored ON evidence (namespace, stored);
"""
_RESULT_ONLY = frozenset({"title", "score", "id", "match"})
# The table keeps a ``query`` column (files written before it was dropped hold queries), never read back.
_COLUMNS = "id, namespace, entity_key, entity, text, source, tool, stored, expires"


class MemoryFileError(InputError):
    """The memory database cannot be used: missing (read-only), not a database, locked, full, read-only."""


class Evidence(BaseModel):
    """One retrieved passage as used: text, source and tool; deliberately no label and no query."""

    model_config = ConfigDict(extra="forbid")

    text: str
    source: str = ""
    tool: str

    @classmethod
    def of(cls, item: Evidence | Document | dict[str, Any], *, tool: str = "") -> Evidence:
        if isinstance(item, Evidence):
            return item
        if isinstance(item, Document):
            return cls(text=item.text, source=item.source or item.title, tool=tool)
        check_fields(item)  # before pydantic, so a label field gets the leak error, not a schema error
        # A result dict from the tool servers can be stored as it is: its ranking fields are not evidence.
        fields = {k: v for k, v in item.items() if k not in _RESULT_ONLY}
        return cls.model_validate({"tool": tool, **fields})


class MemoryHit(BaseModel):
    """A recalled record; ``match`` says how it was found and ``score`` how closely (1.0 for exact keys)."""

    id: int
    entity: str  # the entity as the recalling claim named it
    stored_entity: str
    text: str
    source: str
    tool: str
    stored: float
    match: str  # exact | semantic
    score: float


class EvidenceMemory:
    def __init__(self, path: str | Path, *, namespace: str = "default", ttl_days: float | None = None,
                 readonly: bool = False, encode: Encode | None = None, encoder_name: str = "minilm-int8",
                 semantic_threshold: float = 0.45, per_entity_limit: int = 3, recall_limit: int = 8,
                 max_evidence_chars: int = 2000, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self.namespace = MemorySettings(namespace=namespace).namespace  # same validation as the settings
        self.ttl = ttl_days * 86_400 if ttl_days else None
        self.readonly = readonly
        self._encode = encode
        self.encoder_name = encoder_name
        self.semantic_threshold = semantic_threshold
        self.per_entity_limit = per_entity_limit
        self.recall_limit = recall_limit
        self.max_chars = max_evidence_chars
        self.busy_timeout = busy_timeout_s
        if self.path.is_dir():
            raise MemoryFileError(f"the evidence memory {self.path} is a directory: give a file, e.g. "
                                  f"{self.path / DEFAULT_FILE}")
        if readonly:
            # Read-only never creates: a mistyped path must not become an empty memory that recalls nothing.
            if not self.path.exists():
                raise MemoryFileError(f"no evidence memory at {self.path}: memory 'readonly' reads an existing "
                                      "file and creates none (check --memory-path)")
            self.target = _uri(self.path, "mode=ro" + ("" if _dir_writable(self.path.parent) else "&immutable=1"))
            self.check()
            return
        self.target = _uri(self.path, "mode=rwc")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MemoryFileError(f"cannot create the folder of the evidence memory {self.path}: "
                                  f"{exc.strerror or exc}") from exc
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")  # persistent: recorded in the file for every later opener
            db.executescript(_SCHEMA)
            if "position" not in {row[1] for row in db.execute("PRAGMA table_info(evidence)")}:
                db.execute("ALTER TABLE evidence ADD COLUMN position INTEGER")  # a file from before positions

    def check(self) -> None:
        """Raise :class:`MemoryFileError` unless the memory can be read, and written unless read-only."""
        with self._connect() as db:
            if not self.readonly:
                db.execute("BEGIN IMMEDIATE")
            db.execute("SELECT id FROM evidence LIMIT 1").fetchall()
            if not self.readonly:
                db.execute("ROLLBACK")

    # -- plumbing ------------------------------------------------------------------------------------
    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            with closing(sqlite3.connect(self.target, uri=True, timeout=self.busy_timeout,
                                         isolation_level=None)) as db:
                db.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
                db.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable across a process crash
                yield db
        except sqlite3.Error as exc:
            raise MemoryFileError(_problem(exc, self.path, self.busy_timeout)) from exc

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                if db.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _vectors(self, texts: list[str]) -> np.ndarray | None:
        if self._encode is None or not texts:
            return None
        import numpy as np

        return np.asarray(self._encode(texts), dtype=np.float32)

    def _live(self, before: int | None = None) -> tuple[str, tuple[Any, ...]]:
        where, args = "namespace = ? AND (expires IS NULL OR expires > ?)", (self.namespace, time.time())
        if before is None:
            return where, args
        return where + " AND (position IS NULL OR position < ?)", (*args, before)

    # -- the paper's two operations --------------------------------------------------------------------
    def update(self, entities: str | Sequence[str],
               evidence: Iterable[Evidence | Document | dict[str, Any]], *,
               tool: str = "", ttl_days: float | None = None, position: int | None = None) -> int:
        """Store ``evidence`` under each entity; returns how many records were new. Storing a text again
        refreshes its timestamp, or with a ``position`` keeps its earliest. Raises :class:`MemoryLeakError`
        (nothing stored) for a label or verdict, :class:`MemoryFileError` for a failed write."""
        names = [entities] if isinstance(entities, str) else list(entities)
        keyed = {normalize_entity(n): n.strip() for n in names if normalize_entity(n)}
        items = [Evidence.of(e, tool=tool) for e in evidence]
        for item in items:
            check_evidence(item.text, item.tool)
            if not item.tool.strip():
                raise InputError("each evidence item needs the tool that retrieved it")
        items = [i.model_copy(update={"text": i.text.strip()[: self.max_chars]}) for i in items if i.text.strip()]
        if self.readonly or not keyed or not items:
            return 0
        now = time.time()
        ttl = ttl_days * 86_400 if ttl_days else self.ttl
        expires = now + ttl if ttl else None
        rows = [(key, name, item) for key, name in keyed.items() for item in items]
        vectors = self._vectors([f"{name}: {item.text[:500]}" for _, name, item in rows])
        added = 0
        with self._write() as db:
            for n, (key, name, item) in enumerate(rows):
                digest = hashlib.sha256(item.text.encode("utf-8")).hexdigest()
                blob = vectors[n].tobytes() if vectors is not None else None
                found = db.execute("SELECT id FROM evidence WHERE namespace = ? AND entity_key = ? AND digest = ?",
                                   (self.namespace, key, digest)).fetchone()
                if found and position is not None:
                    db.execute("UPDATE evidence SET position = MIN(position, ?) WHERE id = ?", (position, found[0]))
                    continue
                if found:
                    db.execute("UPDATE evidence SET stored = ?, expires = ? WHERE id = ?", (now, expires, found[0]))
                    continue
                db.execute(
                    "INSERT INTO evidence (namespace, entity_key, entity, text, source, query, tool, stored, "
                    "expires, encoder, vector, digest, position) VALUES (?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?)",
                    (self.namespace, key, name, item.text, item.source, item.tool, now,
                     expires, self.encoder_name if blob is not None else None, blob, digest, position))
                added += 1
        return added

    def recall(self, entities: Sequence[str], *, limit: int | None = None,
               before: int | None = None) -> list[MemoryHit]:
        """Records for the claim's entities: exact matches, then (with an encoder) close vectors, newest first.
        ``before``: only records stored before this position (or with none) are seen."""
        limit = limit or self.recall_limit
        names = {normalize_entity(n): n.strip() for n in entities if normalize_entity(n)}
        where, args = self._live(before)
        order = _order(before)
        hits: list[MemoryHit] = []
        seen: set[int] = set()
        with self._connect() as db:
            for key, name in names.items():
                rows = db.execute(f"SELECT {_COLUMNS} FROM evidence WHERE {where} AND entity_key = ? "
                                  f"ORDER BY {order} LIMIT ?", (*args, key, self.per_entity_limit))
                for row in rows.fetchall():
                    if row[0] not in seen:
                        seen.add(row[0])
                        hits.append(_hit(row, name, "exact", 1.0))
            semantic = self._semantic(db, names, seen, before=before) if self._encode is not None and names else []
        return (hits + semantic)[:limit]

    def _semantic(self, db: sqlite3.Connection, names: dict[str, str], seen: set[int], *,
                  per_entity: int | None = None, threshold: float | None = None,
                  before: int | None = None) -> list[MemoryHit]:
        per_entity = per_entity or self.per_entity_limit
        threshold = self.semantic_threshold if threshold is None else threshold
        where, args = self._live(before)
        rows = db.execute(f"SELECT {_COLUMNS}, vector FROM evidence WHERE {where} AND encoder = ? "
                          f"ORDER BY {_order(before)} LIMIT ?",
                          (*args, self.encoder_name, _SEMANTIC_SCAN)).fetchall()
        rows = [r for r in rows if r[0] not in seen]
        if not rows:
            return []
        import numpy as np

        matrix = np.stack([np.frombuffer(r[-1], dtype=np.float32) for r in rows])
        queries = self._vectors(list(names.values()))
        assert queries is not None
        scores = queries @ matrix.T  # unit vectors: cosine similarity
        best: dict[int, MemoryHit] = {}
        for qi, name in enumerate(names.values()):
            order = np.argsort(-scores[qi])[:per_entity]
            for ri in order:
                score = float(scores[qi, ri])
                row = rows[int(ri)]
                if score >= threshold and (row[0] not in best or best[row[0]].score < score):
                    best[row[0]] = _hit(row[:-1], name, "semantic", round(score, 4))
        return sorted(best.values(), key=lambda h: -h.score)

    async def arecall(self, entities: Sequence[str], *, limit: int | None = None,
                      before: int | None = None) -> list[MemoryHit]:
        return await asyncio.to_thread(self.recall, entities, limit=limit, before=before)

    async def aupdate(self, entities: str | Sequence[str],
                      evidence: Iterable[Evidence | Document | dict[str, Any]], **kwargs: Any) -> int:
        return await asyncio.to_thread(self.update, entities, list(evidence), **kwargs)

    # -- inspection and upkeep (the `factdebate memory` commands) -------------------------------------
    def entities(self) -> list[dict[str, Any]]:
        where, args = self._live()
        with self._connect() as db:
            rows = db.execute(f"SELECT entity_key, MIN(entity), COUNT(*), MAX(stored) FROM evidence WHERE {where} "
                              "GROUP BY entity_key ORDER BY MAX(stored) DESC", args).fetchall()
        return [{"key": r[0], "entity": r[1], "records": r[2], "stored": r[3]} for r in rows]

    def show(self, entity: str) -> list[MemoryHit]:
        where, args = self._live()
        with self._connect() as db:
            rows = db.execute(f"SELECT {_COLUMNS} FROM evidence WHERE {where} AND entity_key = ? "
                              "ORDER BY stored DESC, id DESC", (*args, normalize_entity(entity))).fetchall()
        return [_hit(r, entity, "exact", 1.0) for r in rows]

    def search(self, text: str, k: int = 10) -> list[MemoryHit]:
        """Records by meaning (with an encoder; records without its vectors by substring, first) or else by
        substring of entity or evidence."""
        if self._encode is None:
            return self._substring(text, k)
        with self._connect() as db:
            by_meaning = self._semantic(db, {normalize_entity(text) or text: text}, set(), per_entity=k,
                                        threshold=0.0)
        by_text = self._substring(text, k, without_vectors=True) if self.without_vectors() else []
        return sorted([*by_text, *by_meaning], key=lambda h: -h.score)[:k]

    def _substring(self, text: str, k: int, *, without_vectors: bool = False) -> list[MemoryHit]:
        where, args = self._live()
        if without_vectors:
            where, args = f"{where} AND (vector IS NULL OR encoder != ?)", (*args, self.encoder_name)
        pattern = "%" + text.replace("%", "").replace("_", "") + "%"
        with self._connect() as db:
            rows = db.execute(f"SELECT {_COLUMNS} FROM evidence WHERE {where} AND (entity LIKE ? OR text LIKE ?) "
                              "ORDER BY stored DESC LIMIT ?", (*args, pattern, pattern, k)).fetchall()
        return [_hit(r, text, "substring", 1.0) for r in rows]

    def without_vectors(self) -> int:
        """Live records that cannot be found by meaning: stored without this encoder's vectors."""
        where, args = self._live()
        with self._connect() as db:
            row = db.execute(f"SELECT COUNT(*) FROM evidence WHERE {where} AND (vector IS NULL OR encoder != ?)",
                             (*args, self.encoder_name)).fetchone()
        return int(row[0])

    def clear(self, entity: str | None = None, *, expired_only: bool = False) -> int:
        """Delete this namespace's records (one entity's, or only the expired ones); returns how many."""
        sql, args = "DELETE FROM evidence WHERE namespace = ?", list[str | float]([self.namespace])
        if entity is not None:
            sql += " AND entity_key = ?"
            args.append(normalize_entity(entity))
        if expired_only:
            sql += " AND expires IS NOT NULL AND expires <= ?"
            args.append(time.time())
        with self._write() as db:
            return db.execute(sql, args).rowcount

    def export(self) -> Iterator[dict[str, Any]]:
        """Every live record of the namespace as a plain dict (no vectors), oldest first."""
        where, args = self._live()
        with self._connect() as db:
            rows = db.execute(f"SELECT {_COLUMNS} FROM evidence WHERE {where} ORDER BY stored, id", args).fetchall()
        names = _COLUMNS.split(", ")
        for row in rows:
            yield dict(zip(names, row, strict=True))


def _order(before: int | None) -> str:
    """Newest first: by time for single claims; in a run, by position, then the seeded records."""
    if before is None:
        return "stored DESC, id DESC"
    return "position IS NULL, position DESC, stored DESC, id DESC"


def _hit(row: Sequence[Any], entity: str, match: str, score: float) -> MemoryHit:
    return MemoryHit(id=row[0], entity=entity, stored_entity=row[3], text=row[4], source=row[5], tool=row[6],
                     stored=row[7], match=match, score=score)


def _uri(path: Path, params: str) -> str:
    return f"{path.resolve().as_uri()}?{params}"


def _dir_writable(directory: Path) -> bool:
    """Whether SQLite could make its -wal and -shm files next to the database."""
    return os.access(directory, os.W_OK)


def _problem(exc: sqlite3.Error, path: Path, waited: float) -> str:
    """SQLite's error as one line that names the file and says what to do."""
    text = str(exc)
    low = text.lower()
    if "locked" in low or "busy" in low:
        return (f"the evidence memory {path} is locked by another process (waited {waited:g} s); retry when it "
                "is done, or wait longer with memory_busy_timeout_s")
    if "full" in low:
        return f"the disk holding the evidence memory {path} is full ({text})"
    if "readonly" in low or "read-only" in low:
        return (f"the evidence memory {path} cannot be written ({text}); on a read-only file system use "
                "memory 'readonly'")
    if "not a database" in low or "malformed" in low or "no such table" in low:
        return (f"{path} is not an evidence memory ({text}): give another --memory-path, or move the file away "
                "to start an empty memory")
    if "unable to open" in low:
        return f"cannot open the evidence memory {path} ({text})"
    return f"the evidence memory {path} failed: {text}"


def minilm_encoder(kind: str = "int8") -> Encode:
    """MiniLM (the retrieval encoder) loaded on first use."""
    from factdebate.embeddings import get_embedder

    def encode(texts: list[str]) -> np.ndarray:
        return get_embedder(kind).encode(texts)

    return encode


def open_memory(settings: MemorySettings | None = None, *, encode: Encode | None = None) -> EvidenceMemory | None:
    """The memory the settings describe (``None`` when off); semantic recall uses MiniLM unless ``encode``."""
    settings = settings or MemorySettings()
    if settings.mode == "off":
        return None
    if encode is None and settings.semantic:
        encode = minilm_encoder()
    return EvidenceMemory(settings.resolved_path(), namespace=settings.namespace, ttl_days=settings.ttl_days,
                          readonly=settings.mode == "readonly", encode=encode if settings.semantic else None,
                          semantic_threshold=settings.semantic_threshold,
                          per_entity_limit=settings.per_entity_limit, recall_limit=settings.recall_limit,
                          max_evidence_chars=settings.max_evidence_chars, busy_timeout_s=settings.busy_timeout_s)
