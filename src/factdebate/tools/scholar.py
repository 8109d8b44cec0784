"""The scholarly search pipeline (the paper's medical setting): keywords → top abstracts (OpenAlex or PubMed) →
a summary of each, written by the debater model (the paper's DistilBART does not ship offline)."""

from __future__ import annotations

import asyncio
import re

from factdebate.core.types import Document
from factdebate.llm.ask import ask
from factdebate.llm.base import GenParams, Message
from factdebate.llm.model import LLM
from factdebate.prompts import render
from factdebate.tools.base import Tool


def parse_keywords(text: str) -> str | None:
    """Keywords as one search string, from a comma/semicolon/line separated reply."""
    first = next((ln for ln in text.strip().splitlines() if ln.strip()), "")
    first = re.sub(r"^\s*keywords?\s*:\s*", "", first, flags=re.I)
    words = [w.strip(" .\"'-*") for w in re.split(r"[,;]", first)]
    words = [w for w in words if w]
    return " ".join(words[:8]) if words else None


class ScholarPipeline:
    """Keywords from the query, ``abstracts`` papers, one summary each (each step with its fallback)."""

    def __init__(self, inner: Tool, llm: LLM, *, abstracts: int = 3, summarize: bool = True,
                 summary_chars: int = 600) -> None:
        self.inner = inner
        self.llm = llm
        self.abstracts = abstracts
        self.summarize = summarize
        self.summary_chars = summary_chars
        self.name = f"{inner.name}+summary" if summarize else inner.name

    async def search(self, query: str, k: int) -> list[Document]:
        keywords = (await ask(self.llm, render("medical_keywords", query=query), parse_keywords, what="keywords",
                              params=GenParams(temperature=0.0, max_tokens=48),
                              problem="no comma-separated keywords were found", agent="scholar")).value
        documents = await self.inner.search(keywords or query, self.abstracts)
        if not self.summarize:
            return documents
        return list(await asyncio.gather(*(self._summary(query, d) for d in documents)))

    async def _summary(self, query: str, document: Document) -> Document:
        prompt = render("medical_summary", query=query, title=document.title, abstract=document.text)
        messages: list[Message] = [{"role": "user", "content": prompt.text}]
        reply = await self.llm.complete(messages, GenParams(temperature=0.0, max_tokens=160), agent="scholar",
                                        prompt=prompt.name)
        text = " ".join(reply.text.split()) or document.text[: self.summary_chars]
        return document.model_copy(update={"text": text[: self.summary_chars]})
