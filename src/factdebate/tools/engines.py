"""The search engines behind the search and scholar servers, each taking the leakage controls it can.

The tool classes are reused; only the request changes, to carry each API's own date and domain filters."""

from __future__ import annotations

from datetime import date, timedelta

from factdebate.core.types import Document
from factdebate.tools.http import client_scope, request_json, request_text
from factdebate.tools.leakage import Leakage, not_applied
from factdebate.tools.local_search import LocalSearchTool
from factdebate.tools.openalex import OPENALEX_MAX_PER_PAGE, OpenAlexTool, parse_works
from factdebate.tools.pubmed import PUBMED_MAX_RESULTS, PubMedTool, parse_efetch, parse_esearch
from factdebate.tools.tavily import TAVILY_MAX_RESULTS, TavilyTool, parse_results

Found = tuple[list[Document], list[str]]


def drop_excluded(docs: list[Document], leak: Leakage, notes: list[str]) -> list[Document]:
    """Post-filter on the result URL: works for any engine whose results carry one."""
    if not leak.domains:
        return docs
    kept = [d for d in docs if not leak.excluded(d.source)]
    if len(kept) < len(docs):
        notes.append(f"{len(docs) - len(kept)} result(s) from excluded domains removed")
    return kept


def _day_before(day: date) -> str:
    return (day - timedelta(days=1)).isoformat()


async def tavily(tool: TavilyTool, query: str, k: int, leak: Leakage) -> Found:
    notes: list[str] = []
    body: dict[str, object] = {"query": query, "max_results": min(k, TAVILY_MAX_RESULTS),
                               "search_depth": tool.search_depth, "include_answer": False}
    bare = [d for d in leak.domains if "/" not in d]  # Tavily filters whole domains; paths are post-filtered
    if bare:
        body["exclude_domains"] = bare
    if leak.before is not None:
        body["end_date"] = _day_before(leak.before)  # Tavily's end_date is inclusive
        notes.append(f"search_before applied by Tavily (end_date {body['end_date']}); Tavily dates a page by its "
                     "publication or update date as it knows it, so undated pages can still appear")
    async with client_scope(tool.timeout) as client:
        payload = await request_json(client, "POST", f"{tool.base_url}/search", json=body,
                                     headers={"Authorization": f"Bearer {tool._key}"},
                                     attempts=tool.attempts, base_delay=tool.base_delay, timeout=tool.timeout)
    docs = parse_results(payload)
    if leak.before is not None and isinstance(payload, dict):
        late = {str(r.get("url")) for r in payload.get("results") or [] if isinstance(r, dict)
                and str(r.get("published_date") or "")[:10] >= leak.before.isoformat()}
        if late:
            docs = [d for d in docs if d.id not in late]
            notes.append(f"{len(late)} result(s) dated on or after {leak.before} removed")
    return drop_excluded(docs, leak, notes)[:k], notes


async def local(tool: LocalSearchTool, query: str, k: int, leak: Leakage) -> Found:
    notes: list[str] = []
    if leak.before is not None:
        notes.append(not_applied(f"search_before={leak.before}", f"the local corpus '{tool.index.corpus}'",
                                 "has no dates"))
    # Fetch extra so that filtering by domain still leaves k results where the corpus has them.
    docs = await tool.search(query, k * 3 if leak.domains else k)
    return drop_excluded(docs, leak, notes)[:k], notes


async def openalex(tool: OpenAlexTool, query: str, k: int, leak: Leakage) -> Found:
    notes: list[str] = []
    filters = ["has_abstract:true"]
    if leak.before is not None:
        filters.append(f"to_publication_date:{_day_before(leak.before)}")
        notes.append(f"search_before applied by OpenAlex (publication date up to {_day_before(leak.before)})")
    if leak.domains:
        notes.append(not_applied("exclude_domains", "OpenAlex", "returns scholarly works, not web pages; "
                                 "results are DOIs and are filtered by URL only"))
    params: dict[str, str | int | None] = {"search": query, "per-page": min(k, OPENALEX_MAX_PER_PAGE),
                                           "filter": ",".join(filters), "mailto": tool.mailto,
                                           "api_key": tool._key}
    async with client_scope(tool.timeout) as client:
        payload = await request_json(client, "GET", f"{tool.base_url}/works", params=params,
                                     attempts=tool.attempts, base_delay=tool.base_delay, timeout=tool.timeout)
    return drop_excluded(parse_works(payload), leak, notes)[:k], notes


async def pubmed(tool: PubMedTool, query: str, k: int, leak: Leakage) -> Found:
    notes: list[str] = []
    params: dict[str, str | int | None] = {
        "db": "pubmed", "term": query, "retmax": min(k, PUBMED_MAX_RESULTS), "retmode": "json",
        "sort": "relevance", "tool": "factdebate", "api_key": tool._key}
    if leak.before is not None:
        # E-utilities wants both ends of a date range; 1800 predates everything indexed.
        params.update(datetype="pdat", mindate="1800/01/01", maxdate=_day_before(leak.before).replace("-", "/"))
        notes.append(f"search_before applied by PubMed (publication date up to {params['maxdate']})")
    async with client_scope(tool.timeout) as client:
        payload = await request_json(client, "GET", f"{tool.base_url}/esearch.fcgi", params=params,
                                     attempts=tool.attempts, base_delay=tool.base_delay, timeout=tool.timeout)
        pmids = parse_esearch(payload)[:k]
        if not pmids:
            return [], notes
        xml_text = await request_text(
            client, "GET", f"{tool.base_url}/efetch.fcgi",
            params={"db": "pubmed", "id": ",".join(pmids), "rettype": "abstract", "retmode": "xml",
                    "tool": "factdebate", "api_key": tool._key},
            attempts=tool.attempts, base_delay=tool.base_delay, timeout=tool.timeout)
    articles = parse_efetch(xml_text)
    docs = [Document(id=p, title=articles[p][0], text=articles[p][1] or articles[p][0],
                     source=f"https://pubmed.ncbi.nlm.nih.gov/{p}/", score=1.0 / (rank + 1))
            for rank, p in enumerate(pmids) if p in articles]
    return drop_excluded(docs, leak, notes), notes
