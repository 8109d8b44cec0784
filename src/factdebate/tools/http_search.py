"""The base of every search client over HTTP: endpoint, timeout, retries, a hidden key and a traced ``search``;
a subclass writes only ``_fetch``."""

from __future__ import annotations

from factdebate.core.types import Document
from factdebate.tools.http import traced_search
from factdebate.util.scrub import remember_endpoints, remember_secrets


class HttpSearchTool:
    name = "http"
    default_url = ""

    def __init__(self, *, base_url: str | None = None, timeout: float = 30.0, attempts: int = 4,
                 base_delay: float = 0.5, api_key: str | None = None) -> None:
        self.base_url = (base_url or self.default_url).rstrip("/")
        self.timeout = timeout
        self.attempts = attempts
        self.base_delay = base_delay
        self._key = api_key or None
        remember_endpoints([self.base_url])  # what no caller may read of the engine (util/scrub/)
        remember_secrets([api_key] if api_key else [])

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    async def search(self, query: str, k: int) -> list[Document]:
        return await traced_search(self.name, query, k, lambda: self._search(query, k))

    async def _search(self, query: str, k: int) -> list[Document]:
        if k <= 0 or not query.strip():
            return []
        return (await self._fetch(query, k))[:k]

    async def _fetch(self, query: str, k: int) -> list[Document]:
        raise NotImplementedError  # abstract: each client writes its request
