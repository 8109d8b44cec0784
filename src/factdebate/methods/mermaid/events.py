"""MERMAID's own trace events (``Mermaid.events``): the decomposition, the memory's recall and its write, each
with a ``note`` saying why it holds nothing or what went wrong."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from factdebate.core.events import Where


class Decomposed(Where):
    """MERMAID's decomposer: triplets, topic and entities of the claim; ``parsed`` false when unreadable."""

    event: Literal["decomposition"] = "decomposition"
    triplets: list[dict[str, str]] = Field(default_factory=list)
    topic: str = ""
    entities: list[str] = Field(default_factory=list)
    parsed: bool = True
    skipped: bool = False  # the "w/o decomposer" ablation
    note: str = ""

    @model_validator(mode="after")
    def _note(self) -> Decomposed:
        if not self.note and self.skipped:
            self.note = "Decomposer off (the paper's 'w/o decomposer' ablation): the executor works from the claim."
        elif not self.note and not self.parsed:
            self.note = "No readable decomposition: the executor works from the claim."
        return self


class MemoryRecalled(Where):
    """Evidence recalled from the memory for the claim's entities, before the executor's loop."""

    event: Literal["memory_recall"] = "memory_recall"
    entities: list[str] = Field(default_factory=list)
    hits: list[dict[str, Any]] = Field(default_factory=list)  # entity, stored_entity, match, score, tool, source, text
    mode: str = "on"
    note: str = ""

    @model_validator(mode="after")
    def _note(self) -> MemoryRecalled:
        if not self.note and not self.hits:
            self.note = f"Nothing remembered for {', '.join(self.entities) or 'this claim'} (memory {self.mode})."
        return self


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
    note: str = ""

    @model_validator(mode="after")
    def _note(self) -> MemoryWritten:
        if self.note:
            return self
        held = f" {len(self.not_stored)} passage(s) not stored: {self.not_stored[0].get('reason', '')}." \
            if self.not_stored else ""
        if self.skipped:
            self.note = f"Nothing written: {self.skipped}."
        elif self.error:
            self.note = f"Not written: {self.error}.{held}"
        elif not self.records:
            self.note = f"No evidence the executor used named the claim's entities.{held}"
        elif held:
            self.note = held.strip()
        return self


EVENTS = (Decomposed, MemoryRecalled, MemoryWritten)
