"""The searches a retrieval evaluation measures, each built as the method that stands on it searches:

``bm25`` (the ``local`` tool), ``dense-<encoder>`` (the ``rag`` tool, one per ``--dense ENCODER[=URI]``) and
``fusion-<encoder>`` (MERMAID's offline Wikipedia). Each is called through its coroutine as the tools call it:
torch's encoder costs ten times the CPU on the main thread."""

from __future__ import annotations

from dataclasses import dataclass

from factdebate.core.types import Document
from factdebate.corpus.builtin import BUILTIN_CORPUS
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.milvus_uri import is_lite_uri
from factdebate.embeddings.minilm import ENCODERS
from factdebate.eval.retrieval import NamedSearch, run_async_search
from factdebate.util.errors import InputError

KINDS = ("bm25", "dense", "fusion")
STANDS_FOR = {"bm25": "Tool-MAD's search agent offline (local tool)", "dense": "Tool-MAD's RAG agent (rag tool)",
              "fusion": "MERMAID's offline Wikipedia"}


@dataclass(frozen=True)
class DenseSpec:
    encoder: str
    uri: str | None = None  # None: the data folder's Milvus Lite file

    @property
    def suffix(self) -> str:
        return self.encoder + ("" if self.uri is None or is_lite_uri(self.uri) else "-server")


def parse_dense(value: str) -> DenseSpec:
    """``int8``, ``fp32=/path/milvus_fp32.db`` or ``int8=http://host:19530``."""
    encoder, _, uri = value.partition("=")
    encoder = encoder.strip()
    if encoder not in ENCODERS:
        raise InputError(f"--dense {value!r}: the encoder is one of {', '.join(ENCODERS)} (then =URI for a Milvus "
                         "Lite file or server other than the data folder's)")
    return DenseSpec(encoder, uri.strip() or None)


def parse_kinds(value: str) -> list[str]:
    kinds = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise InputError(f"--search {value!r}: give one or more of {', '.join(KINDS)}, comma-separated")
    return list(dict.fromkeys(kinds))


def prepare_builtin(kinds: list[str], dense: list[DenseSpec], limit: int | None) -> None:
    """Build the built-in corpus's indexes these searches read, where missing."""
    from factdebate.corpus.builtin_index import ensure_builtin_indexed

    wants_dense = any(k in ("dense", "fusion") for k in kinds)
    for number, spec in enumerate(dense if wants_dense else dense[:1]):
        engines = (("local",) if number == 0 else ()) + (("rag",) if wants_dense else ())
        ensure_builtin_indexed(spec.uri, engines=engines, limit=limit, encoder=spec.encoder)


def build_searches(corpus: str, kinds: list[str], dense: list[DenseSpec]) -> list[NamedSearch]:
    from factdebate.corpus import milvus
    from factdebate.corpus.milvus import MilvusStore
    from factdebate.tools.leakage import Leakage
    from factdebate.toolservers.wiki_offline import OfflineWikipedia

    def fresh_queries() -> None:
        milvus._query_vectors.clear()  # each query embedded afresh: its CPU is counted

    lexical = LexicalIndex(corpus)
    if not lexical.exists() and corpus != BUILTIN_CORPUS:
        raise InputError(f"corpus '{corpus}' has no full-text index in this data folder: index it first "
                         f"(factdebate index PATH --corpus {corpus})")
    searches: list[NamedSearch] = []
    if "bm25" in kinds:
        searches.append(NamedSearch("bm25", "bm25", STANDS_FOR["bm25"], run_async_search(lexical.search)))
    for spec in dense:
        store = MilvusStore(corpus, spec.uri, encoder=spec.encoder, searching=True)
        if "dense" in kinds:
            searches.append(NamedSearch(f"dense-{spec.suffix}", "dense", STANDS_FOR["dense"],
                                        run_async_search(store.search), fresh_queries))
        if "fusion" in kinds:
            wiki = OfflineWikipedia(corpus, dense=store, lexical=lexical)

            async def fused(query: str, k: int, wiki: OfflineWikipedia = wiki) -> list[Document]:
                passages, notes = await wiki.search(query, k, Leakage())
                if any("BM25 only" in note for note in notes):  # a fusion that lost its dense half is no fusion
                    raise InputError(f"the fusion search could not use the dense index: {'; '.join(notes)}")
                return passages

            searches.append(NamedSearch(f"fusion-{spec.suffix}", "fusion", STANDS_FOR["fusion"],
                                        run_async_search(fused), fresh_queries))
    return searches
