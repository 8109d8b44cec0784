"""Offline Wikipedia over an indexed corpus (the builtin 10,033 lead summaries by default).

Search fuses BM25 and dense rankings by reciprocal rank (BM25 alone, said, without the dense index); an
article's "sections" are its passages."""

from __future__ import annotations

import asyncio
import logging

from factdebate.core.types import Document
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.milvus import MilvusStore
from factdebate.tools.leakage import Leakage, not_applied
from factdebate.toolservers.wiki_backend import Article, Section
from factdebate.util.errors import FactDebateError, InputError

RRF_K = 60  # the usual reciprocal-rank-fusion constant: rank 1 and rank 5 differ, but not by orders
MAX_PASSAGES = 64  # passages fetched per article
log = logging.getLogger("factdebate.toolservers")


class OfflineWikipedia:
    mode = "offline"

    def __init__(self, corpus: str = "builtin", *, dense: MilvusStore | None = None,
                 lexical: LexicalIndex | None = None) -> None:
        self.corpus = corpus
        self.lexical = lexical or LexicalIndex(corpus)
        self.dense = dense
        self._dense_error: str | None = None

    def _date_note(self, leak: Leakage) -> list[str]:
        if leak.before is None:
            return []
        return [not_applied(f"search_before={leak.before}", f"the offline corpus '{self.corpus}'",
                            "is a single undated snapshot with no revision history")]

    async def _dense(self, query: str, k: int) -> list[Document]:
        if self.dense is None or self._dense_error:
            return []
        try:
            return await self.dense.search(query, k)
        except FactDebateError as exc:
            # Keep serving on BM25; remember why, so every later result can say so.
            self._dense_error = str(exc)
            log.warning("dense search disabled: %s", exc)
            return []

    def _dense_note(self) -> list[str]:
        if self.dense is None:
            return ["ranking is BM25 only (dense search is off for this server)"]
        if self._dense_error:
            return ["ranking is BM25 only: the dense index could not be used"]
        return []

    async def _passages(self, query: str, k: int) -> list[Document]:
        lexical, dense = await asyncio.gather(self.lexical.search(query, k), self._dense(query, k))
        fused: dict[str, tuple[float, Document]] = {}
        for ranking in (lexical, dense):
            for rank, doc in enumerate(ranking):
                score = fused.get(doc.id, (0.0, doc))[0] + 1.0 / (RRF_K + rank + 1)
                fused[doc.id] = (score, doc)
        ordered = sorted(fused.values(), key=lambda item: -item[0])
        return [doc.model_copy(update={"score": score}) for score, doc in ordered]

    async def search(self, query: str, k: int, leak: Leakage) -> tuple[list[Document], list[str]]:
        passages = await self._passages(query, k * 3)
        by_title: dict[str, Document] = {}
        for doc in passages:  # one hit per article: its best passage
            by_title.setdefault(doc.title, doc)
        return list(by_title.values())[:k], self._dense_note() + self._date_note(leak)

    def _by_ids(self, doc_id: str) -> list[Document]:
        docs = self.lexical.fetch([f"{doc_id}#{n}" for n in range(MAX_PASSAGES)])
        return sorted(docs, key=lambda d: int(d.id.rsplit("#", 1)[1]))

    async def _resolve(self, title: str) -> tuple[str, list[str]]:
        """The document id behind ``title``: exact title, else case-insensitive, else the best search hit."""
        hits = await self.lexical.search(title, 10)
        for same in (lambda h: h.title == title, lambda h: h.title.casefold() == title.casefold()):
            for hit in hits:
                if same(hit):
                    return hit.id.rsplit("#", 1)[0], []
        if not hits:
            raise InputError(f"no article matches '{title}' in the offline corpus '{self.corpus}'")
        best = hits[0]
        return best.id.rsplit("#", 1)[0], [f"no article is titled '{title}'; this is the closest match, '{best.title}'"]

    async def article(self, title: str, leak: Leakage) -> Article:
        # Builtin passages are keyed by title ("<title>#<n>"), so try that first; other corpora key them by
        # their own document id, which a search on the title finds.
        passages = await asyncio.to_thread(self._by_ids, title)
        notes: list[str] = []
        if not passages:
            doc_id, notes = await self._resolve(title)
            passages = await asyncio.to_thread(self._by_ids, doc_id)
        if not passages:
            raise InputError(f"no article titled '{title}' in the offline corpus '{self.corpus}'")
        sections = [Section(n, f"Passage {n}", doc.text) for n, doc in enumerate(passages)]
        first = passages[0]
        return Article(first.title, first.source, sections, notes + self._date_note(leak))

    async def related(self, title: str, k: int, leak: Leakage) -> tuple[list[Document], list[str]]:
        article = await self.article(title, leak)
        probe = f"{article.title}. {article.sections[0].text}"
        passages = await self._dense(probe, k * 3 + 3)
        how = "nearest neighbours of the article's first passage in the dense index"
        if not passages:
            passages = await self.lexical.search(probe, k * 3 + 3)
            how = "BM25 neighbours of the article's first passage (dense index unavailable)"
        seen = {article.title}
        related: list[Document] = []
        for doc in passages:
            if doc.title not in seen:
                seen.add(doc.title)
                related.append(doc)
        notes = [f"offline there is no link graph: these are {how}", *article.notes]
        return related[:k], notes
