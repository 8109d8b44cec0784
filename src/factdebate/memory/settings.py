"""The evidence memory's settings. They live here until the MERMAID method takes them into its own section."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from factdebate.util.paths import data_dir

DEFAULT_FILE = "evidence_memory.sqlite"
NAMESPACE_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
_NAMESPACE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-")


def default_namespace(corpus: str) -> str:
    """The namespace when none is set: the corpus name, so one corpus's evidence is not recalled for another."""
    return "".join(c if c in _NAMESPACE_CHARS else "_" for c in corpus)[:64] or "default"


def scoped_namespace(namespace: str, scope: str) -> str:
    """``namespace`` narrowed to one scope (the service: one API key's id), within the 64-character limit."""
    suffix = ":" + default_namespace(scope)[:40]
    return namespace[: 64 - len(suffix)] + suffix


class MemorySettings(BaseModel):
    """The evidence memory one run uses; MERMAID fills it from its own ``memory*`` settings."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["on", "off", "readonly"] = Field(default="on", description="on: recall before the loop and "
                                                   "store after the verdict; readonly: recall only; off: neither.")
    path: Path | None = Field(default=None, description="Memory database (default: evidence_memory.sqlite in "
                              "the data directory).")
    namespace: str = Field(default="default", pattern=NAMESPACE_PATTERN, description="One memory per corpus or "
                           "project: evidence stored under one namespace is not recalled under another.")
    ttl_days: float | None = Field(default=None, gt=0, le=36_500,
                                   description="Stored evidence expires after this many days "
                                   "(default: never).")
    semantic: bool = Field(default=False, title="Semantic recall",
                           description="Also recall records whose entity and evidence are close in meaning to a "
                           "claim's entity, for entities spelled differently from the stored key (\"JFK\" vs "
                           "\"John F. Kennedy\"). Off: exact keys only, the paper's keyword recall.")
    semantic_threshold: float = Field(default=0.45, ge=0, le=1, description="Similarity from which a record is "
                                      "recalled by meaning.")
    recall_limit: int = Field(default=8, ge=1, le=100, description="Records recalled per claim.")
    per_entity_limit: int = Field(default=3, ge=1, le=50, description="Records recalled per entity.")
    max_evidence_chars: int = Field(default=2000, ge=100, le=20_000, description="Characters kept of each "
                                    "stored passage.")
    busy_timeout_s: float = Field(default=30.0, gt=0, le=600, description="Seconds an operation waits for a lock "
                                  "another connection holds before the file counts as locked.")

    def resolved_path(self) -> Path:
        return self.path if self.path is not None else data_dir() / DEFAULT_FILE
