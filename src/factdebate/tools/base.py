"""The retrieval-tool protocol shared by every evidence source."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from factdebate.core.types import Document


@runtime_checkable
class Tool(Protocol):
    """``name`` is what traces and verdicts show (``rag``, ``local``, ``tavily``, ``wikipedia``...)."""

    name: str

    async def search(self, query: str, k: int) -> list[Document]: ...
