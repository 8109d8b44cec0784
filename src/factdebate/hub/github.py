"""Files of a public GitHub repository at a pinned commit, fetched from its raw-file host and checked as
the Hub's files are (:mod:`factdebate.hub.fetch`): the paper authors' own sample sets come this way.

Downloaded from ``<raw>/<owner>/<name>/<commit>/<path>`` (``FACTDEBATE_GITHUB_RAW`` names a mirror), its bytes
must match the registry's sha256, or its content satisfy ``accept``; else it is deleted. The copy lives in
``<data>/hub/github/`` with its sha256 in the lock file; ``HF_HUB_OFFLINE=1`` forbids the download."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, urljoin, urlsplit

from factdebate.hub import lock
from factdebate.hub.checksum import sha256_file
from factdebate.hub.errors import ChecksumMismatch, HubNotFound, HubUnreachable, NotDownloaded
from factdebate.hub.fetch import Fetched, Notify, downloads_held
from factdebate.hub.remote import cache_dir

if TYPE_CHECKING:
    from factdebate.util.http_client import Reply

DEFAULT_RAW = "https://raw.githubusercontent.com"
READ_TIMEOUT_S = 60.0  # one read of the socket (and the opening of the connection)
DEADLINE_S = 300.0  # the whole download: a few hundred kilobytes take seconds; a trickle must end
MAX_REDIRECTS = 3  # followed only to the same scheme, host and port
UNSIZED_CAP = 256 * 2**20  # a file the registry gives no size for
# What earlier versions accepted a copy against that no longer suffices: ids, labels and claims can match while
# anything else in the file (planted gold evidence) goes through unchecked
WEAK_CHECKS = frozenset({"registry's records (ids, labels, claims)"})
# Given the downloaded file, a description of what it was checked against when its content is accepted
# in place of the recorded bytes (e.g. "the registry's records"), else None.
Accept = Callable[[Path], str | None]


def raw_endpoint() -> str:
    return (os.environ.get("FACTDEBATE_GITHUB_RAW") or DEFAULT_RAW).rstrip("/")


def offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class RawFile:
    repo: str  # owner/name
    commit: str  # a full commit id: a branch name would let the file change under a pinned checksum
    path: str
    sha256: str
    size: int | None = None  # the registry's copy's size: the download is capped near it (body_cap)

    def __str__(self) -> str:
        return f"{self.path} of the GitHub repo {self.repo}@{self.commit[:12]}"

    def url(self) -> str:
        return f"{raw_endpoint()}/{self.repo}/{self.commit}/{quote(self.path)}"

    def cache_path(self) -> Path:
        return cache_dir() / "github" / self.repo.replace("/", "+") / self.commit / self.path

    def lock_key(self) -> str:
        return lock.key("github", self.repo, self.commit, self.path)


def _verified_copy(file: RawFile) -> Fetched | None:
    """The copy on disk, if its bytes are the registry's or the ones the lock recorded when it was accepted."""
    path = file.cache_path()
    if not path.is_file():
        return None
    actual = sha256_file(path)
    locked = lock.get(file.lock_key())
    source = locked.fetched_from if locked is not None and locked.sha256 == actual else ""
    if actual == file.sha256:
        return Fetched(path, actual, path.stat().st_size, file.commit, "registry", fetched_from=source)
    if locked is not None and locked.sha256 == actual and locked.checked_against not in WEAK_CHECKS:
        return Fetched(path, actual, path.stat().st_size, file.commit, "lock", fetched_from=source)
    path.unlink()  # changed on disk since it was checked, or accepted by a check since found too weak: again
    return None


def body_cap(file: RawFile) -> int:
    """The most bytes a download of ``file`` may take: the registry's size, half again and 64 KiB, or
    :data:`UNSIZED_CAP`."""
    return file.size * 3 // 2 + 64 * 1024 if file.size else UNSIZED_CAP


def _same_place(url: str, base: str) -> bool:
    a, b = urlsplit(url), urlsplit(base)
    return (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port)


def _download(file: RawFile, target: Path, *, deadline_s: float | None = None) -> str:
    """``file``'s bytes into ``target``; the URL they came from. At most :func:`body_cap` bytes within
    ``deadline_s`` seconds, redirects only to the same origin, and ``target`` removed unless it succeeds."""
    total = DEADLINE_S if deadline_s is None else deadline_s
    deadline = time.monotonic() + total
    url, cap = file.url(), body_cap(file)
    try:
        for _ in range(MAX_REDIRECTS + 1):
            moved = _get(file, url, target, cap, (deadline, total))
            if moved is None:
                return url
            if not _same_place(moved, url):
                raise HubUnreachable(f"{file}: {raw_endpoint()} redirected the download to another host "
                                     f"({urlsplit(moved).hostname or moved[:80]}): refused")
            url = moved
        raise HubUnreachable(f"{file}: {raw_endpoint()} redirected the download more than {MAX_REDIRECTS} times")
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def _get(file: RawFile, url: str, target: Path, cap: int, until: tuple[float, float]) -> str | None:
    """One request, on its own event loop in a worker thread: the body into ``target`` (None), or a redirect."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="factdebate-github") as pool:
        return pool.submit(asyncio.run, _get_async(file, url, target, cap, until)).result()


async def _get_async(file: RawFile, url: str, target: Path, cap: int, until: tuple[float, float]) -> str | None:
    from factdebate.util.http_client import Client

    deadline, total = until

    def late() -> HubUnreachable:
        return HubUnreachable(f"{file}: {raw_endpoint()} did not send the file within {total:.0f} s "
                              "(the download's whole deadline)")

    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    # The limit is this function's own, below (an announced length refused unread, a sent one counted).
    client = Client(origin, {}, READ_TIMEOUT_S, max_bytes=2**62, total=max(0.001, deadline - time.monotonic()),
                    what="the file")
    try:
        reply = await client.get(parts.path + (f"?{parts.query}" if parts.query else ""))
        try:
            return await _saved(file, url, reply, target, cap)
        finally:
            reply.close()
    except TimeoutError as exc:
        if time.monotonic() >= deadline:
            raise late() from None
        raise HubUnreachable(f"{file}: could not reach {raw_endpoint()} ({str(exc)[:120] or 'timed out'})") from None
    except OSError as exc:
        raise HubUnreachable(f"{file}: could not reach {raw_endpoint()} ({str(exc)[:120] or type(exc).__name__})"
                             ) from None
    finally:
        await client.aclose()


async def _saved(file: RawFile, url: str, reply: Reply, target: Path, cap: int) -> str | None:
    """The answer's body written to ``target`` within ``cap`` bytes (None), or a redirect's absolute URL."""
    if reply.status in (301, 302, 303, 307, 308):
        return urljoin(url, reply.headers.get("Location") or "")
    if reply.status == 404:
        raise HubNotFound(f"{file}: not found at {url} (HTTP 404)")
    if reply.status != 200:
        raise HubUnreachable(f"{file}: {raw_endpoint()} answered HTTP {reply.status}")
    announced = reply.headers.get("Content-Length")
    if announced and announced.isdigit() and int(announced) > cap:
        raise ChecksumMismatch(f"{file}: {raw_endpoint()} announced {int(announced):,} bytes, more than the "
                               f"{cap:,} the registry's copy allows: refused unread")
    written = 0
    with target.open("wb") as out:
        async for block in reply.chunks():
            written += len(block)
            if written > cap:
                raise ChecksumMismatch(f"{file}: {raw_endpoint()} sent more than {cap:,} bytes, more than "
                                       "the registry's copy allows: refused, and the download deleted")
            out.write(block)
    return None


def obtain(file: RawFile, *, accept: Accept | None = None, notify: Notify | None = None) -> Fetched:
    """A verified local copy of ``file``, from disk or downloaded and checked (else a HubError); ``accept`` may
    write the copy it accepts and returns what it checked it against."""
    found = _verified_copy(file)
    if found is not None:
        return found
    if offline():
        raise HubUnreachable(f"{file}: offline mode is on (HF_HUB_OFFLINE) and there is no verified copy here yet")
    if (held := downloads_held()) is not None:
        raise NotDownloaded(f"{file}: not downloaded ({held}); it would come from {file.url()}")
    target = file.cache_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.part")
    if notify:
        notify(f"fetching {file} from {raw_endpoint()}")
    try:
        source = _download(file, partial)
        actual = sha256_file(partial)
        against = "registry" if actual == file.sha256 else (accept(partial) if accept is not None else None)
        if against is None:
            raise ChecksumMismatch(f"{file}: the downloaded bytes do not match the checksum from the registry "
                                   f"(expected {file.sha256}, got sha256 {actual}); the download was deleted")
        actual = sha256_file(partial)  # what ``accept`` kept, when it rewrote the copy
        os.replace(partial, target)  # never a half-written or unchecked file under the final name
    finally:
        partial.unlink(missing_ok=True)
    size = target.stat().st_size
    lock.record(file.lock_key(), lock.Locked(commit=file.commit, sha256=actual, size=size, checked_against=against,
                                             fetched_from=source))
    if notify:
        notify(f"  {size:,} bytes, checked against the {against}: sha256 {actual[:16]}…")
    return Fetched(path=target, sha256=actual, size=size, commit=file.commit, checked_against=against,
                   fetched_from=source)


def is_cached(file: RawFile) -> bool:
    """Whether a copy fetched earlier is on disk (not re-hashed: for listings)."""
    return file.cache_path().is_file()
