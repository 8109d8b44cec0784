"""Wikipedia search: MediaWiki full-text search, then each hit's REST page summary.

Summaries are fetched concurrently; a hit whose summary fails keeps its snippet."""

from __future__ import annotations

import asyncio
import html
import os
import re
from typing import Any
from urllib.parse import quote

import aiohttp

from factdebate.core.types import Document
from factdebate.tools.http import client_scope, dumps_compact, request_json
from factdebate.tools.http_search import HttpSearchTool
from factdebate.util.bounded_get import Clients
from factdebate.util.errors import FactDebateError
from factdebate.util.version import __version__

# Wikimedia's User-Agent policy asks for a tool name and version plus contact details; deployments should
# pass ``user_agent=`` (or set FACTDEBATE_USER_AGENT) with their own URL or e-mail address.
DEFAULT_USER_AGENT = f"factdebate/{__version__} (claim-verification research tool) aiohttp/{aiohttp.__version__}"
WIKIPEDIA_MAX_RESULTS = 50  # srlimit cap for ordinary (non-bot) clients
_TAG = re.compile(r"<[^>]+>")


def strip_html(snippet: str) -> str:
    """Search snippets are HTML (``<span class="searchmatch">``) with entities; keep only the text."""
    return " ".join(html.unescape(_TAG.sub("", snippet)).split())


def summary_path(title: str) -> str:
    # Titles go in the path with underscores; "/" and "?" in titles (e.g. "AC/DC") must be escaped too.
    return quote(title.replace(" ", "_"), safe="")


class WikipediaTool(HttpSearchTool):
    name = "wikipedia"

    def __init__(self, lang: str = "en", *, base_url: str | None = None, timeout: float = 20.0,
                 attempts: int = 4, base_delay: float = 0.5,
                 user_agent: str | None = None, max_parallel: int = 8) -> None:
        super().__init__(base_url=base_url or f"https://{lang}.wikipedia.org", timeout=timeout,
                         attempts=attempts, base_delay=base_delay)
        self.lang = lang
        agent = user_agent or os.environ.get("FACTDEBATE_USER_AGENT") or DEFAULT_USER_AGENT
        self.headers = {"User-Agent": agent, "Accept": "application/json"}
        # Wikimedia asks API clients to keep concurrency modest.
        self.max_parallel = max(1, max_parallel)

    async def _fetch(self, query: str, k: int) -> list[Document]:
        params: dict[str, str | int] = {
            "action": "query",
            "list": "search",
            "srsearch": query,
            "srlimit": min(k, WIKIPEDIA_MAX_RESULTS),
            "format": "json",
            "formatversion": 2,
        }
        async with client_scope(self.timeout) as client:
            payload = await request_json(
                client, "GET", f"{self.base_url}/w/api.php", params=params, headers=self.headers,
                attempts=self.attempts, base_delay=self.base_delay, timeout=self.timeout,
            )
            hits = parse_search(payload)[:k]
            gate = asyncio.Semaphore(self.max_parallel)

            async def fetch(hit: dict[str, Any]) -> Document:
                async with gate:
                    return await self._summary(client, hit)

            return list(await asyncio.gather(*(fetch(hit) for hit in hits)))

    async def _summary(self, client: Clients, hit: dict[str, Any]) -> Document:
        title = str(hit["title"])
        rank_score = float(hit["_score"])
        try:
            data = await request_json(
                client, "GET", f"{self.base_url}/api/rest_v1/page/summary/{summary_path(title)}",
                headers=self.headers, attempts=self.attempts, base_delay=self.base_delay,
                timeout=self.timeout,
            )
            extract = str(data.get("extract") or "").strip() if isinstance(data, dict) else ""
        except FactDebateError:
            data, extract = None, ""
        if isinstance(data, dict) and extract:
            page = ((data.get("content_urls") or {}).get("desktop") or {}).get("page")
            return Document(
                id=str(data.get("pageid") or hit.get("pageid") or title),
                title=str(data.get("title") or title),
                text=extract,
                source=str(page or self._page_url(title)),
                score=rank_score,
            )
        return Document(
            id=str(hit.get("pageid") or title),
            title=title,
            text=strip_html(str(hit.get("snippet") or "")),
            source=self._page_url(title),
            score=rank_score,
        )

    def _page_url(self, title: str) -> str:
        return f"{self.base_url}/wiki/{summary_path(title)}"


def parse_search(payload: Any) -> list[dict[str, Any]]:
    """Hits in ranked order, each with a ``_score`` (MediaWiki gives ranks, not scores)."""
    if isinstance(payload, dict) and "error" in payload:
        err = payload["error"] if isinstance(payload["error"], dict) else {}
        raise FactDebateError(
            f"Wikipedia search failed: {err.get('code', 'error')}: {err.get('info', dumps_compact(payload))}"
        )
    query = payload.get("query") if isinstance(payload, dict) else None
    if not isinstance(query, dict):
        raise FactDebateError(f"unexpected Wikipedia search response: {dumps_compact(payload)}")
    hits = [h for h in query.get("search") or [] if isinstance(h, dict) and h.get("title")]
    return [{**hit, "_score": 1.0 / (rank + 1)} for rank, hit in enumerate(hits)]
