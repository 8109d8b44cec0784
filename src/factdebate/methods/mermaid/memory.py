"""MERMAID's evidence memory as the method uses it: recall by the decomposer's entities before the loop,
update after the verdict with the evidence the trajectory used.

"Used" is each retrieved passage of a tool call that succeeded, stored with its source under every entity of
the claim. Notes, plain text, errors, queries and answers are never stored, nor anything that reads as a
verdict or gold label. A failed write is a warning on the verdict, never a lost verdict."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from factdebate.core.types import Document, VerdictWarning
from factdebate.memory.guard import leak_reason
from factdebate.memory.settings import MemorySettings
from factdebate.memory.store import Evidence, EvidenceMemory, MemoryHit, open_memory
from factdebate.methods.resources import Resources
from factdebate.util.errors import FactDebateError

RECALL_CHARS = 600  # of each recalled record, in the executor's prompt


@dataclass
class Used:
    """One retrieved passage a tool step returned, with the tool that found it."""

    document: Document
    tool: str


@dataclass
class Written:
    """What the write after the verdict did: records added, stored, refused (with why), and any error."""

    added: int = 0
    records: list[dict[str, Any]] = field(default_factory=list)
    not_stored: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""

    def warnings(self) -> list[VerdictWarning]:
        out = []
        if self.not_stored:
            passages = len({item["text"] for item in self.not_stored})
            reasons = "; ".join(sorted({item["reason"] for item in self.not_stored}))
            out.append(VerdictWarning(code="memory_write", message=f"evidence memory: {passages} retrieved "
                                      f"passage(s) not stored ({reasons})"))
        if self.error:
            out.append(VerdictWarning(code="memory_write", message=f"evidence memory not written: {self.error}"))
        return out


async def memory_for(resources: Resources, settings: MemorySettings) -> EvidenceMemory | None:
    """One store per (path, namespace, mode) for the batch or the server; ``None`` when off. Opened and checked
    by the first claim, before any model call."""
    if settings.mode == "off":
        return None
    key = f"mermaid-memory:{settings.resolved_path()}:{settings.namespace}:{settings.mode}:{settings.semantic}"
    if key not in resources.services:
        opened = await asyncio.to_thread(checked_memory, settings)
        return await resources.service(key, lambda: opened)
    return await resources.service(key, lambda: open_memory(settings))


def checked_memory(settings: MemorySettings) -> EvidenceMemory | None:
    """The store, opened and checked: readable, and writable unless read-only (MemoryFileError if not)."""
    memory = open_memory(settings)
    if memory is not None:
        memory.check()
    return memory


def recall_text(hits: list[MemoryHit]) -> str:
    lines = []
    for n, hit in enumerate(hits, start=1):
        how = "" if hit.match == "exact" else f", {hit.match} match {hit.score:.2f}"
        text = " ".join(hit.text.split())[:RECALL_CHARS]
        source = f"{hit.source[:120]}, " if hit.source else ""
        lines.append(f"[M{n}] {hit.stored_entity} (from {source}via {hit.tool}{how}): {text}")
    return "\n".join(lines)


def recall_documents(hits: list[MemoryHit]) -> list[Document]:
    """The recalled passages as the verdict shows them: each text once, at its best score, titled by its source."""
    best: dict[str, MemoryHit] = {}
    for hit in hits:
        if hit.text not in best or hit.score > best[hit.text].score:
            best[hit.text] = hit
    return [Document(id=f"memory:{h.id}", title=recalled_title(h), text=h.text,
                     source=h.source or f"memory:{h.tool}", score=h.score) for h in best.values()]


def recalled_title(hit: MemoryHit) -> str:
    """A recalled passage's title: the page its source names (else its tool), said to come from the memory."""
    tail = unquote(hit.source.split("#")[0].split("?")[0].rstrip("/").rsplit("/", 1)[-1])
    name = " ".join(tail.replace("_", " ").split())
    return f"{name} (recalled from memory)" if name else f"recalled from memory ({hit.tool})"


def hit_record(hit: MemoryHit) -> dict[str, Any]:
    return {"entity": hit.entity, "stored_entity": hit.stored_entity, "match": hit.match, "score": hit.score,
            "tool": hit.tool, "source": hit.source, "text": hit.text[:300]}


def evidence_by_entity(used: list[Used], entities: list[str]) -> tuple[dict[str, list[Evidence]],
                                                                        list[dict[str, Any]]]:
    """Each used passage under every entity of the claim, and those the leak guard refused, with why."""
    out: dict[str, list[Evidence]] = {}
    refused: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for item in used:
        text = item.document.text.strip()
        if not text:
            continue
        title = item.document.title
        stored = text if title in text else f"{title}: {text}"
        source = item.document.source or title
        reason = leak_reason(text, item.tool) or leak_reason(stored, item.tool)
        for entity in entities:
            if (entity, text) not in seen:
                seen.add((entity, text))
                if reason is not None:
                    refused.append({"entity": entity, "tool": item.tool, "source": source, "text": text[:300],
                                    "reason": reason})
                else:
                    out.setdefault(entity, []).append(Evidence(text=stored, source=source, tool=item.tool))
    return out, refused


async def write_used(memory: EvidenceMemory, used: list[Used], entities: list[str],
                     position: int | None = None) -> Written:
    """Store the used passages (at ``position`` in a run's memory); never raises for the memory's faults."""
    by_entity, refused = evidence_by_entity(used, entities)
    written = Written(not_stored=refused)
    try:
        for entity, items in by_entity.items():
            written.added += await memory.aupdate(entity, items, position=position)
            written.records += [{"entity": entity, "tool": e.tool, "source": e.source, "text": e.text[:300]}
                                for e in items]
    except (FactDebateError, OSError) as exc:
        written.error = str(exc)
    return written
