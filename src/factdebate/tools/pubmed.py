"""Biomedical literature through NCBI E-utilities: ESearch for PMIDs, then EFetch for the abstracts.

https://www.ncbi.nlm.nih.gov/books/NBK25499/"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Any

from factdebate.core.types import Document
from factdebate.tools.http import client_scope, dumps_compact, request_json, request_text
from factdebate.tools.http_search import HttpSearchTool
from factdebate.util.errors import FactDebateError

EUTILS_DEFAULT_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
PUBMED_MAX_RESULTS = 200  # keeps the EFetch id list (a GET query string) comfortably short


def _text(element: ET.Element | None) -> str:
    # Titles and abstracts carry inline markup (<i>, <sup>...): keep all the text, normalise spaces.
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def parse_efetch(xml_text: str) -> dict[str, tuple[str, str]]:
    """PMID -> (title, abstract) for every article or book chapter in an EFetch XML answer."""
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise FactDebateError(f"PubMed returned unreadable XML: {exc}") from None
    articles: dict[str, tuple[str, str]] = {}
    for record in root:
        if record.tag not in ("PubmedArticle", "PubmedBookArticle"):
            continue
        pmid = _text(record.find(".//PMID"))
        if not pmid:
            continue
        title = _text(record.find(".//ArticleTitle")) or _text(record.find(".//BookTitle"))
        parts = []
        for part in record.iterfind(".//Abstract/AbstractText"):
            body = _text(part)
            if not body:
                continue
            label = part.get("Label")
            # Structured abstracts (BACKGROUND/METHODS/...) lose their meaning without the section labels.
            parts.append(f"{label}: {body}" if label else body)
        articles[pmid] = (title, "\n".join(parts))
    return articles


def parse_esearch(payload: Any) -> list[str]:
    result = payload.get("esearchresult") if isinstance(payload, dict) else None
    if not isinstance(result, dict):
        raise FactDebateError(f"unexpected PubMed ESearch response: {dumps_compact(payload)}")
    if result.get("ERROR"):
        raise FactDebateError(f"PubMed search failed: {result['ERROR']}")
    return [str(pmid) for pmid in result.get("idlist") or []]


class PubMedTool(HttpSearchTool):
    name = "pubmed"
    default_url = EUTILS_DEFAULT_URL

    def __init__(self, api_key: str | None = None, *, base_url: str | None = None, timeout: float = 30.0,
                 attempts: int = 4, base_delay: float = 0.5) -> None:
        # Optional: a key raises NCBI's limit from 3 to 10 requests per second.
        super().__init__(base_url=base_url, timeout=timeout, attempts=attempts,
                         base_delay=base_delay, api_key=api_key or os.environ.get("NCBI_API_KEY"))

    async def _fetch(self, query: str, k: int) -> list[Document]:
        async with client_scope(self.timeout) as client:
            payload = await request_json(
                client, "GET", f"{self.base_url}/esearch.fcgi",
                params={"db": "pubmed", "term": query, "retmax": min(k, PUBMED_MAX_RESULTS),
                        "retmode": "json", "sort": "relevance", "tool": "factdebate", "api_key": self._key},
                attempts=self.attempts, base_delay=self.base_delay, timeout=self.timeout,
            )
            pmids = parse_esearch(payload)[:k]
            if not pmids:
                return []
            xml_text = await request_text(
                client, "GET", f"{self.base_url}/efetch.fcgi",
                params={"db": "pubmed", "id": ",".join(pmids), "rettype": "abstract", "retmode": "xml",
                        "tool": "factdebate", "api_key": self._key},
                attempts=self.attempts, base_delay=self.base_delay, timeout=self.timeout,
            )
        articles = parse_efetch(xml_text)
        docs: list[Document] = []
        # ESearch order is the relevance ranking; EFetch does not promise to keep it.
        for rank, pmid in enumerate(pmids):
            if pmid not in articles:
                continue
            title, abstract = articles[pmid]
            docs.append(Document(
                id=pmid,
                title=title,
                text=abstract or title,
                source=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
                score=1.0 / (rank + 1),
            ))
        return docs
