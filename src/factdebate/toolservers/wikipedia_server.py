"""The Wikipedia tool server: the seven tools of the MERMAID paper over an offline corpus or MediaWiki.

Tool descriptions tell the agent what each tool really does in the current mode (passages offline, page
revisions online), because a model that believes it read a whole article reasons differently."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from factdebate.tools.leakage import LeakagePolicy
from factdebate.toolservers.common import (
    MAX_K,
    K,
    Query,
    SearchBefore,
    Title,
    clip,
    doc_result,
    search_reply,
    tool_errors,
)
from factdebate.toolservers.extractive import Encode, arank_sentences, default_encode
from factdebate.toolservers.wiki_backend import Article, Section, WikiBackend
from factdebate.util.errors import InputError

Count = Annotated[int, Field(ge=1, le=MAX_K, description="How many sentences or facts.")]
SectionRef = Annotated[str, Field(min_length=1, max_length=200,
                                  description="Section number (from get_sections) or heading.")]
Focus = Annotated[str | None, Field(default=None, max_length=300,
                                    description="What the summary or facts should be about (default: the title).")]

_OFFLINE = {
    "sections": "Sections here are the article's indexed passages (about 180 words each), numbered from 0; "
                "the offline corpus keeps no headings.",
    "related": "Offline there are no page links: this returns the articles whose text is nearest to this "
               "article's (dense vector search), not Wikipedia's link graph.",
}
_ONLINE = {
    "sections": "Sections are the article's headings as MediaWiki parses them, numbered from 0 (the lead).",
    "related": "Returns articles that Wikipedia's own 'more like this' search finds similar to this one.",
}
_EXTRACTIVE = ("Extractive: the sentences of the text most similar in meaning (MiniLM embeddings) to the focus, "
               "in their original order; nothing is paraphrased or generated.")


def _section(article: Article, ref: str) -> Section:
    wanted = ref.strip()
    if wanted.isdigit():
        for section in article.sections:
            if section.number == int(wanted):
                return section
    for section in article.sections:
        if section.heading.casefold() == wanted.casefold():
            return section
    names = ", ".join(f"{s.number}: {s.heading}" for s in article.sections[:30])
    raise InputError(f"'{article.title}' has no section '{ref}'; its sections are {names}")


def _page(article: Article, **extra: Any) -> dict[str, Any]:
    page: dict[str, Any] = {"title": article.title, "source": article.source, **extra, "notes": article.notes}
    if article.revision:
        page["revision"] = article.revision
    return page


def build_wikipedia_server(backend: WikiBackend, policy: LeakagePolicy | None = None,
                           encode: Encode | None = None) -> MCPServer:
    policy = policy or LeakagePolicy()
    words = _OFFLINE if backend.mode == "offline" else _ONLINE
    encoder: list[Encode] = [encode] if encode else []

    def enc() -> Encode:
        if not encoder:
            encoder.append(default_encode())  # loaded on the first summary, not at start-up
        return encoder[0]

    server = MCPServer(name="factdebate-wikipedia", log_level="WARNING",
                       instructions=f"Wikipedia evidence ({backend.mode}). Start with search_wikipedia, then "
                                    "read a page with get_summary, get_article or get_sections.")

    @server.tool(description="Search Wikipedia for articles about a query. Returns titles with their best "
                             "matching passage, most relevant first.")
    @tool_errors
    async def search_wikipedia(query: Query, k: K = 5, search_before: SearchBefore = None) -> dict[str, Any]:
        docs, notes = await backend.search(query.strip(), k, policy.for_call(search_before))
        return search_reply(docs, notes, 600)

    @server.tool(description="The lead (opening summary) of a Wikipedia article. A title that does not exist "
                             "exactly is resolved to the closest match, and the result says so.")
    @tool_errors
    async def get_summary(title: Title, search_before: SearchBefore = None) -> dict[str, Any]:
        article = await backend.article(title.strip(), policy.for_call(search_before))
        return _page(article, summary=clip(article.sections[0].text, 3000))

    @server.tool(description="The full text of a Wikipedia article (cut at about 8,000 characters; use "
                             "get_sections and summarize_article_section for long pages).")
    @tool_errors
    async def get_article(title: Title, search_before: SearchBefore = None) -> dict[str, Any]:
        article = await backend.article(title.strip(), policy.for_call(search_before))
        return _page(article, text=clip(article.text))

    @server.tool(description="The sections of a Wikipedia article with a short preview of each. "
                             + words["sections"])
    @tool_errors
    async def get_sections(title: Title, search_before: SearchBefore = None) -> dict[str, Any]:
        article = await backend.article(title.strip(), policy.for_call(search_before))
        return _page(article, sections=[{"number": s.number, "heading": s.heading, "preview": clip(s.text, 160)}
                                        for s in article.sections])

    @server.tool(description="Articles related to a Wikipedia article. " + words["related"])
    @tool_errors
    async def get_related_topics(title: Title, k: K = 5, search_before: SearchBefore = None) -> dict[str, Any]:
        docs, notes = await backend.related(title.strip(), k, policy.for_call(search_before))
        return {"title": title, "related": [doc_result(d, 300) for d in docs], "notes": notes}

    @server.tool(description="A short summary of one section of a Wikipedia article. " + _EXTRACTIVE + " "
                             + words["sections"])
    @tool_errors
    async def summarize_article_section(title: Title, section: SectionRef, focus: Focus = None,
                                        sentences: Count = 3, search_before: SearchBefore = None) -> dict[str, Any]:
        article = await backend.article(title.strip(), policy.for_call(search_before))
        part = _section(article, section)
        chosen = await arank_sentences(part.text, focus or f"{article.title} {part.heading}", enc(), sentences)
        return _page(article, section={"number": part.number, "heading": part.heading},
                     summary=" ".join(chosen))

    @server.tool(description="Key facts from a Wikipedia article: the sentences that state something checkable "
                             "(numbers, names) and are closest to the focus. " + _EXTRACTIVE)
    @tool_errors
    async def extract_key_facts(title: Title, focus: Focus = None, count: Count = 5,
                                search_before: SearchBefore = None) -> dict[str, Any]:
        article = await backend.article(title.strip(), policy.for_call(search_before))
        facts = await arank_sentences(article.text, focus or article.title, enc(), count, facts=True)
        return _page(article, facts=facts)

    return server
