"""Whether a method's tools read different evidence, the premise of Tool-MAD and of DPD's gatherers; with the
local engine "search" reads the corpus the RAG tool embeds (``tools_heterogeneous``, a paper deviation)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation
from factdebate.tools.registry import evidence_source

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings

RESTORE = "set TAVILY_API_KEY (the default search engine, auto, then picks Tavily) or pass --search tavily"


def sources(kinds: Iterable[str], settings: RunSettings) -> list[str]:
    """What each tool of ``kinds`` reads (tools that read nothing left out), in order."""
    retrieval = settings.retrieval
    found = (evidence_source(kind, engine=retrieval.search, corpus=retrieval.corpus,
                             scholarly=settings.medical.search) for kind in kinds)
    return [source for source in found if source is not None]


def heterogeneous(kinds: Iterable[str], settings: RunSettings) -> bool | None:
    """True when every tool reads its own source, False when two share one, None with fewer than two."""
    read = sources(kinds, settings)
    if len(read) < 2:
        return None
    return len(set(read)) == len(read)


def homogeneous_deviation(kinds: Iterable[str], settings: RunSettings, *, paper: str) -> list[Deviation]:
    """The ``tools_homogeneous`` deviation when two of ``kinds`` read the same source, else nothing."""
    tools = [kind for kind in kinds if kind != "none"]
    pairs = list(zip(tools, sources(tools, settings), strict=True))
    read = [source for _, source in pairs]
    shared = next((source for source in read if read.count(source) > 1), None)
    if shared is None:
        return []
    sharing = [kind for kind, source in pairs if source == shared]
    restore = RESTORE if "search" in sharing and settings.retrieval.search == "local" else ""
    names = ", ".join(sharing[:-1]) + f" and {sharing[-1]}"
    read_by = "both read" if len(sharing) == 2 else "all read"
    shared = f"the '{shared.split(':', 1)[1]}' corpus" if shared.startswith("corpus:") else shared
    return [Deviation(key="tools_homogeneous", paper=paper,
                      here=f"tools not heterogeneous (tools_heterogeneous: false): the {names} tools {read_by} "
                           f"{shared}, so they see the same evidence", restore=restore)]


ENGINE_NAMES = {"tavily": "Tavily (the live web)", "wikipedia": "Wikipedia's search API",
                "google": "the Google Search API"}


def engine_text(settings: RunSettings) -> str:
    """What the ``search`` tool reads under ``settings``, in words."""
    engine, scholarly = settings.retrieval.search, settings.medical.search
    if scholarly != "default":
        return f"{scholarly} (scholarly abstracts)"
    if engine == "local":
        return f"BM25 over the '{settings.retrieval.corpus}' corpus on this machine, not the web"
    return ENGINE_NAMES.get(engine, engine)


def search_engine_deviation(kinds: Iterable[str], settings: RunSettings, *, paper_engine: str, who: str,
                            paper: str = "") -> list[Deviation]:
    """The ``search_engine`` deviation when ``search`` is among ``kinds`` and is not ``paper_engine``;
    ``who``: whose searches, for the sentence."""
    if "search" not in kinds or settings.medical.search != "default" or settings.retrieval.search == paper_engine:
        return []
    paper = paper or f"{who} go to {ENGINE_NAMES[paper_engine]}"
    restore = "--search tavily (the live web; the closest to Google here)" if paper_engine == "google" else \
        f"--search {paper_engine}" + (" with TAVILY_API_KEY set" if paper_engine == "tavily" else "")
    return [Deviation(key="search_engine", paper=paper, here=f"{who} go to {engine_text(settings)}",
                      restore=restore)]


def rag_corpus_deviation(kinds: Iterable[str], settings: RunSettings, *, paper: str) -> list[Deviation]:
    """The ``rag_corpus`` deviation on every run whose ``rag`` tool reads a corpus other than the paper's."""
    if "rag" not in kinds:
        return []
    corpus = settings.retrieval.corpus
    if corpus == "builtin":
        docs = settings.retrieval.builtin_docs
        here = (f"the RAG tool reads the built-in corpus: {'the first ' + str(docs) if docs else '10,033'} "
                "English Wikipedia lead summaries (Vital Articles), not whole articles")
    else:
        here = f"the RAG tool reads the '{corpus}' corpus indexed here"
    return [Deviation(key="rag_corpus", paper=paper, here=here,
                      restore="index a Wikipedia dump (factdebate docs scale#corpora-at-their-real-size-corpus-fetch), "
                              "then --corpus NAME")]
