"""The database behind the service's shared state and batch store: SQLite in WAL mode (one machine) or a
PostgreSQL server (replicas on several machines), chosen by URL.

Callers write SQL once, with ``?`` placeholders, in the subset both engines speak. A write is a function
run inside :meth:`StateDatabase.write`, which serializes it against every other process's writes of the
same kind: ``BEGIN IMMEDIATE`` on SQLite (one lock per file), a transaction-scoped advisory lock named
after the kind on PostgreSQL. Each such transaction lasts a millisecond or so, so serializing them costs
nothing next to a debate, and a read-modify-write never interleaves with another process's.

PostgreSQL connections that fail are retried (three tries, backed off), then reported with the URL's
password hidden. A write whose connection breaks is run again on a fresh connection; the one case that
can repeat work is a connection lost after the server committed but before it answered, where the retry
applies the change a second time (a rate-limit token spent twice, or one more claim taken: a claim so
taken stays marked as running by a live process until that process exits, and is then run again)."""

from __future__ import annotations

import os
import re
import socket
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from factdebate.util.errors import ConfigError, FactDebateError, MissingDependencyError
from factdebate.util.scrub import redact_value

T = TypeVar("T")

SERVER_SCHEMES = ("postgresql", "postgres")
CONNECT_TRIES = 3
CONNECT_TIMEOUT_SECONDS = 5
# After how long without a record a process on another machine counts as gone (its claims and debate slots
# are then freed): the service's heartbeat_lease_s, this by default; each process records that it is alive
# four times a lease (server/service.py). On the same machine a process is checked directly. Short, since a
# dead replica's claims and slots wait this long before anyone can take them.
PROCESS_LEASE_SECONDS = 20.0

# After every try to reach the server failed, requests fail at once for this long rather than each waiting
# out the tries again (in line behind one lock): a server that is down answers 503s quickly, not slowly.
DOWN_RECHECK_SECONDS = 2.0
DOWN_REASON = "the service's state database cannot be reached; try again shortly"
DOWN_RETRY_AFTER_S = 5  # what the 503 asks a client to wait (Retry-After)

HEARTBEAT_SCHEMA = "CREATE TABLE IF NOT EXISTS heartbeats (process TEXT PRIMARY KEY, seen DOUBLE PRECISION NOT NULL)"


class StateDatabaseDown(FactDebateError):
    """The state database (a PostgreSQL server) cannot be reached after ``attempts`` tries: a route that needs it
    answers 503 with :data:`DOWN_REASON` (server/app.py), ``/v1/health`` names it; the server's log keeps this
    message."""

    reason = DOWN_REASON
    http_status = 503

    def __init__(self, where: str, attempts: int, last_error: str) -> None:
        super().__init__(f"could not reach {where} after {attempts} attempt(s): {last_error}")


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def execute(self, sql: str, params: Sequence[Any] = ...) -> Any: ...
    def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> Any: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class StateDatabase(Protocol):
    dialect: str  # "sqlite" | "postgresql"
    location: str  # for messages: the file, or the URL without its password

    def write(self, kind: str, fn: Callable[[Cursor], T]) -> T: ...
    def read(self, fn: Callable[[Cursor], T]) -> T: ...
    def script(self, ddl: str) -> None: ...
    def close(self) -> None: ...


def is_server_url(url: str | Path | None) -> bool:
    return isinstance(url, str) and server_scheme(url) in SERVER_SCHEMES


def server_scheme(url: str) -> str:
    """``postgresql+psycopg://…`` (SQLAlchemy's spelling) -> ``postgresql``."""
    return url.split("://", 1)[0].split("+", 1)[0].lower() if "://" in url else ""


def unsupported(target: str) -> str | None:
    """Why ``target`` names no state database this version can open (None: it does)."""
    if target.startswith("sqlite:///") or is_server_url(target):
        return None
    if "://" in target or re.match(r"^[A-Za-z][A-Za-z0-9+.-]+:/", target):  # a URL, not a path
        return (f"state database {target.split(':', 1)[0]}: is not supported: give sqlite:///PATH (one machine) "
                "or postgresql://HOST:5432/DBNAME "
                "(several machines; factdebate docs scale#replicas-on-several-machines-postgresql)")
    return None


def open_state_db(target: str | Path) -> StateDatabase:
    """``sqlite:///abs/path`` or a plain path: SQLite; ``postgresql://user[:password]@host[:port]/db``: a
    PostgreSQL server (libpq's environment variables, PGPASSWORD among them, fill what the URL leaves out)."""
    if isinstance(target, Path):
        return SqliteStateDatabase(target)
    if target.startswith("sqlite:///"):
        return SqliteStateDatabase(Path(target.removeprefix("sqlite://")))
    if is_server_url(target):
        return PostgresStateDatabase(target)
    problem = unsupported(target)
    if problem:
        raise ConfigError(problem)
    return SqliteStateDatabase(Path(target))


class SqliteStateDatabase:
    dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.location = str(path)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection, (re)opened on demand so an app can be started again after a shutdown."""
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # timeout: another process's transaction is waited for, not an error (each lasts microseconds)
            self._conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=30)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: survives a process crash
        return self._conn

    def write(self, kind: str, fn: Callable[[Cursor], T]) -> T:
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")  # the write lock first: read-modify-write without a race
            try:
                result = fn(db.cursor())
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return result

    def read(self, fn: Callable[[Cursor], T]) -> T:
        with self._lock:
            return fn(self._db.cursor())

    def script(self, ddl: str) -> None:
        with self._lock:
            self._db.executescript(ddl)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


_PLACEHOLDER = re.compile(r"\?")


class _PostgresCursor:
    """A psycopg cursor that takes the ``?`` placeholders SQLite uses."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _PostgresCursor:
        self._cursor.execute(_PLACEHOLDER.sub("%s", sql), tuple(params))
        return self

    def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> _PostgresCursor:
        self._cursor.executemany(_PLACEHOLDER.sub("%s", sql), [tuple(p) for p in params])
        return self

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall())


def lock_key(kind: str) -> int:
    """A stable 32-bit advisory-lock key per kind of write (the same in every process and machine)."""
    return zlib.crc32(f"factdebate:{kind}".encode()) - 2**31


class _ConnectionBroke(Exception):
    """A transaction's connection broke under it (its error kept): the transaction may run again."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class PostgresStateDatabase:
    dialect = "postgresql"

    def __init__(self, url: str, tries: int = CONNECT_TRIES, backoff: float = 0.5) -> None:
        try:
            import psycopg
        except ImportError as exc:
            raise MissingDependencyError("psycopg", "postgres") from exc
        self._psycopg = psycopg
        self.url = re.sub(r"^[^:]+://", "postgresql://", url)  # drop a +driver suffix
        self.location = redact_value(self.url)
        self.tries = tries
        self.backoff = backoff
        self._conn: Any = None
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._connection()  # fail at start-up, not on the first request

    def _connection(self) -> Any:
        if self._conn is not None and not self._conn.closed:
            return self._conn
        if time.monotonic() < self._down_until:
            raise StateDatabaseDown(f"the state database {self.location}", 0, "it could not be reached a moment ago")
        # The policy: a connection refused or dropped is tried again, ``tries`` tries in all, after ``backoff``
        # seconds, then twice that, and so on; then the database counts as down for a while.
        connect = Retrying(retry=retry_if_exception_type(self._psycopg.OperationalError),
                           stop=stop_after_attempt(self.tries), wait=wait_exponential(multiplier=self.backoff),
                           reraise=True)
        try:
            self._conn = connect(self._psycopg.connect, self.url, autocommit=True,
                                 connect_timeout=CONNECT_TIMEOUT_SECONDS,
                                 application_name=f"factdebate@{socket.gethostname()}")
        except self._psycopg.OperationalError as exc:
            self._down_until = time.monotonic() + DOWN_RECHECK_SECONDS
            raise StateDatabaseDown(f"the state database {self.location}", self.tries,
                                    " ".join(str(exc).split())) from None
        return self._conn

    def _run(self, fn: Callable[[Cursor], T], kind: str | None) -> T:
        def transaction() -> T:
            with self._lock:
                conn = self._connection()
                try:
                    with conn.transaction(), conn.cursor() as raw:
                        cursor = _PostgresCursor(raw)
                        if kind is not None:
                            cursor.execute("SELECT pg_advisory_xact_lock(?)", (lock_key(kind),))
                        return fn(cursor)
                except self._psycopg.OperationalError as exc:
                    if not conn.closed:  # the query's own failure (a timeout, a deadlock): not the server's absence
                        raise
                    self._conn = None  # the connection broke: reconnect and run the transaction again
                    raise _ConnectionBroke(exc) from exc

        # The policy: a transaction whose connection broke runs once more on a new one, at once.
        run = Retrying(retry=retry_if_exception_type(_ConnectionBroke), stop=stop_after_attempt(2), reraise=True)
        try:
            return run(transaction)
        except _ConnectionBroke as broke:
            raise StateDatabaseDown(f"the state database {self.location}", 2,
                                    " ".join(str(broke.error).split())) from broke.error

    def write(self, kind: str, fn: Callable[[Cursor], T]) -> T:
        return self._run(fn, kind)

    def read(self, fn: Callable[[Cursor], T]) -> T:
        return self._run(fn, None)

    def script(self, ddl: str) -> None:
        # Concurrent CREATE TABLE IF NOT EXISTS can collide in PostgreSQL's catalogue: one process at a time.
        def create(cursor: Cursor) -> None:
            for statement in (s.strip() for s in ddl.split(";")):
                if statement:
                    cursor.execute(statement)

        self._run(create, "schema")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


# -- liveness ------------------------------------------------------------------------------------------
def beat(db: StateDatabase, process: str, now: float | None = None) -> None:
    """Record that ``process`` (``host:pid``) is alive."""
    now = time.time() if now is None else now
    db.write("heartbeats", lambda c: c.execute(
        "INSERT INTO heartbeats (process, seen) VALUES (?, ?) ON CONFLICT (process) DO UPDATE SET seen = excluded.seen",
        (process, now)))


def fresh_processes(cursor: Cursor, now: float | None = None, lease_s: float = PROCESS_LEASE_SECONDS) -> set[str]:
    """The processes (``host:pid``) that recorded a heartbeat within the lease."""
    now = time.time() if now is None else now
    cursor.execute("DELETE FROM heartbeats WHERE seen < ?", (now - 10 * max(lease_s, PROCESS_LEASE_SECONDS),))
    rows = cursor.execute("SELECT process FROM heartbeats WHERE seen >= ?", (now - lease_s,)).fetchall()
    return {row[0] for row in rows}


def process_alive(host: str, pid: int, fresh: set[str]) -> bool:
    """On this machine: whether the process runs. On another: whether it beat within the lease."""
    if host != socket.gethostname():
        return f"{host}:{pid}" in fresh
    try:
        os.kill(pid, 0)  # signal 0 checks without signalling
    except ProcessLookupError:
        return False
    except PermissionError:  # a process we may not signal exists all the same
        return True
    return True
