"""MERMAID's recalled passages were listed three times each (a passage is stored under every
entity of its claim) and titled by the memory's key ("memory: paris"). A verdict now shows each recalled text
once, at its best score, titled by the page its source names."""

from __future__ import annotations

from factdebate.memory.store import MemoryHit
from factdebate.methods.mermaid.memory import recall_documents

TEXT = "The Eiffel Tower is a wrought-iron lattice tower in Paris."


def hit(number: int, entity: str, score: float, source: str = "https://en.wikipedia.org/wiki/Eiffel_Tower",
        text: str = TEXT) -> MemoryHit:
    return MemoryHit(id=number, entity=entity, stored_entity=entity, text=text, source=source, tool="wikipedia",
                     stored=0.0, match="exact", score=score)


def test_a_passage_stored_under_three_entities_is_shown_once_by_its_source() -> None:
    shown = recall_documents([hit(1, "eiffel tower", 0.8), hit(2, "paris", 1.0), hit(3, "france", 0.9),
                              hit(4, "seine", 0.7, source="", text="The Seine flows through Paris.")])
    assert [(d.id, d.title, d.score) for d in shown] == [
        ("memory:2", "Eiffel Tower (recalled from memory)", 1.0),
        ("memory:4", "recalled from memory (wikipedia)", 0.7)]
    assert shown[1].source == "memory:wikipedia"
