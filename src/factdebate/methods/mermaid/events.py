"""MERMAID's own trace events, registered with the method (``Mermaid.events``): what the decomposer found,
what the evidence memory recalled before the executor's loop and what it stored after the verdict."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from factdebate.core.events import Where


class Decomposed(Where):
    """MERMAID's decomposer: triplets and topic of the claim, the entities that key the memory; ``parsed``
    false when no readable decomposition came back (the executor then works from the raw claim)."""

    event: Literal["decomposition"] = "decomposition"
    triplets: list[dict[str, str]] = Field(default_factory=list)
    topic: str = ""
    entities: list[str] = Field(default_factory=list)
    parsed: bool = True
    skipped: bool = False  # the "w/o decomposer" ablation


class MemoryRecalled(Where):
    """Evidence recalled from the memory for the claim's entities, before the executor's loop."""

    event: Literal["memory_recall"] = "memory_recall"
    entities: list[str] = Field(default_factory=list)
    hits: list[dict[str, Any]] = Field(default_factory=list)  # entity, stored_entity, match, score, tool, source, text
    mode: str = "on"


class MemoryWritten(Where):
    """Evidence the trajectory used, stored under the entities it names, after the verdict."""

    event: Literal["memory_write"] = "memory_write"
    entities: list[str] = Field(default_factory=list)
    records: list[dict[str, Any]] = Field(default_factory=list)  # entity, tool, source, text
    added: int = 0  # new records (the rest refreshed ones already stored)
    skipped: str = ""  # why nothing was written (readonly, no entities...)
    # Passages the leak guard would not store (they read as an answer or a label): entity, tool, source, text,
    # reason.
    not_stored: list[dict[str, Any]] = Field(default_factory=list)
    error: str = ""  # why the write failed (locked, disk full...); the verdict stands and carries a warning


EVENTS = (Decomposed, MemoryRecalled, MemoryWritten)
