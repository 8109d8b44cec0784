"""Online Wikipedia through the MediaWiki Action API, with the shared HTTP client (retries, clean errors).

With ``search_before`` a page is read as its last revision before that date; search, which cannot be dated,
returns titles only then, and says so."""

from __future__ import annotations

from typing import Any

from factdebate.core.types import Document
from factdebate.tools.http import client_scope, dumps_compact, request_json
from factdebate.tools.leakage import Leakage, not_applied
from factdebate.tools.wikipedia import WikipediaTool, parse_search, strip_html, summary_path
from factdebate.toolservers.wiki_backend import Article
from factdebate.toolservers.wiki_html import html_sections
from factdebate.util.errors import FactDebateError, InputError


class OnlineWikipedia:
    mode = "online"

    def __init__(self, lang: str = "en", **options: Any) -> None:
        self.wiki = WikipediaTool(lang, **options)  # its client settings, User-Agent and base URL

    async def _api(self, params: dict[str, str | int]) -> Any:
        w = self.wiki
        async with client_scope(w.timeout) as client:
            payload = await request_json(client, "GET", f"{w.base_url}/w/api.php",
                                         params={**params, "format": "json", "formatversion": 2},
                                         headers=w.headers, attempts=w.attempts, base_delay=w.base_delay,
                                         timeout=w.timeout)
        if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
            err = payload["error"]
            if err.get("code") in ("missingtitle", "nosuchrevid"):
                raise InputError(f"Wikipedia has no such page ({err.get('info', err.get('code'))})")
            raise FactDebateError(f"Wikipedia API error {err.get('code')}: {err.get('info', '')}")
        return payload

    def _docs(self, payload: Any, k: int, leak: Leakage) -> list[Document]:
        docs = []
        for hit in parse_search(payload)[:k]:
            title = str(hit["title"])
            docs.append(Document(id=str(hit.get("pageid") or title), title=title,
                                 text="" if leak.before else strip_html(str(hit.get("snippet") or "")),
                                 source=f"{self.wiki.base_url}/wiki/{summary_path(title)}", score=hit["_score"]))
        return docs

    def _date_notes(self, leak: Leakage) -> list[str]:
        if leak.before is None:
            return []
        return [not_applied(f"search_before={leak.before} to the ranking", "Wikipedia search",
                            "only indexes current pages; snippets are left out, and get_summary/get_article "
                            "with the same search_before read each page as it stood then")]

    async def search(self, query: str, k: int, leak: Leakage) -> tuple[list[Document], list[str]]:
        payload = await self._api({"action": "query", "list": "search", "srsearch": query, "srlimit": k})
        return self._docs(payload, k, leak), self._date_notes(leak)

    async def related(self, title: str, k: int, leak: Leakage) -> tuple[list[Document], list[str]]:
        payload = await self._api({"action": "query", "list": "search", "srsearch": f"morelike:{title}",
                                   "srlimit": k})
        return self._docs(payload, k, leak), self._date_notes(leak)

    async def _revision_before(self, title: str, leak: Leakage) -> tuple[int, str]:
        assert leak.before is not None
        payload = await self._api({"action": "query", "prop": "revisions", "titles": title, "redirects": 1,
                                   "rvlimit": 1, "rvdir": "older", "rvprop": "ids|timestamp",
                                   "rvstart": f"{leak.before.isoformat()}T00:00:00Z"})
        pages = (payload.get("query") or {}).get("pages") if isinstance(payload, dict) else None
        if not isinstance(pages, list) or not pages:
            raise FactDebateError(f"unexpected Wikipedia revisions response: {dumps_compact(payload)}")
        page = pages[0]
        if page.get("missing") or page.get("invalid"):
            raise InputError(f"Wikipedia has no page titled '{title}'")
        revisions = page.get("revisions") or []
        if not revisions:
            raise InputError(f"the Wikipedia page '{title}' did not exist before {leak.before}")
        return int(revisions[0]["revid"]), str(revisions[0].get("timestamp", ""))

    async def article(self, title: str, leak: Leakage) -> Article:
        params: dict[str, str | int] = {"action": "parse", "prop": "text|revid", "disableeditsection": 1,
                                        "disabletoc": 1}
        revision = None
        if leak.before is not None:
            revid, stamp = await self._revision_before(title, leak)
            params["oldid"] = revid
            revision = f"{revid} saved {stamp}"
        else:
            params.update(page=title, redirects=1)
        payload = await self._api(params)
        parsed = payload.get("parse") if isinstance(payload, dict) else None
        if not isinstance(parsed, dict) or not isinstance(parsed.get("text"), str):
            raise FactDebateError(f"unexpected Wikipedia parse response: {dumps_compact(payload)}")
        name = str(parsed.get("title") or title)
        source = (f"{self.wiki.base_url}/w/index.php?oldid={params['oldid']}" if "oldid" in params
                  else f"{self.wiki.base_url}/wiki/{summary_path(name)}")
        notes = [f"read as of revision {revision}"] if revision else []
        if name != title and "oldid" not in params:
            notes.append(f"'{title}' redirects to '{name}'")
        return Article(name, source, html_sections(parsed["text"]), notes, revision)
