"""``factdebate eval-retrieval --dataset fever:PATH``: how often each search finds a claim's gold evidence
pages (eval/retrieval.py), printed as a table; with ``--output DIR`` also the figures as JSON, each claim's
ranks and pages, the table as markdown and a plot."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from factdebate.cli.options import ConfigFlag
from factdebate.util.progress import EveryLine

Opt = typer.Option


def register_eval_retrieval(app: typer.Typer) -> None:
    app.command("eval-retrieval")(eval_retrieval)


def eval_retrieval(
    dataset: Annotated[str, Opt("--dataset", "-d", help="A dataset with gold evidence pages: fever, FORMAT:PATH "
                                "for fever, feverous, hover or scifact.")],
    corpus: Annotated[str, Opt(help="The corpus searched: builtin, or a name given to factdebate index.")] = "builtin",
    search: Annotated[str, Opt("--search", help="Searches to measure, comma-separated: bm25, dense, fusion.")] =
        "bm25,dense,fusion",
    dense: Annotated[list[str] | None, Opt("--dense", help="ENCODER[=URI]: the dense index searched (int8 or fp32, "
                                           "in the data folder's Milvus Lite file or at URI, a Lite file or a "
                                           "Milvus server); repeat to compare. Default: retrieval.encoder.")] = None,
    queries: Annotated[str, Opt("--queries", help="claim: each claim verbatim; tool-mad: the query Tool-MAD's "
                                "round 1 sends (its search agent's on bm25, its RAG agent's on dense), written by "
                                "the debater model as a run writes it.")] = "claim",
    llm: Annotated[str | None, Opt("--llm", help="The model that writes --queries tool-mad (as for verify).")] = None,
    limit: Annotated[int | None, Opt(min=1, help="Claims measured (after a seeded shuffle); default all.")] = None,
    seed: Annotated[int, Opt(help="Shuffle and bootstrap seed.")] = 0,
    output: Annotated[Path | None, Opt("--output", "-o", help="Folder for retrieval.json, claims.jsonl, "
                                       "retrieval.md and retrieval.png.")] = None,
    as_json: Annotated[bool, Opt("--json", help="Print the figures as JSON instead of the table.")] = False,
    config: ConfigFlag = None,
) -> None:
    """Measure retrieval: recall@1/3/10, MRR and the corpus's coverage of the gold evidence pages for each
    search, with Wilson intervals, paired tests and CPU per query. The query is the claim verbatim (what
    Tool-MAD's round 1 sends with round1_query: claim), or with --queries tool-mad the one its debaters write."""
    from factdebate.cli.retrieval_searches import (
        STANDS_FOR,
        DenseSpec,
        build_searches,
        parse_dense,
        parse_kinds,
        prepare_builtin,
    )
    from factdebate.corpus.builtin import BUILTIN_CORPUS
    from factdebate.corpus.titles import corpus_pages
    from factdebate.eval.datasets import select
    from factdebate.eval.datasets.loader import load_dataset
    from factdebate.eval.retrieval import ClaimRanks, gold_samples, held_by, run_searches, summarise, table_lines
    from factdebate.eval.retrieval_queries import check_queries
    from factdebate.settings.load import settings_from

    kinds = parse_kinds(search)
    check_queries(queries, kinds)
    settings = settings_from({"llm": llm} if llm else {}, config)
    retrieval = settings.retrieval
    specs = [parse_dense(d) for d in dense] if dense else [DenseSpec(retrieval.encoder, retrieval.milvus_uri)]
    loaded = load_dataset(dataset)
    samples, without = gold_samples(loaded)
    samples = select(samples, limit, seed)
    kind = loaded.gold_page_kind
    say(f"{len(samples)} claim(s) with gold evidence pages from {loaded.spec or dataset}"
        + (f" ({without} without, e.g. NOT ENOUGH INFO, left out)" if without else ""))
    builtin_docs = retrieval.builtin_docs if corpus == BUILTIN_CORPUS else None
    if corpus == BUILTIN_CORPUS:
        prepare_builtin(kinds, specs, builtin_docs)
    pages = corpus_pages(corpus, limit=builtin_docs)
    keys = set(pages) if kind == "id" else {_title_key(t) for t in pages.values()}
    sent = _round_one(samples, settings, kinds) if queries == "tool-mad" else [dict.fromkeys(kinds, s.claim)
                                                                                for s in samples]
    claims = [ClaimRanks(s.id, s.claim, q, s.gold_pages, held_by(s.gold_pages, keys, kind))
              for s, q in zip(samples, sent, strict=True)]
    searches = build_searches(corpus, kinds, specs)
    costs = run_searches(claims, searches, kind, progress=Progress())
    summary = summarise(claims, [s.name for s in searches], costs, seed=seed)
    summary.update(dataset=loaded.spec or dataset, corpus=corpus, corpus_pages=len(pages), queries=queries,
                   llm=settings.llm_for("debater") if queries == "tool-mad" else None,
                   gold_pages=kind, without_gold=without, stands_for={s.name: s.stands_for for s in searches},
                   dense=[{"encoder": s.encoder, "uri": s.uri} for s in specs], builtin_docs=builtin_docs)
    lines = table_lines(summary, {s.name: s.stands_for for s in searches} or STANDS_FOR)
    if as_json:
        typer.echo(json.dumps(_finite(summary), indent=2))
    else:
        typer.echo("\n".join(lines))
    if output is not None:
        _write(output, summary, claims, lines)


def _round_one(samples: list[Any], settings: Any, kinds: list[str]) -> list[dict[str, str]]:
    """Tool-MAD's round-1 queries from the run's debater model (cached as a run's calls are)."""
    import asyncio

    from factdebate.eval.retrieval_queries import toolmad_round_one
    from factdebate.run.build import build_resources

    say(f"writing Tool-MAD's round-1 queries with {settings.llm_for('debater')}: {len(samples)} claim(s)")
    resources = build_resources(settings.model_copy(update={"method": "tool-mad"}))

    async def go() -> list[dict[str, str]]:
        try:
            return await toolmad_round_one(samples, resources, kinds, progress=QueryProgress())
        finally:
            await resources.aclose()

    return asyncio.run(go())


def _title_key(title: str) -> str:
    from factdebate.eval.datasets.gold_evidence import page_key

    return page_key(title)


def _finite(value: Any) -> Any:
    """NaN (no claims) as null: strict JSON has no NaN."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _write(folder: Path, summary: dict[str, Any], claims: list[Any], lines: list[str]) -> None:
    from factdebate.eval.report.retrieval_plot import recall_plot

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "retrieval.json").write_text(json.dumps(_finite(summary), indent=2) + "\n", encoding="utf-8")
    with (folder / "claims.jsonl").open("w", encoding="utf-8") as out:
        for claim in claims:
            out.write(json.dumps({"id": claim.id, "claim": claim.claim, "queries": claim.queries,
                                  "gold": [list(s) for s in claim.gold], "held": claim.held, "rank": claim.rank,
                                  "pages": claim.pages}, ensure_ascii=False) + "\n")
    (folder / "retrieval.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    recall_plot(summary, folder / "retrieval.png")
    say(f"wrote retrieval.json, claims.jsonl, retrieval.md and retrieval.png to {folder}")


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class QueryProgress:
    """One line every 10 seconds and at the end while the model writes the queries."""

    def __init__(self) -> None:
        self._lines = EveryLine()

    def __call__(self, done: int, total: int) -> None:
        self._lines(lambda: f"round-1 queries: {done} of {total} claims", last=done == total)


class Progress:
    """One line per search every 10 seconds and at its end: claims done, CPU per query so far."""

    def __init__(self) -> None:
        self._lines = EveryLine()

    def __call__(self, name: str, done: int, total: int, cost: Any) -> None:
        self._lines(lambda: f"{name}: {done} of {total} claims, "
                            f"{1000 * cost.cpu_s / max(1, cost.queries):.1f} ms CPU a query", last=done == total)
