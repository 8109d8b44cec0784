"""Retrieval measured on a dataset with gold evidence pages: how often each search returns every page of one
gold set in its top k (recall@1/3/10, MRR@10), whether the corpus holds them, with Wilson intervals, paired
tests between searches and the CPU of a cold query. A search is asked once per claim for ``max(KS)`` passages."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from factdebate.core.types import Document
from factdebate.eval.compare.paired import compare_pair
from factdebate.eval.datasets import Dataset, Sample
from factdebate.eval.datasets.gold_evidence import GoldSets, page_key
from factdebate.eval.report.intervals import holm, wilson
from factdebate.util.errors import InputError

KS = (1, 3, 10)
DEPTH = max(KS)

Search = Callable[[str, int], list[Document]]


@dataclass(frozen=True)
class NamedSearch:
    name: str
    kind: str  # bm25, dense or fusion: which query of a claim it is asked (ClaimRanks.queries)
    stands_for: str  # which method's retrieval it is
    search: Search
    prepare: Callable[[], None] = lambda: None  # clears per-query caches before each timed query


@dataclass
class ClaimRanks:
    id: str
    claim: str
    queries: dict[str, str]  # search kind -> the query sent (the claim, or the method's round-1 query)
    gold: GoldSets
    held: bool  # the corpus holds every page of at least one gold set
    rank: dict[str, int | None] = field(default_factory=dict)  # first rank completing a gold set, per search
    pages: dict[str, list[str]] = field(default_factory=dict)  # the pages of the passages returned


@dataclass
class SearchCost:
    queries: int = 0
    cpu_s: float = 0.0
    wall_s: float = 0.0


def first_complete_rank(passages: Iterable[Document], gold: GoldSets, kind: str) -> int | None:
    """The rank (from 1) of the passage after which every page of some gold set has been returned."""
    wanted = [{_key(page, kind) for page in pages} for pages in gold]
    found: set[str] = set()
    for rank, doc in enumerate(passages, start=1):
        found.add(passage_key(doc, kind))
        if any(pages <= found for pages in wanted):
            return rank
    return None


def _key(page: str, kind: str) -> str:
    return page_key(page) if kind == "title" else page.strip()


def passage_key(doc: Document, kind: str) -> str:
    """A returned passage's page: its title, or (``id``) its document id (the passage id before ``#``)."""
    from factdebate.corpus.titles import document_id

    return page_key(doc.title) if kind == "title" else document_id(doc.id)


def held_by(gold: GoldSets, corpus_keys: set[str], kind: str) -> bool:
    return any(all(_key(page, kind) in corpus_keys for page in pages) for pages in gold)


def gold_samples(dataset: Dataset) -> tuple[list[Sample], int]:
    """The samples with gold pages, and how many had none (NOT ENOUGH INFO claims, evidence not given)."""
    if not dataset.gold_page_kind:
        raise InputError(f"dataset '{dataset.spec or dataset.kind}' gives no gold evidence pages: measure retrieval "
                         "on FEVER, FEVEROUS, HoVer or SciFact (e.g. --dataset fever:PATH)")
    kept = [s for s in dataset.samples if s.gold_pages]
    return kept, len(dataset.samples) - len(kept)


def run_searches(claims: list[ClaimRanks], searches: list[NamedSearch], kind: str,
                 progress: Callable[[str, int, int, SearchCost], None] | None = None) -> dict[str, SearchCost]:
    """Each search over every claim's query, one search at a time, after one uncounted warm-up query."""
    costs: dict[str, SearchCost] = {}
    for search in searches:
        if claims:
            search.prepare()
            search.search(claims[0].queries[search.kind], DEPTH)  # warm-up
        cost = costs[search.name] = SearchCost()
        for number, claim in enumerate(claims, start=1):
            search.prepare()
            cpu, wall = time.process_time(), time.perf_counter()
            passages = search.search(claim.queries[search.kind], DEPTH)[:DEPTH]
            cost.cpu_s += time.process_time() - cpu
            cost.wall_s += time.perf_counter() - wall
            cost.queries += 1
            claim.rank[search.name] = first_complete_rank(passages, claim.gold, kind)
            claim.pages[search.name] = [doc.title if kind == "title" else passage_key(doc, kind) for doc in passages]
            if progress is not None:
                progress(search.name, number, len(claims), cost)
    return costs


def _hits(ranks: list[int | None], k: int) -> list[bool]:
    return [rank is not None and rank <= k for rank in ranks]


def _mrr(ranks: list[int | None]) -> float:
    """Mean reciprocal rank within the depth searched (a claim not found there counts 0)."""
    return sum(1 / r for r in ranks if r is not None) / len(ranks) if ranks else math.nan


def _rate(hits: int, n: int) -> dict[str, Any]:
    low, high = wilson(hits, n)
    return {"hits": hits, "n": n, "value": hits / n if n else math.nan, "ci": [low, high]}


def summarise(claims: list[ClaimRanks], names: list[str], costs: dict[str, SearchCost], *, seed: int = 0,
              resamples: int = 1000) -> dict[str, Any]:
    """Per search: recall@k (Wilson 95%), MRR@10 and time per query; per k, every pair of searches compared
    (McNemar, paired bootstrap, Holm)."""
    held = [c for c in claims if c.held]
    rows = []
    for name in names:
        ranks = [c.rank[name] for c in claims]
        cost = costs[name]
        rows.append({
            "search": name,
            "recall": {str(k): _rate(sum(_hits(ranks, k)), len(ranks)) for k in KS},
            "recall_held": {str(k): _rate(sum(_hits([c.rank[name] for c in held], k)), len(held)) for k in KS},
            "mrr": _mrr(ranks),
            "mrr_held": _mrr([c.rank[name] for c in held]),
            "cpu_ms_per_query": 1000 * cost.cpu_s / cost.queries if cost.queries else math.nan,
            "wall_ms_per_query": 1000 * cost.wall_s / cost.queries if cost.queries else math.nan,
        })
    pairs = []
    for k in KS:
        at_k: list[dict[str, Any]] = []
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                hit_a, hit_b = _hits([c.rank[a] for c in claims], k), _hits([c.rank[b] for c in claims], k)
                pair = compare_pair(a, b, hit_a, hit_b, [str(h) for h in hit_a], [str(h) for h in hit_b], 0,
                                    seed=seed, resamples=resamples)
                at_k.append({"k": k, "a": a, "b": b, "n": pair.n, "only_a": pair.only_a, "only_b": pair.only_b,
                             "difference": pair.difference, "interval": list(pair.interval),
                             "mcnemar_p": pair.mcnemar_p})
        for entry, adjusted in zip(at_k, holm([e["mcnemar_p"] for e in at_k]), strict=True):
            entry["holm_p"] = adjusted
        pairs.extend(at_k)
    return {"claims": len(claims), "held": len(held), "held_share": _rate(len(held), len(claims)), "ks": list(KS),
            "searches": rows, "pairs": pairs}


def table_lines(summary: dict[str, Any], stands_for: dict[str, str]) -> list[str]:
    """The summary as markdown: recall over every claim, then over those whose pages the corpus holds, then
    the significant paired comparisons."""
    held = summary["held_share"]
    lines = [f"{summary['claims']} claims with gold pages; the corpus holds every page of a gold set for "
             f"{summary['held']} ({_pct(held['value'])}, 95% CI {_pct(held['ci'][0])}-{_pct(held['ci'][1])})"]
    for title, key, mrr in ((f"All {summary['claims']} claims", "recall", "mrr"),
                            (f"The {summary['held']} claims whose gold pages the corpus holds", "recall_held",
                             "mrr_held")):
        lines += ["", f"{title}:", "",
                  "| search | stands for | " + " | ".join(f"recall@{k} (95% CI)" for k in KS)
                  + " | MRR@10 | CPU ms/query | wall ms/query |",
                  "|---|---|" + "---|" * (len(KS) + 3)]
        for row in summary["searches"]:
            cells = [f"{_num(r['value'])} ({_num(r['ci'][0])}-{_num(r['ci'][1])})" for r in
                     (row[key][str(k)] for k in KS)]
            lines.append(f"| {row['search']} | {stands_for.get(row['search'], '')} | " + " | ".join(cells)
                         + f" | {_num(row[mrr])} | {row['cpu_ms_per_query']:.1f} | {row['wall_ms_per_query']:.1f} |")
    real = [p for p in summary["pairs"] if p["holm_p"] < 0.05]
    lines.append("")
    if not summary["pairs"]:
        return lines
    if not real:
        lines.append("No paired difference in recall@1, @3 or @10 is significant (McNemar, Holm-adjusted p < 0.05).")
        return lines
    lines.append("Paired differences significant after Holm's correction (McNemar exact, p < 0.05):")
    for p in real:
        lines.append(f"- recall@{p['k']}: {p['a']} - {p['b']} = {p['difference']:+.3f} (paired bootstrap 95% CI "
                     f"{p['interval'][0]:+.3f} to {p['interval'][1]:+.3f}; {p['only_a']} claims found only by "
                     f"{p['a']}, {p['only_b']} only by {p['b']}; p = {p['holm_p']:.2g})")
    return lines


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f}%"


def _num(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def run_async_search(make: Callable[[str, int], Any]) -> Search:
    """A coroutine search (MERMAID's offline Wikipedia) run to completion on one loop of its own."""
    loop = asyncio.new_event_loop()

    def search(query: str, k: int) -> list[Document]:
        result: list[Document] = loop.run_until_complete(make(query, k))
        return result

    return search
