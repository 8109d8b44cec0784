"""``factdebate index SOURCE``: a file, a folder of files or a downloaded corpus into the search indexes,
in this process or (``--executor ray``) on a pool of Ray workers writing to a Milvus server."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from factdebate.cli import exits
from factdebate.cli.options import ConfigFlag
from factdebate.scale.options import (
    ExecutorFlag,
    LexicalPartsFlag,
    RayAddressFlag,
    ShardDocsFlag,
    WorkerGpusFlag,
    WorkersFlag,
)
from factdebate.util.errors import InputError

err = Console(stderr=True, soft_wrap=True)
Opt = typer.Option


def register_index(app: typer.Typer) -> None:
    app.command()(index)


def index(
    source: Annotated[str | None, typer.Argument(
        help="JSONL, JSON, CSV or Parquet file with id/title/text, a folder of such files, or the name of a "
             "corpus downloaded into the data folder.")] = None,
    corpus: Annotated[str | None, Opt(help="Name of the corpus to add to (default: the downloaded corpus's "
                                           "name, else 'default').")] = None,
    milvus_uri: Annotated[str | None, Opt(help="Milvus server URI (default: Milvus Lite file).")] = None,
    engines: Annotated[str, Opt(help="Comma-separated: rag,local.")] = "rag,local",
    builtin: Annotated[bool, Opt("--builtin", help="Build the built-in Wikipedia corpus's indexes now "
                                 "(otherwise built on first use).")] = False,
    config: ConfigFlag = None,
    executor: ExecutorFlag = None,
    ray_address: RayAddressFlag = None,
    workers: WorkersFlag = None,
    worker_gpus: WorkerGpusFlag = None,
    shard_docs: ShardDocsFlag = None,
    lexical_parts: LexicalPartsFlag = None,
) -> None:
    """Index a document collection into the vector database and the full-text index (idempotent)."""
    from factdebate.corpus.names import check_corpus_name
    from factdebate.corpus.sources import resolve_source
    from factdebate.scale.options import with_scale
    from factdebate.settings.load import settings_from

    chosen = tuple(v.strip() for v in engines.split(",") if v.strip()) or ("rag", "local")
    if builtin:
        if source is not None:
            raise InputError("give either a file to index or --builtin, not both")
        index_builtin(chosen, milvus_uri, config)
        return
    if source is None:
        raise InputError("give a file, a folder or a downloaded corpus's name to index, or --builtin")
    settings = with_scale(settings_from({}, config), executor, ray_address, workers, worker_gpus=worker_gpus,
                          shard_docs=shard_docs, lexical_parts=lexical_parts)
    on_ray = settings.scale.executor == "ray"
    if on_ray:
        from factdebate.scale.index_ray import check_server

        check_server(chosen, milvus_uri)  # before reading anything
    found = resolve_source(source, notify=lambda line: err.print(line, markup=False, highlight=False),
                           corpus=corpus)  # an hf: source is fetched into the folder --corpus names
    name = corpus or found.name or "default"
    check_corpus_name(name)  # before reading a possibly large file
    if on_ray:
        _on_ray(found, name, settings, milvus_uri, chosen)
        return
    _here(found, name, settings, milvus_uri, chosen)


def _here(found: Any, name: str, settings: Any, milvus_uri: str | None, chosen: tuple[str, ...]) -> None:
    from factdebate.corpus.indexing import index_corpus
    from factdebate.corpus.lexical import LexicalIndex
    from factdebate.corpus.loading import load_documents

    def documents() -> Iterator[Any]:
        for file in found.files:
            yield from load_documents(file.path, file.format)

    docs = documents()
    first = next(docs, None)
    if first is None:  # say so, rather than "indexed 0 documents" and exit 0 (and no empty index is made)
        err.print(f"nothing was indexed: {found.given} holds no documents", markup=False)
        raise typer.Exit(exits.SOME_FAILED)
    if "local" in chosen:
        LexicalIndex(name).partition(settings.scale.lexical_parts)
    stats = index_corpus(itertools.chain([first], docs), name, milvus_uri=milvus_uri, engines=chosen, progress=True,
                         encoder=settings.retrieval.encoder)
    err.print(f"indexed {stats.documents} documents as {stats.chunks} passages into corpus '{name}': "
              f"{stats.added_dense} new in Milvus, {stats.added_lexical} in the full-text index, "
              f"{stats.seconds:.1f}s ({stats.passages_per_second:.1f} passages/s)", markup=False)
    _duplicates(stats.duplicate_ids, stats.duplicate_examples)


def _on_ray(found: Any, name: str, settings: Any, milvus_uri: str | None, chosen: tuple[str, ...]) -> None:
    from factdebate.scale.index_ray import index_on_ray

    stats = index_on_ray(found, name, settings, milvus_uri=milvus_uri, engines=chosen, console=err)
    if not stats.documents:
        err.print(f"nothing was indexed: {found.given} holds no documents", markup=False)
        raise typer.Exit(exits.SOME_FAILED)
    share = f", the encoder {stats.encode_seconds / stats.worker_seconds:.0%} of the workers' time" \
        if stats.worker_seconds else ""
    err.print(f"indexed {stats.documents} documents as {stats.passages} passages into corpus '{name}' on "
              f"{stats.workers} Ray workers ({stats.shards} shards, {stats.shards_skipped} written before): "
              f"{stats.added_dense} new in Milvus, {stats.added_lexical} in the full-text index, "
              f"{stats.seconds:.1f}s ({stats.passages_per_second:.1f} passages/s{share})", markup=False)
    _duplicates(stats.duplicate_ids, ())


def _duplicates(count: int, examples: tuple[str, ...]) -> None:
    if count:
        err.print(f"dropped {count} document(s) whose id was already used (the first one is kept)"
                  + (": " + ", ".join(repr(i[:60]) for i in examples) if examples else "")
                  + (" …" if count > len(examples) and examples else ""), markup=False)


def index_builtin(engines: tuple[str, ...], milvus_uri: str | None, config: Path | None) -> None:
    from factdebate.corpus.builtin_index import ensure_builtin_indexed
    from factdebate.settings.load import settings_from

    retrieval = settings_from({"milvus_uri": milvus_uri}, config).retrieval
    order = tuple(e for e in ("local", "rag") if e in engines) + tuple(e for e in engines if e not in ("local", "rag"))
    stats = ensure_builtin_indexed(retrieval.milvus_uri, engines=order, limit=retrieval.builtin_docs,
                                   encoder=retrieval.encoder)
    if stats is None:
        err.print(f"the built-in corpus is already indexed for {', '.join(order)}")
        return
    err.print(f"indexed the built-in corpus: {stats.documents} articles as {stats.chunks} passages, "
              f"{stats.added_lexical} new in the full-text index, {stats.added_dense} new in Milvus, "
              f"{stats.seconds:.1f}s")
