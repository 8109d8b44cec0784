"""Dense retrieval with MiniLM vectors in Milvus (the ``rag`` tool).

The vectors live in Milvus Lite at ``data_dir()/milvus.db`` or on a Milvus server (``http://host:19530``), one
collection per corpus. Clients are opened once per URI: opening Milvus Lite starts a local server."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import socket
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_incrementing

from factdebate.core.errors import IndexError_
from factdebate.core.types import Document
from factdebate.corpus.encoding_cost import encoding_order
from factdebate.corpus.milvus_lite_direct import DirectSearch
from factdebate.corpus.milvus_uri import is_lite_uri
from factdebate.corpus.names import collection_name
from factdebate.corpus.ranking import search_ties_by_id
from factdebate.embeddings import get_embedder
from factdebate.embeddings.minilm import DEFAULT_ENCODER, DIM, Embedder
from factdebate.util.errors import ConfigError, FactDebateError, MissingDependencyError
from factdebate.util.paths import data_dir

MAX_ID_BYTES = 512
MAX_TITLE_BYTES = 2048
MAX_TEXT_BYTES = 65_535  # the largest VARCHAR Milvus allows
MAX_SOURCE_BYTES = 4096
_OUTPUT_FIELDS = ["title", "text", "source"]

_clients: dict[str, Any] = {}  # uri -> MilvusClient
_loaded: set[tuple[str, str]] = set()  # (uri, collection) known to exist and be loaded
_lock = threading.Lock()
_QUERY_CACHE_SIZE = 2048
_query_vectors: OrderedDict[tuple[str, str], Any] = OrderedDict()  # (encoder, query) -> vector
_direct_searches: dict[tuple[str, str], DirectSearch] = {}  # (uri, collection) -> in-process search


def default_milvus_uri() -> str:
    return str(data_dir() / "milvus.db")


def _fit(value: str, limit: int) -> str:
    """Cut to ``limit`` UTF-8 bytes without splitting a character (Milvus measures VARCHAR in bytes)."""
    raw = value.encode("utf-8")
    return value if len(raw) <= limit else raw[:limit].decode("utf-8", "ignore")


def milvus_id(doc_id: str) -> str:
    """The primary key stored for a passage id (a prefix and a hash for one too long or with controls)."""
    if len(doc_id.encode("utf-8")) <= MAX_ID_BYTES and not any(ord(c) < 32 for c in doc_id):
        return doc_id
    digest = hashlib.sha1(doc_id.encode("utf-8")).hexdigest()
    prefix = "".join(c for c in doc_id if ord(c) >= 32)
    return _fit(prefix, MAX_ID_BYTES - len(digest) - 1) + "~" + digest


def _id_filter(ids: Sequence[str]) -> str:
    # Milvus Lite has no filter templates; JSON string escapes are what its expression parser accepts.
    return "id in [" + ",".join(json.dumps(i, ensure_ascii=False) for i in ids) + "]"


def get_client(uri: str) -> Any:
    """The shared client for ``uri``, opened on first use."""
    with _lock:
        if uri in _clients:
            return _clients[uri]
        # gRPC logs keepalive renegotiation with Milvus Lite ("too_many_pings") as errors on stderr; the
        # client reconnects by itself, so those lines are noise for a CLI user.
        os.environ.setdefault("GRPC_VERBOSITY", "NONE")
        try:
            from pymilvus import MilvusClient
        except ImportError as exc:
            raise MissingDependencyError("pymilvus", "retrieval") from exc
        if is_lite_uri(uri):
            if not uri.endswith(".db"):
                raise ConfigError(f"a Milvus Lite database path must end in .db (got {uri})")
            Path(uri).parent.mkdir(parents=True, exist_ok=True)
        # Milvus Lite logs a full traceback when it cannot open the folder; we report it once, clearly.
        logging.getLogger("milvus_lite").setLevel(logging.CRITICAL)
        if is_lite_uri(uri):
            # Milvus Lite serves pymilvus from a gRPC server in this process; an RPC it does not implement
            # (AllocTimestamp, asked while waiting for an index) is answered as an error the client handles,
            # but grpc's server logs a traceback for it first.
            logging.getLogger("grpc._server").setLevel(logging.CRITICAL)
        with milvus_errors(uri, "opening"):
            client = MilvusClient(uri, grpc_options=LITE_GRPC_OPTIONS) if is_lite_uri(uri) else MilvusClient(uri)
        _clients[uri] = client
        return client


@contextlib.contextmanager
def milvus_errors(uri: str, action: str) -> Iterator[None]:
    """Report Milvus failures as :class:`IndexError_` telling the user what to do about them."""
    try:
        yield
    except FactDebateError:
        raise
    except Exception as exc:  # pymilvus and Milvus Lite raise many unrelated types
        if is_lite_uri(uri) and not loopback_works():  # not the folder's fault: deleting it would not help
            raise IndexError_(
                f"{action} the Milvus Lite database {uri} failed: Milvus Lite's server runs in this process and "
                "is reached over the loopback network (127.0.0.1), which is down here (a network namespace "
                "without `ip link set lo up`?); bring it up, or point at a Milvus server with --milvus-uri. The "
                "index itself is not at fault"
            ) from exc
        if is_lite_uri(uri) and held_elsewhere(uri):  # not the folder's fault: never advise deleting it
            raise IndexError_(
                f"{action} the Milvus Lite database {uri}: another process has it open (a factdebate serve, "
                "mcp, batch run or notebook; Milvus Lite lets one process open a folder at a time). Searches "
                "go on from a copy of their own; to index into it, stop that process first, or index into a "
                "Milvus server (--milvus-uri http://host:19530). The folder itself is fine"
            ) from exc
        if is_lite_uri(uri):
            raise IndexError_(
                f"{action} the Milvus Lite database {uri} failed ({exc}). Milvus Lite serves one process "
                f"at a time: if another factdebate process (a server, a batch run) is using it, stop it or "
                f"point both at a Milvus server with --milvus-uri; otherwise the folder may be corrupt: "
                f"delete the folder {uri} and the index will be rebuilt from the corpus"
            ) from exc
        raise IndexError_(f"{action} the Milvus server at {uri} failed ({exc})") from exc


LITE_WAIT_POLL_S = 0.5  # how often a build waiting for another process's Lite folder looks again


def held_here(uri: str) -> bool:
    """Whether this process's own Milvus Lite serves the folder (and so holds its lock)."""
    try:
        from milvus_lite.server_manager import server_manager_instance
    except ImportError:
        return False
    servers = getattr(server_manager_instance, "_servers", {})
    return os.path.abspath(uri) in servers


def held_elsewhere(uri: str) -> bool:
    """Whether another process (not this one) holds the Lite folder's LOCK file's flock, which pymilvus
    reports only as "Open local milvus failed"."""
    import fcntl

    if held_here(uri):
        return False
    try:
        fd = os.open(os.path.join(uri, "LOCK"), os.O_RDWR)
    except OSError:  # no lock file: nobody has opened it yet
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def loopback_works() -> bool:
    """Whether this process can connect to itself on 127.0.0.1 (Milvus Lite's client needs it)."""
    try:
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            with socket.create_connection(server.getsockname(), timeout=2):
                return True
    except OSError:
        return False


def _read_with_retry(read: Callable[[], Any], attempts: int = 3, delay: float = 0.2) -> Any:
    """Milvus Lite sometimes fails a read while a just-written segment is saved: any error is tried again,
    ``attempts`` tries in all, after ``delay`` seconds, then twice that, and so on."""
    return Retrying(stop=stop_after_attempt(attempts), wait=wait_incrementing(start=delay, increment=delay),
                    reraise=True)(read)


# pymilvus pings every 10 s, even when idle; Milvus Lite's in-process gRPC server keeps grpc's default
# policy (one ping per 5 min without data) and answers an idle client's pings with GOAWAY "too_many_pings",
# after which a reconnect can fail. Keepalive is pointless on an in-process loopback server: turn it off.
LITE_GRPC_OPTIONS = {"grpc.keepalive_time_ms": 2**31 - 1, "grpc.keepalive_permit_without_calls": False}

# Milvus Lite can read an index sidecar while its background writer is still finishing it; numpy then
# reports a truncated or "pickled" file. Seen only under heavy load, and a second load succeeds.
_TRANSIENT_LOAD_ERRORS = ("pickled", "No data left in file")


def load_collection(client: Any, collection: str, attempts: int = 5) -> None:
    def retrying(state: RetryCallState) -> None:
        failed = state.outcome.exception() if state.outcome is not None else None
        logging.getLogger(__name__).warning("Milvus Lite load of %s failed (%s); retrying", collection, failed)

    # The policy: only a transient load error is tried again, ``attempts`` tries in all, 0.2 s apart, then
    # 0.4 s, and so on; anything else is raised at once.
    Retrying(retry=retry_if_exception(lambda exc: any(m in str(exc) for m in _TRANSIENT_LOAD_ERRORS)),
             stop=stop_after_attempt(attempts), wait=wait_incrementing(start=0.2, increment=0.2),
             before_sleep=retrying, reraise=True)(client.load_collection, collection)


class MilvusStore:
    """One corpus's passages and their vectors in one Milvus collection."""

    def __init__(self, corpus: str = "builtin", uri: str | None = None, embedder: Embedder | None = None,
                 encoder: str = DEFAULT_ENCODER, *, searching: bool = False) -> None:
        self.corpus = corpus
        self.uri = uri or default_milvus_uri()
        self.collection = collection_name(corpus)
        self.embedder = embedder or get_embedder(encoder)
        self.searching = searching  # only searches: a Lite folder another process holds is searched from a copy
        self._copy: str | None = None

    @property
    def client(self) -> Any:
        if self._copy is not None:
            return get_client(self._copy)
        try:
            return get_client(self.uri)
        except IndexError_:
            if not (self.searching and is_lite_uri(self.uri) and held_elsewhere(self.uri)):
                raise
        from factdebate.corpus.lite_private import private_copy

        self._copy = private_copy(self.uri)
        print(f"note: {self.uri} is open in another process (Milvus Lite serves one at a time): searching a "
              "copy of it, as it is now", file=sys.stderr, flush=True)
        return get_client(self._copy)

    @property
    def opened_uri(self) -> str:
        """Where this store's client searches: the folder, or this process's copy of it (``client``)."""
        return self._copy or self.uri

    def _errors(self, action: str) -> contextlib.AbstractContextManager[None]:
        return milvus_errors(self.uri, action)

    def exists(self) -> bool:
        """Whether the collection exists; never creates a Lite database just to look."""
        if is_lite_uri(self.uri) and not Path(self.uri).exists():
            return False
        with self._errors("reading"):
            return bool(self.client.has_collection(self.collection))

    def check_writable(self) -> None:
        """Open the database without writing, waiting (said in one line) for a Lite folder another process holds."""
        said = False
        while True:
            try:
                with self._errors("opening"):
                    self.client.has_collection(self.collection)
                return
            except IndexError_:
                if not (is_lite_uri(self.uri) and held_elsewhere(self.uri)):
                    raise
            if not said:
                print(f"waiting for the other process that has {self.uri} open (a factdebate serve, mcp, batch "
                      "run or notebook; Milvus Lite lets one process open a folder at a time) to let go of it: "
                      "this build goes on then. Ctrl-C stops here; or index into a Milvus server "
                      "(--milvus-uri http://host:19530)", file=sys.stderr, flush=True)
                said = True
            from factdebate.corpus.progress import raise_if_stopped

            while held_elsewhere(self.uri):  # a lock test costs nothing; each open attempt starts Milvus Lite
                raise_if_stopped()  # Ctrl-C reaches a wait in a worker thread (run_claim's preparation) too
                time.sleep(LITE_WAIT_POLL_S)

    def create(self) -> None:
        """Create the collection with its vector index if it is missing (idempotent)."""
        from pymilvus import DataType

        client = self.client
        with self._errors("creating a collection in"):
            if client.has_collection(self.collection):
                return
            schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
            schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=MAX_ID_BYTES)
            schema.add_field("vector", DataType.FLOAT_VECTOR, dim=DIM)
            schema.add_field("title", DataType.VARCHAR, max_length=MAX_TITLE_BYTES)
            schema.add_field("text", DataType.VARCHAR, max_length=MAX_TEXT_BYTES)
            schema.add_field("source", DataType.VARCHAR, max_length=MAX_SOURCE_BYTES)
            index_params = client.prepare_index_params()
            index_params.add_index("vector", index_type="AUTOINDEX", metric_type="COSINE")
            client.create_collection(self.collection, schema=schema, index_params=index_params)

    def open(self) -> None:
        """Open the collection for searching now, so its checks fail before any model call."""
        self._ready()

    def _ready(self) -> Any:
        """The client, after checking once per process that the collection exists and is loaded."""
        client = self.client
        key = (self.opened_uri, self.collection)
        if key in _loaded:
            return client
        with self._errors("loading"):
            if not client.has_collection(self.collection):
                raise IndexError_(
                    f"no vector index for corpus '{self.corpus}' (collection {self.collection} in "
                    f"{self.uri}): build it with `factdebate index PATH` (the builtin corpus is indexed "
                    "automatically)"
                )
            load_collection(client, self.collection)
        self._check_encoder()
        with _lock:
            _loaded.add(key)
        return client

    def _check_encoder(self) -> None:
        """Vectors of one encoder searched with another's queries rank poorly without any error; refuse."""
        from factdebate.corpus.markers import get_marker, marker_key

        marker = get_marker(marker_key("rag", self.corpus, self.uri))
        built_with = marker.get("encoder", "fp32") if marker else None  # older markers: the float model
        if built_with is not None and built_with != self.embedder.kind:
            raise IndexError_(
                f"corpus '{self.corpus}' was indexed with the {built_with} encoder but retrieval.encoder is "
                f"{self.embedder.kind}: set FACTDEBATE_RETRIEVAL__ENCODER={built_with}, or index it again")

    def _read_options(self) -> dict[str, Any]:
        """Strong consistency on a server, so counts see every write (Milvus Lite takes no such option)."""
        return {} if is_lite_uri(self.uri) else {"consistency_level": "Strong"}

    def count(self) -> int:
        client = self._ready()
        with self._errors("counting rows in"):
            rows = client.query(self.collection, filter="", output_fields=["count(*)"], **self._read_options())
        return int(rows[0]["count(*)"]) if rows else 0

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        client = self._ready()
        with self._errors("reading"):
            rows = _read_with_retry(lambda: client.query(self.collection, filter=_id_filter(ids), output_fields=["id"],
                                                         **self._read_options()))
        return {row["id"] for row in rows}

    @staticmethod
    def embedding_text(doc: Document) -> str:
        # Later passages of an article rarely repeat its subject; the title puts it back in the vector.
        if doc.title and not doc.text.lstrip().lower().startswith(doc.title.lower()):
            return f"{doc.title}. {doc.text}"
        return doc.text

    def add(
        self,
        chunks: Sequence[Document],
        batch_size: int = 64,
        on_batch: Callable[[int], None] | None = None,
    ) -> int:
        """Embed and insert the passages not stored yet (looked up first); returns how many were new.
        ``on_batch`` is told each batch's size. Writes run in a second thread while the next batch embeds."""
        self.create()
        client = self._ready()
        ordered = encoding_order(chunks)  # longest first; the progress's costs follow the same order
        batches = [ordered[start : start + batch_size] for start in range(0, len(ordered), batch_size)]
        added = 0

        scheduled: set[str] = set()  # keys of this call's earlier batches (their write may be in flight)

        def fresh_of(batch: list[Document]) -> list[tuple[str, Document]]:
            keyed: dict[str, Document] = {}
            for doc in batch:
                key = milvus_id(doc.id)
                if key not in scheduled:  # an earlier batch's copy wins, as when its write was done
                    keyed.setdefault(key, doc)
            present = self.existing_ids(list(keyed))
            fresh = [(key, doc) for key, doc in keyed.items() if key not in present]
            scheduled.update(keyed)
            return fresh

        def write(fresh: list[tuple[str, Document]], vectors: Any) -> None:
            rows = [
                {
                    "id": key,
                    "vector": vector.tolist(),
                    "title": _fit(doc.title, MAX_TITLE_BYTES),
                    "text": _fit(doc.text, MAX_TEXT_BYTES),
                    "source": _fit(doc.source, MAX_SOURCE_BYTES),
                }
                for (key, doc), vector in zip(fresh, vectors, strict=True)
            ]
            with self._errors("writing to"):
                # upsert, not insert: a Milvus server keeps duplicate keys if two builds race
                client.upsert(self.collection, rows)

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="milvus-write") as writer:
            pending: Future[None] | None = None
            for batch in batches:
                fresh = fresh_of(batch)
                if fresh:
                    vectors = self.embedder.encode([self.embedding_text(d) for _, d in fresh], batch_size)
                    if pending is not None:
                        pending.result()  # one write at a time, in order; its error surfaces here
                    pending = writer.submit(write, fresh, vectors)
                    added += len(fresh)
                if on_batch is not None:
                    on_batch(len(batch))
            if pending is not None:
                pending.result()
        return added

    def finalize(self, timeout: float = 300.0) -> None:
        """Seal new rows and wait for their vector index (about 600 ms → 10 ms a query on the builtin corpus);
        Milvus Lite then needs the collection reloaded, a server does not (and must not be released)."""
        client = self._ready()
        with self._errors("indexing"):
            client.flush(self.collection)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                info = client.describe_index(self.collection, "vector") or {}
                if info.get("pending_index_rows", 0) == 0 and info.get("state") != "InProgress":
                    break
                time.sleep(0.2)
            if is_lite_uri(self.uri):
                client.release_collection(self.collection)
                load_collection(client, self.collection)

    def _query_vector(self, query: str) -> Any:
        """Debaters often search the same text (the claim, a repeated query): embed it once per process."""
        key = (self.embedder.kind, query)
        with _lock:
            cached = _query_vectors.get(key)
            if cached is not None:
                _query_vectors.move_to_end(key)
                return cached
        vector = self.embedder.encode([query])[0]
        with _lock:
            _query_vectors[key] = vector
            while len(_query_vectors) > _QUERY_CACHE_SIZE:
                _query_vectors.popitem(last=False)
        return vector

    def _direct(self) -> DirectSearch | None:
        """The in-process search of a Milvus Lite collection (tools/milvus_lite_direct.py)."""
        if not is_lite_uri(self.uri):
            return None
        key = (self.opened_uri, self.collection)
        with _lock:
            if key not in _direct_searches:
                _direct_searches[key] = DirectSearch(self.opened_uri, self.collection)
            return _direct_searches[key]

    def search_sync(self, query: str, k: int) -> list[Document]:
        if not query.strip() or k <= 0:
            return []
        client = self._ready()
        vector = self._query_vector(query)
        direct = self._direct()

        def best(limit: int) -> list[Document]:
            # Retried as the client's search is: the in-process read meets the same half-written files under
            # load (a Ray worker's search failed once in an idle whole-suite run; its error was misreported).
            found = _read_with_retry(lambda: direct.search(vector, limit, _OUTPUT_FIELDS)) \
                if direct is not None else None
            if found is None:
                hits = _read_with_retry(lambda: client.search(
                    self.collection,
                    data=[vector.tolist()],
                    limit=limit,
                    output_fields=_OUTPUT_FIELDS,
                    search_params={"metric_type": "COSINE"},
                ))
                found = hits[0] if hits else []
            return self.documents(found)

        with self._errors("searching"):
            return search_ties_by_id(best, k)  # equal similarities by id, not by segment and row

    @staticmethod
    def documents(hits: list[dict[str, Any]]) -> list[Document]:
        results: list[Document] = []
        for hit in hits:
            entity = hit.get("entity", {})
            results.append(
                Document(
                    id=str(hit["id"]),
                    title=entity.get("title", ""),
                    text=entity.get("text", ""),
                    source=entity.get("source", ""),
                    score=float(hit["distance"]),  # COSINE: the similarity itself, higher is closer
                )
            )
        return results

    async def search(self, query: str, k: int) -> list[Document]:
        return await asyncio.to_thread(self.search_sync, query, k)

    def drop(self) -> None:
        """Delete the collection (for a rebuild)."""
        with _lock:
            _loaded.discard((self.uri, self.collection))
        if self.exists():
            with self._errors("dropping a collection in"):
                self.client.drop_collection(self.collection)
