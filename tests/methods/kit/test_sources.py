"""Whether the tools a method pits against each other read different evidence: local search and RAG both
read the indexed corpus; a web engine reads something else."""

from __future__ import annotations

from typing import Any

from factdebate.methods.kit.sources import heterogeneous, homogeneous_deviation, sources
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings


def settings(**retrieval: Any) -> Settings:
    return load_settings(overrides={"retrieval": retrieval}, environ={})


def test_local_search_reads_the_rag_corpus() -> None:
    local = settings(search="local")
    assert sources(["rag", "search", "none"], local) == ["corpus:builtin", "corpus:builtin"]
    assert heterogeneous(["rag", "search"], local) is False
    assert heterogeneous(["rag", "search"], settings(search="tavily")) is True
    assert heterogeneous(["rag", "search"], settings(search="wikipedia")) is True


def test_nothing_to_compare_is_neither() -> None:
    local = settings(search="local")
    assert heterogeneous(["rag", "none"], local) is None
    assert heterogeneous([], local) is None
    assert heterogeneous(["rag", "rag"], settings(search="tavily")) is False  # Table VI's RAG + RAG


def test_the_deviation_names_the_shared_corpus_and_the_way_back() -> None:
    (found,) = homogeneous_deviation(["rag", "search", "none"], settings(search="local"), paper="different tools")
    assert found.key == "tools_homogeneous"
    assert "the rag and search tools both read the 'builtin' corpus" in found.here
    assert "TAVILY_API_KEY" in found.restore and "--search tavily" in found.restore
    assert homogeneous_deviation(["rag", "search"], settings(search="tavily"), paper="x") == []
    (twice,) = homogeneous_deviation(["rag", "rag"], settings(search="tavily"), paper="x")
    assert twice.restore == ""  # another search engine would not help: the agents' tools are the choice
