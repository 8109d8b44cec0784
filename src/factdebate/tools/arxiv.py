"""arXiv preprints through the arXiv API (an Atom feed; https://info.arxiv.org/help/api/user-manual.html).

A query asks for all of its words, then, finding nothing, any of them. No pacing: an agent makes a handful of
requests per claim."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import date

from factdebate.core.types import Document
from factdebate.tools.http import client_scope, request_text, traced_search
from factdebate.tools.http_search import HttpSearchTool
from factdebate.util.errors import FactDebateError

ARXIV_DEFAULT_URL = "https://export.arxiv.org/api/query"
ARXIV_MAX_RESULTS = 50
MAX_TERMS = 12
_ATOM = "{http://www.w3.org/2005/Atom}"
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*")
_OPERATORS = {"and", "or", "andnot"}


def _terms(query: str) -> list[str]:
    words = [w.strip(".-+") for w in _WORD.findall(query)]
    return [w for w in words if w and w.lower() not in _OPERATORS][:MAX_TERMS]


def search_query(query: str, join: str = "AND", before: date | None = None) -> str:
    """arXiv query syntax for the words of ``query``; ``before`` limits the submission date (exclusive)."""
    terms = _terms(query)
    if not terms:
        return ""
    text = f" {join} ".join(f"all:{t}" for t in terms)
    if before is not None:
        text = f"({text}) AND submittedDate:[190001010000 TO {before.strftime('%Y%m%d')}0000]"
    return text


def _text(entry: ET.Element, tag: str) -> str:
    found = entry.find(_ATOM + tag)
    return " ".join((found.text or "").split()) if found is not None else ""


def parse_feed(xml_text: str) -> list[Document]:
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise FactDebateError(f"arXiv returned unreadable XML: {exc}") from None
    docs: list[Document] = []
    for rank, entry in enumerate(root.iter(_ATOM + "entry")):
        entry_id, title = _text(entry, "id"), _text(entry, "title")
        if title == "Error" and "api/errors" in entry_id:  # arXiv reports a bad query as a feed entry
            raise FactDebateError(f"arXiv rejected the query: {_text(entry, 'summary')}")
        if not entry_id:
            continue
        link = next((el.get("href", "") for el in entry.iter(_ATOM + "link")
                     if el.get("rel") == "alternate"), entry_id)
        published = _text(entry, "published")[:10]  # shown: a claim's date may hinge on it
        docs.append(Document(id=entry_id.rsplit("/abs/", 1)[-1],
                             title=f"{title} ({published})" if published else title,
                             text=_text(entry, "summary") or title, source=link or entry_id,
                             score=1.0 / (rank + 1)))
    return docs


class ArxivTool(HttpSearchTool):
    name = "arxiv"
    default_url = ARXIV_DEFAULT_URL

    def __init__(self, *, base_url: str | None = None, timeout: float = 30.0,
                 attempts: int = 4, base_delay: float = 1.0) -> None:
        super().__init__(base_url=base_url, timeout=timeout, attempts=attempts, base_delay=base_delay)

    async def search(self, query: str, k: int) -> list[Document]:
        return await self.search_filtered(query, k)

    async def search_filtered(self, query: str, k: int, before: date | None = None) -> list[Document]:
        return await traced_search(self.name, query, k, lambda: self._search_before(query, k, before))

    async def _search_before(self, query: str, k: int, before: date | None) -> list[Document]:
        if k <= 0 or not _terms(query):
            return []
        async with client_scope(self.timeout) as client:
            for join in ("AND", "OR"):
                params: dict[str, str | int] = {"search_query": search_query(query, join, before), "start": 0,
                          "max_results": min(k, ARXIV_MAX_RESULTS), "sortBy": "relevance"}
                xml_text = await request_text(client, "GET", self.base_url, params=params,
                                              attempts=self.attempts, base_delay=self.base_delay,
                                              timeout=self.timeout)
                docs = parse_feed(xml_text)
                if docs or len(_terms(query)) == 1:
                    return docs[:k]
        return []
