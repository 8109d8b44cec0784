"""Writes that fail because the disk holding the data folder (or the state database) is full or read-only: no
fault of the check. The cache skips the write with one warning, what cannot be stored says so, and
``/v1/health`` names the part that could not write (:data:`STORAGE`) until a write succeeds again."""

from __future__ import annotations

import errno
import sqlite3
import threading

# errno values of a write the disk refused: full, over quota, mounted read-only
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS}
# SQLite's primary result codes for the same: SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN
_SQLITE_CODES = {8, 10, 13, 14}
_SQLITE_TEXTS = ("database or disk is full", "readonly database", "disk I/O error", "unable to open database")
# PostgreSQL's SQLSTATE for a full disk, a server out of memory or connections, and a read-only transaction
_SQLSTATES = {"53100", "53200", "53300", "25006"}


class StorageNotes:
    """Which parts of the storage could not be written lately, and why; cleared by the next good write.
    :meth:`problem` says whether a failed write is one storage could not take."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._problems: dict[str, str] = {}

    @staticmethod
    def problem(exc: BaseException) -> str | None:
        """Why a write failed, when storage cannot take it (a full or read-only disk); None for any other error."""
        if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
            return exc.strerror or str(exc)
        if isinstance(exc, sqlite3.Error):
            code = getattr(exc, "sqlite_errorcode", None)
            text = str(exc)
            if (isinstance(code, int) and code & 0xFF in _SQLITE_CODES) or any(t in text for t in _SQLITE_TEXTS):
                return text
            return None
        if getattr(exc, "sqlstate", None) in _SQLSTATES:  # psycopg's errors carry the server's SQLSTATE
            return str(exc).strip().splitlines()[0] if str(exc).strip() else "the database refused the write"
        return None

    def failed(self, part: str, reason: str) -> bool:
        """Note that ``part`` could not write; True the first time (the caller warns once, not per call)."""
        with self._lock:
            first = part not in self._problems
            self._problems[part] = reason
            return first

    def wrote(self, part: str) -> None:
        if part in self._problems:
            with self._lock:
                self._problems.pop(part, None)

    def problems(self) -> dict[str, str]:
        with self._lock:
            return dict(self._problems)


STORAGE = StorageNotes()
