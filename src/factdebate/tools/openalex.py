"""Scholarly search through OpenAlex works (https://docs.openalex.org)."""

from __future__ import annotations

import os
from typing import Any

from factdebate.core.types import Document
from factdebate.tools.http import client_scope, dumps_compact, request_json
from factdebate.tools.http_search import HttpSearchTool
from factdebate.util.errors import FactDebateError

OPENALEX_DEFAULT_URL = "https://api.openalex.org"
OPENALEX_MAX_PER_PAGE = 200


def rebuild_abstract(inverted: Any) -> str:
    """Turn OpenAlex's ``abstract_inverted_index`` (word -> positions) back into running text."""
    if not isinstance(inverted, dict):
        return ""
    slots: dict[int, str] = {}
    for word, positions in inverted.items():
        for pos in positions if isinstance(positions, list) else []:
            if isinstance(pos, int):
                slots[pos] = str(word)
    return " ".join(slots[pos] for pos in sorted(slots))


class OpenAlexTool(HttpSearchTool):
    name = "openalex"
    default_url = OPENALEX_DEFAULT_URL

    def __init__(self, api_key: str | None = None, *, base_url: str | None = None, timeout: float = 30.0,
                 attempts: int = 4, base_delay: float = 0.5,
                 mailto: str | None = None) -> None:
        # Both optional: OpenAlex is open; a mailto gets the faster "polite pool", a key the premium limits.
        super().__init__(base_url=base_url, timeout=timeout, attempts=attempts,
                         base_delay=base_delay, api_key=api_key or os.environ.get("OPENALEX_API_KEY"))
        self.mailto = mailto or os.environ.get("OPENALEX_MAILTO") or None

    async def _fetch(self, query: str, k: int) -> list[Document]:
        params: dict[str, str | int | None] = {
            "search": query,
            "per-page": min(k, OPENALEX_MAX_PER_PAGE),
            "filter": "has_abstract:true",
            "mailto": self.mailto,
            "api_key": self._key,
        }
        async with client_scope(self.timeout) as client:
            payload = await request_json(
                client, "GET", f"{self.base_url}/works", params=params,
                attempts=self.attempts, base_delay=self.base_delay, timeout=self.timeout,
            )
        return parse_works(payload)[:k]


def parse_works(payload: Any) -> list[Document]:
    if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
        raise FactDebateError(f"unexpected OpenAlex response: {dumps_compact(payload)}")
    docs: list[Document] = []
    for work in payload["results"]:
        if not isinstance(work, dict) or not work.get("id"):
            continue
        work_id = str(work["id"])
        title = str(work.get("display_name") or work.get("title") or "")
        abstract = rebuild_abstract(work.get("abstract_inverted_index"))
        docs.append(Document(
            id=work_id,
            title=title,
            text=abstract or title,
            source=str(work.get("doi") or work_id),
            score=float(work.get("relevance_score") or 0.0),
        ))
    return docs
