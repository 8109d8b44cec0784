"""MERMAID's evidence memory as the method uses it: recall by the decomposer's entities before the loop,
update after the verdict with the evidence the trajectory used.

"Used" (the paper: valid evidence gathered in the ReAct cycle) is, here: each passage from a tool call
that succeeded, stored under the claim entities that it names. Error observations, unknown tools, the
answer and the forced answer are never stored, and nothing carries the verdict or a gold label (the
memory's guard refuses both)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from factdebate.core.types import Document
from factdebate.memory.normalize import normalize_entity
from factdebate.memory.settings import MemorySettings
from factdebate.memory.store import Evidence, EvidenceMemory, MemoryHit, open_memory
from factdebate.methods.resources import Resources

RECALL_CHARS = 600  # of each recalled record, in the executor's prompt


@dataclass
class Used:
    """One passage a tool step returned, with the call that found it."""

    document: Document
    tool: str
    query: str


async def memory_for(resources: Resources, settings: MemorySettings) -> EvidenceMemory | None:
    """One store per (path, namespace, mode) for the batch or the server; ``None`` when off."""
    if settings.mode == "off":
        return None
    key = f"mermaid-memory:{settings.resolved_path()}:{settings.namespace}:{settings.mode}:{settings.semantic}"
    return await resources.service(key, lambda: open_memory(settings))


def recall_text(hits: list[MemoryHit]) -> str:
    lines = []
    for n, hit in enumerate(hits, start=1):
        how = "" if hit.match == "exact" else f", {hit.match} match {hit.score:.2f}"
        text = " ".join(hit.text.split())[:RECALL_CHARS]
        lines.append(f"[M{n}] {hit.stored_entity} (from {hit.tool}: \"{hit.query[:80]}\"{how}): {text}")
    return "\n".join(lines)


def recall_documents(hits: list[MemoryHit]) -> list[Document]:
    return [Document(id=f"memory:{h.id}", title=f"memory: {h.stored_entity}", text=h.text,
                     source=h.source or f"memory:{h.tool}", score=h.score) for h in hits]


def hit_record(hit: MemoryHit) -> dict[str, Any]:
    return {"entity": hit.entity, "stored_entity": hit.stored_entity, "match": hit.match, "score": hit.score,
            "tool": hit.tool, "query": hit.query[:200], "source": hit.source, "text": hit.text[:300]}


def names_entity(text: str, entity: str) -> bool:
    """Whether ``text`` mentions ``entity`` (both normalised the memory's way, on word boundaries)."""
    key = normalize_entity(entity)
    return bool(key) and f" {key} " in f" {normalize_entity(text)} "


def evidence_by_entity(used: list[Used], entities: list[str]) -> dict[str, list[Evidence]]:
    """Each used passage under the entities it names; a passage that names none is not stored."""
    out: dict[str, list[Evidence]] = {}
    seen: set[tuple[str, str]] = set()
    for item in used:
        text = item.document.text.strip()
        if not text:
            continue
        named = f"{item.document.title} {text}"
        for entity in entities:
            if names_entity(named, entity) and (entity, text) not in seen:
                seen.add((entity, text))
                out.setdefault(entity, []).append(Evidence(
                    text=text if item.document.title in text else f"{item.document.title}: {text}",
                    source=item.document.source or item.document.title, query=item.query, tool=item.tool))
    return out


async def write_used(memory: EvidenceMemory, used: list[Used], entities: list[str]) -> tuple[int, list[dict[str, Any]]]:
    added = 0
    records: list[dict[str, Any]] = []
    for entity, items in evidence_by_entity(used, entities).items():
        added += await memory.aupdate(entity, items)
        records += [{"entity": entity, "tool": e.tool, "query": e.query[:200], "source": e.source,
                     "text": e.text[:300]} for e in items]
    return added, records
