"""Download a file from the Hub and check its bytes before anything uses them.

A file is checked against the sha256 recorded with the request, else the Hub's own hash (the LFS sha256 ETag,
or a git blob sha1), else trusted on first download; one that fails is deleted at once. :func:`obtain` adds the
lock file (:mod:`factdebate.hub.lock`): a verified copy is used offline, and refetched only from its commit."""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path

from factdebate.hub import lock, remote
from factdebate.hub.checksum import GIT_SHA1, SHA256, git_blob_sha1, sha256_file
from factdebate.hub.errors import ChecksumMismatch, NotDownloaded
from factdebate.hub.remote import RemoteFile
from factdebate.util.context import bound

Notify = Callable[[str], None]


@dataclass(frozen=True)
class Fetched:
    path: Path
    sha256: str
    size: int
    commit: str
    checked_against: str  # "registry", "lock", "Hub" (its LFS sha256), "Hub (git sha1)", "first download"
    fetched_from: str = ""  # the URL the bytes were downloaded from, recorded then ("": not recorded)


# A ContextVar, not an argument: the hold is set by a caller far above (a test, a dry run, the service's
# request) and read by every fetch beneath it, in that task and the tasks it starts, never by a neighbour's.
_HELD: contextvars.ContextVar[str | None] = contextvars.ContextVar("factdebate_downloads_held", default=None)


def hold_downloads(reason: str) -> AbstractContextManager[str]:
    """Within it, a file with no verified copy here raises :class:`NotDownloaded` instead of being fetched."""
    return bound(_HELD, reason)


def downloads_held() -> str | None:
    """Why downloads are held now, or None."""
    return _HELD.get()


def _size(size: int | None) -> str:
    if size is None:
        return "size unknown"
    if size < 1000:
        return f"{size} B"
    value, unit = size / 1000, "KB"
    for bigger in ("MB", "GB"):
        if value < 1000:
            break
        value, unit = value / 1000, bigger
    return f"{value:.1f} {unit}"


def fetch(file: RemoteFile, *, local_dir: Path | None = None, force: bool = False,
          notify: Notify | None = None) -> Fetched:
    """Download ``file`` (into the cache, or ``local_dir``) and verify it; raises ChecksumMismatch."""
    head = remote.head(file)
    if notify:
        notify(f"fetching {file} ({_size(head.size)}) from {remote.endpoint()}")
    started = time.perf_counter()
    path = remote.download(file, head.commit, local_dir=local_dir, force=force)
    seconds = time.perf_counter() - started
    actual = sha256_file(path)
    if file.sha256:
        expected, against, ok = file.sha256, file.checksum_from, actual == file.sha256.lower()
    elif head.etag and SHA256.match(head.etag):
        expected, against, ok = head.etag, "Hub", actual == head.etag
    elif head.etag and GIT_SHA1.match(head.etag):
        expected, against = head.etag, "Hub (git sha1)"
        ok = git_blob_sha1(path) == head.etag
    else:
        expected, against, ok = actual, "first download", True
    if not ok:
        remote.remove(path)
        raise ChecksumMismatch(f"{file}: the downloaded bytes do not match the checksum from the {against} "
                               f"(expected {expected}, got sha256 {actual}); the download was deleted")
    size = path.stat().st_size
    if notify:
        notify(f"  {_size(size)} in {seconds:.1f} s, checked against the {against}: sha256 {actual[:16]}…")
    return Fetched(path=path, sha256=actual, size=size, commit=head.commit, checked_against=against)


def lock_key(file: RemoteFile) -> str:
    return lock.key(file.repo_type, file.repo_id, file.revision, file.path)


def _locked(file: RemoteFile) -> lock.Locked | None:
    locked = lock.get(lock_key(file))
    if locked is not None and file.sha256 and locked.sha256 != file.sha256.lower():
        return None  # the registry now records another file: fetch that one afresh
    return locked


def obtain(file: RemoteFile, *, notify: Notify | None = None) -> Fetched:
    """A verified local copy of ``file``: from disk when the lock file knows it, else downloaded and checked."""
    locked = _locked(file)
    force = False
    if locked is not None:
        path = remote.cached(file, locked.commit)
        if path is not None:
            if sha256_file(path) == locked.sha256:
                return Fetched(path, locked.sha256, path.stat().st_size, locked.commit, "lock")
            force = True  # the cached copy changed on disk: replace it, then check it against the lock
        file = replace(file, revision=locked.commit, sha256=locked.sha256,
                       checksum_from=f"lock file {lock.lock_path()}")
    if (held := downloads_held()) is not None:
        raise NotDownloaded(f"{file}: not downloaded ({held})")
    fetched = fetch(file, force=force, notify=notify)
    if locked is None:
        lock.record(lock_key(file), lock.Locked(commit=fetched.commit, sha256=fetched.sha256, size=fetched.size,
                                                checked_against=fetched.checked_against))
    return fetched


def is_cached(file: RemoteFile) -> bool:
    """Whether a copy fetched earlier is on disk (not re-hashed: for listings)."""
    locked = _locked(file)
    return locked is not None and remote.cached(file, locked.commit) is not None
