"""Web search through the Tavily Search API (https://docs.tavily.com)."""

from __future__ import annotations

import os
from typing import Any

from factdebate.core.errors import MissingKeyError
from factdebate.core.types import Document
from factdebate.tools.http import client_scope, dumps_compact, request_json
from factdebate.tools.http_search import HttpSearchTool
from factdebate.util.errors import FactDebateError

TAVILY_DEFAULT_URL = "https://api.tavily.com"
# The API rejects max_results above this.
TAVILY_MAX_RESULTS = 20


class TavilyTool(HttpSearchTool):
    name = "tavily"
    default_url = TAVILY_DEFAULT_URL

    def __init__(self, api_key: str | None = None, *, base_url: str | None = None, timeout: float = 30.0,
                 attempts: int = 4, base_delay: float = 0.5,
                 search_depth: str = "basic") -> None:
        key = api_key or os.environ.get("TAVILY_API_KEY")
        if not key:
            # Fail when the tool is configured, not halfway through a debate.
            raise MissingKeyError("TAVILY_API_KEY", "the tavily search tool")
        super().__init__(base_url=base_url, timeout=timeout, attempts=attempts,
                         base_delay=base_delay, api_key=key)
        self.search_depth = search_depth

    async def _fetch(self, query: str, k: int) -> list[Document]:
        body = {
            "query": query,
            "max_results": min(k, TAVILY_MAX_RESULTS),
            "search_depth": self.search_depth,
            "include_answer": False,
        }
        async with client_scope(self.timeout) as client:
            payload = await request_json(
                client, "POST", f"{self.base_url}/search", json=body,
                headers={"Authorization": f"Bearer {self._key}"},
                attempts=self.attempts, base_delay=self.base_delay, timeout=self.timeout,
            )
        return parse_results(payload)


def parse_results(payload: Any) -> list[Document]:
    if not isinstance(payload, dict) or not isinstance(payload.get("results", []), list):
        raise FactDebateError(f"unexpected Tavily response: {dumps_compact(payload)}")
    docs: list[Document] = []
    for item in payload.get("results") or []:
        if not isinstance(item, dict) or not item.get("url"):
            continue
        url = str(item["url"])
        docs.append(Document(
            id=url,
            title=str(item.get("title") or url),
            text=str(item.get("content") or ""),
            source=url,
            score=float(item.get("score") or 0.0),
        ))
    return docs
