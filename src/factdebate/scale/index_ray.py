"""``factdebate index SOURCE --executor ray``: a corpus too big for one process, indexed by a pool of Ray
workers into a Milvus server and the full-text index (docs/scale.md).

The driver plans the shards (corpus/shards.py), skips those already recorded (corpus/index_log.py), and hands
the rest to Ray Data's pool of ``ShardIndexer`` actors (scale/index_worker.py), recording each as it returns.
Shards in flight when a build stopped are done again, duplicating nothing. Ray Data's readers are not used:
resuming needs the same shards on every run."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console

from factdebate.core.errors import IndexError_
from factdebate.corpus.chunking import DEFAULT_MAX_WORDS, DEFAULT_OVERLAP
from factdebate.corpus.index_log import IndexLog, plan_fingerprint
from factdebate.corpus.indexing import ENGINES, check_target
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.markers import clear_marker, get_marker, marker_key, set_marker
from factdebate.corpus.milvus import MilvusStore, is_lite_uri
from factdebate.corpus.shards import Shard, plan_shards
from factdebate.corpus.sources import Source
from factdebate.scale.index_worker import EmbedderFactory, LexicalWriter, ShardIndexer
from factdebate.scale.ray_quiet import quiet_ray
from factdebate.scale.ray_start import join_ray, start_local_ray
from factdebate.settings.model import Settings
from factdebate.util.errors import ConfigError, FactDebateError, InputError, MissingDependencyError
from factdebate.util.progress import ShardLines

SHARD_RETRIES = 2  # restarts of a dead worker, and retries of its shard, before the build stops


@dataclass
class RayIndexStats:
    corpus: str
    shards: int
    shards_skipped: int  # finished by an earlier run of the same build
    documents: int
    passages: int
    added_dense: int
    added_lexical: int
    duplicate_ids: int
    seconds: float
    passages_per_second: float  # the passages of this run's shards over this run's time
    encode_seconds: float  # summed over the workers
    worker_seconds: float  # the workers' time on shards, summed
    workers: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_server(engines: tuple[str, ...], milvus_uri: str | None) -> str:
    """The Milvus URI of a build on Ray; Milvus Lite (one process) is refused, naming what to use."""
    uri = milvus_uri or ""
    if "rag" in engines and (not uri or is_lite_uri(uri)):
        raise ConfigError("--executor ray writes vectors from many processes, and Milvus Lite serves one: give "
                          "--milvus-uri http://HOST:19530 (a Milvus server), or --engines local")
    return uri


def index_on_ray(source: Source, corpus: str, settings: Settings, *, milvus_uri: str | None = None,
                 engines: tuple[str, ...] = ENGINES, progress: bool = True, console: Console | None = None,
                 make_embedder: EmbedderFactory | None = None,
                 on_shard: Callable[[dict[str, Any]], None] | None = None) -> RayIndexStats:
    """Index ``source`` into ``corpus`` on ``settings.scale``'s Ray workers. ``make_embedder`` replaces the
    encoder on the workers (tests); ``on_shard`` sees every finished shard's row."""
    check_target(corpus, engines)
    uri = check_server(engines, milvus_uri)
    scale, encoder = settings.scale, settings.retrieval.encoder
    if scale.worker_gpus > 0 and encoder != "fp32" and make_embedder is None:
        raise ConfigError("GPU workers embed with the float model: set FACTDEBATE_RETRIEVAL__ENCODER=fp32 (queries "
                          "must then use it too), or leave --worker-gpus at 0 for the int8 model on CPUs")
    shards = plan_shards(source.files, scale.shard_docs)
    plan = plan_fingerprint([(str(f.path.resolve()), f.path.stat().st_size, f.path.stat().st_mtime_ns)
                             for f in source.files], shard_docs=scale.shard_docs, max_words=DEFAULT_MAX_WORDS,
                            overlap=DEFAULT_OVERLAP, encoder=make_embedder().kind if make_embedder else encoder,
                            engines=sorted(engines), lexical_parts=scale.lexical_parts)
    log = IndexLog(corpus, uri or "no-milvus", plan).open()
    todo = [shard for shard in shards if shard.key not in log.done]
    console = console or Console(stderr=True, soft_wrap=True)
    report = ShardLines(corpus, shards, log.done, console if progress else None)
    report.starting(log.resumed, log.replaced, scale.workers)
    lexical_paths = _prepare(corpus, uri, engines, scale.lexical_parts, plan["encoder"], make_embedder)
    started = time.perf_counter()
    run_rows: list[dict[str, Any]] = []
    if todo:
        if make_embedder is None and encoder == "int8" and "rag" in engines:
            from factdebate.embeddings.onnx import ensure_onnx_model

            ensure_onnx_model()  # once here, rather than by every worker on this machine at once
        # Ray's own lines (loggers, a known warning, its C++ logs) go to a file beside the build's log.
        with quiet_ray(log.path.with_suffix(".ray.log")), _ray_session(settings) as ray:
            try:
                for row in _run(ray, todo, corpus, uri, engines, lexical_paths, settings, make_embedder):
                    _raise_if_failed(row, len(log.done))
                    log.record(row["shard"], row)
                    run_rows.append(row)
                    report.shard_done(row)
                    if on_shard is not None:
                        on_shard(row)
            except WorkerFailed as exc:
                left = [shard.key for shard in todo if shard.key not in log.done]
                raise IndexError_(f"the build stopped: {exc}, on one of the {len(left)} unfinished shard(s) ("
                                  f"{', '.join(left[:3])}{', …' if len(left) > 3 else ''}); the {len(log.done)} "
                                  "finished shard(s) are recorded: run the same command again to go on") from None
    seconds = time.perf_counter() - started
    if all(shard.key in log.done for shard in shards):
        _finish(corpus, uri, engines, log, plan["encoder"], make_embedder)
    everything = list(log.done.values())
    run_passages = sum(row["passages"] for row in run_rows)
    return RayIndexStats(
        corpus=corpus, shards=len(shards), shards_skipped=len(shards) - len(todo),
        documents=sum(row["documents"] for row in everything), passages=sum(row["passages"] for row in everything),
        added_dense=sum(row["added_dense"] for row in run_rows),
        added_lexical=sum(row["added_lexical"] for row in run_rows),
        duplicate_ids=sum(row.get("duplicates", 0) for row in everything), seconds=round(seconds, 3),
        passages_per_second=round(run_passages / seconds, 2) if seconds > 0 and run_passages else 0.0,
        encode_seconds=round(sum(row["encode_seconds"] for row in run_rows), 3),
        worker_seconds=round(sum(row["seconds"] for row in run_rows), 3), workers=scale.workers)


def _prepare(corpus: str, uri: str, engines: tuple[str, ...], parts: int, encoder: str,
             make_embedder: EmbedderFactory | None) -> list[str]:
    """Create the collection and the full-text index's layout before any worker starts; the parts' paths."""
    if "rag" in engines:
        key = marker_key("rag", corpus, uri)
        earlier = (get_marker(key) or {}).get("encoder")
        if earlier and earlier != encoder:
            raise ConfigError(f"corpus '{corpus}' in {uri} was indexed with the {earlier} encoder, and a build skips "
                              f"the passages it holds: index with that encoder, or use another --corpus name")
        clear_marker(key)
        store = MilvusStore(corpus, uri, make_embedder() if make_embedder else None, encoder=encoder)
        store.create()
    if "local" not in engines:
        return []
    clear_marker(marker_key("local", corpus, uri))
    lexical = LexicalIndex(corpus)
    lexical.partition(parts)
    lexical.check_writable()
    folders = lexical.parts()
    return [str(part.path) for part in folders] if folders else [str(lexical.path)]


def _finish(corpus: str, uri: str, engines: tuple[str, ...], log: IndexLog, encoder: str,
            make_embedder: EmbedderFactory | None) -> None:
    """Once every shard is recorded: seal the vectors and wait for their index, then mark both engines built."""
    rows = list(log.done.values())
    totals = {"documents": sum(row["documents"] for row in rows), "chunks": sum(row["passages"] for row in rows),
              "at": time.time()}
    if "rag" in engines:
        store = MilvusStore(corpus, uri, make_embedder() if make_embedder else None, encoder=encoder)
        store.finalize()
        set_marker(marker_key("rag", corpus, uri), {**totals, "entries": store.count(), "encoder": encoder})
    if "local" in engines:
        set_marker(marker_key("local", corpus, uri), {**totals, "entries": LexicalIndex(corpus).count()})


class _ray_session:
    """Join ``scale.ray_address``, or start a local instance (stopped at the end), or use one already running."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.owned = False

    def __enter__(self) -> Any:
        try:
            import ray
        except ImportError as exc:
            raise MissingDependencyError("ray", "ray") from exc
        if not ray.is_initialized():
            quiet: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
            scale = self.settings.scale
            if scale.ray_address:
                join_ray(ray, scale.ray_address, **quiet)
            else:
                cpus = max(os.cpu_count() or 1, int(scale.workers * scale.worker_cpus + 0.999))
                start_local_ray(ray, cpus, **quiet)
                self.owned = True
        import ray.data  # a subpackage: _run reads ray.data from the module this returns

        self.ray = ray
        return ray

    def __exit__(self, *_: object) -> None:
        if self.owned:
            self.ray.shutdown()


def _run(ray: Any, todo: list[Shard], corpus: str, uri: str, engines: tuple[str, ...], lexical_paths: list[str],
         settings: Settings, make_embedder: EmbedderFactory | None) -> Any:
    """The rows of the finished shards, as they finish (in no particular order)."""
    import logging

    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    logging.getLogger("ray.data").setLevel(logging.ERROR)  # its plan and progress lines; ours say enough
    data = ray.data  # imported with ray by _ray_session's caller
    context = data.DataContext.get_current()
    context.enable_progress_bars = False
    scale = settings.scale
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    writer_class = ray.remote(num_cpus=0, scheduling_strategy=here)(LexicalWriter)
    writers = [writer_class.remote(corpus, path) for path in lexical_paths]
    env = {name: os.path.abspath(os.environ[name]) for name in ("FACTDEBATE_DATA_DIR",) if name in os.environ}
    items = [{"shard": json.dumps(shard.as_dict())} for shard in todo]
    rows = data.from_items(items, override_num_blocks=len(items)).map_batches(
        ShardIndexer, batch_size=1, compute=data.ActorPoolStrategy(size=scale.workers),
        fn_constructor_kwargs={"corpus": corpus, "milvus_uri": uri if "rag" in engines else None, "writers": writers,
                               "encoder": settings.retrieval.encoder, "gpus": scale.worker_gpus,
                               "cpus": scale.worker_cpus,
                               "max_words": DEFAULT_MAX_WORDS, "overlap": DEFAULT_OVERLAP, "batch_size": 64,
                               "make_embedder": make_embedder},
        num_cpus=scale.worker_cpus, num_gpus=scale.worker_gpus or None, runtime_env={"env_vars": env},
        # Ray Data restarts a dead actor and retries its task without limit: a shard that kills its worker
        # (out of memory, a crash in a reader) would be tried forever. Bounded, the build stops and says so.
        max_restarts=SHARD_RETRIES, max_task_retries=SHARD_RETRIES)
    iterator = rows.iter_rows()
    try:
        for row in iterator:
            yield dict(row)
    except Exception as exc:
        raise _worker_error(exc) from exc
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
        for writer in writers:
            ray.kill(writer)


def _raise_if_failed(row: dict[str, Any], recorded: int) -> None:
    """A shard's row that carries its error stops the build (the recorded shards stay recorded)."""
    error, kind = row.pop("error", ""), row.pop("error_kind", "")
    if not error:
        return
    if kind == "usage":
        raise InputError(error)
    raise IndexError_(f"shard {row['shard']} failed on a Ray worker ({kind}: {error}); the {recorded} shard(s) "
                      "finished are recorded: fix the cause and run the same command again to go on")


def _worker_error(exc: Exception) -> Exception:
    """A worker's own error, not Ray's wrapping of it, as one line."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, FactDebateError):
            return cause
        cause = getattr(cause, "cause", None) or cause.__cause__
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    reason = (lines[-1] if lines else "")[:160]
    return WorkerFailed(f"a Ray worker failed {SHARD_RETRIES + 1} time(s) ({type(exc).__name__}: {reason})")


class WorkerFailed(IndexError_):
    """Ray gave up on a worker (it died more than ``SHARD_RETRIES`` times)."""
