"""The shape both Wikipedia modes fill in. The seven tools are written once, over these three calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from factdebate.core.types import Document
from factdebate.tools.leakage import Leakage


@dataclass
class Section:
    number: int
    heading: str
    text: str


@dataclass
class Article:
    title: str
    source: str
    sections: list[Section]
    notes: list[str] = field(default_factory=list)
    revision: str | None = None  # online with a date: the revision id and its timestamp

    @property
    def text(self) -> str:
        return "\n\n".join(s.text if not s.heading or s.number == 0 else f"{s.heading}\n{s.text}"
                           for s in self.sections)


class WikiBackend(Protocol):
    mode: str

    async def search(self, query: str, k: int, leak: Leakage) -> tuple[list[Document], list[str]]: ...

    async def article(self, title: str, leak: Leakage) -> Article: ...

    async def related(self, title: str, k: int, leak: Leakage) -> tuple[list[Document], list[str]]: ...
