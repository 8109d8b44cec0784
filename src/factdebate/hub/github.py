"""Files of a public GitHub repository at a pinned commit, fetched from its raw-file host and checked as
the Hub's files are (:mod:`factdebate.hub.fetch`): the paper authors' own sample sets come this way.

A file is named by repository, commit and path, and downloaded from ``<raw>/<owner>/<name>/<commit>/<path>``
(``raw.githubusercontent.com``, or ``FACTDEBATE_GITHUB_RAW`` for a mirror or a test server). Its bytes must
match the sha256 the registry records; where they do not, a caller may still accept the file by its
content (``accept``: the registry's copy may have been written out from a text view of the repository, so
the original's bytes can differ in whitespace while its records are the same). A file that passes neither
is deleted at once. The verified copy lives in ``<data>/hub/github/`` and its sha256 goes to the lock file,
so later loads need no network; ``HF_HUB_OFFLINE=1`` (the one offline switch of the project) forbids the
download, as it does for the Hub.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from factdebate.hub import lock
from factdebate.hub.checksum import sha256_file
from factdebate.hub.errors import ChecksumMismatch, HubNotFound, HubUnreachable
from factdebate.hub.fetch import Fetched, Notify
from factdebate.hub.remote import cache_dir

DEFAULT_RAW = "https://raw.githubusercontent.com"
TIMEOUT_S = 60.0
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
    if actual == file.sha256:
        return Fetched(path, actual, path.stat().st_size, file.commit, "registry")
    if locked is not None and locked.sha256 == actual:
        return Fetched(path, actual, path.stat().st_size, file.commit, "lock")
    path.unlink()  # changed on disk since it was checked: fetch it again
    return None


def _download(file: RawFile, target: Path) -> None:
    url = file.url()
    request = urllib.request.Request(url, headers={"User-Agent": "factdebate"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response, target.open("wb") as out:
            while block := response.read(1 << 20):
                out.write(block)
    except urllib.error.HTTPError as exc:
        target.unlink(missing_ok=True)
        if exc.code == 404:
            raise HubNotFound(f"{file}: not found at {url} (HTTP 404)") from None
        raise HubUnreachable(f"{file}: {raw_endpoint()} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        target.unlink(missing_ok=True)
        reason = getattr(exc, "reason", None) or exc
        raise HubUnreachable(f"{file}: could not reach {raw_endpoint()} ({str(reason)[:120]})") from None


def obtain(file: RawFile, *, accept: Accept | None = None, notify: Notify | None = None) -> Fetched:
    """A verified local copy of ``file``: from disk without a network call when one is there, else
    downloaded and checked; raises HubUnreachable (offline too), HubNotFound or ChecksumMismatch."""
    found = _verified_copy(file)
    if found is not None:
        return found
    if offline():
        raise HubUnreachable(f"{file}: offline mode is on (HF_HUB_OFFLINE) and there is no verified copy here yet")
    target = file.cache_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.part")
    if notify:
        notify(f"fetching {file} from {raw_endpoint()}")
    _download(file, partial)
    actual = sha256_file(partial)
    against = "registry" if actual == file.sha256 else (accept(partial) if accept is not None else None)
    if against is None:
        partial.unlink(missing_ok=True)
        raise ChecksumMismatch(f"{file}: the downloaded bytes do not match the checksum from the registry "
                               f"(expected {file.sha256}, got sha256 {actual}); the download was deleted")
    os.replace(partial, target)  # never a half-written or unchecked file under the final name
    size = target.stat().st_size
    lock.record(file.lock_key(), lock.Locked(commit=file.commit, sha256=actual, size=size, checked_against=against))
    if notify:
        notify(f"  {size:,} bytes, checked against the {against}: sha256 {actual[:16]}…")
    return Fetched(path=target, sha256=actual, size=size, commit=file.commit, checked_against=against)


def is_cached(file: RawFile) -> bool:
    """Whether a copy fetched earlier is on disk (not re-hashed: for listings)."""
    return file.cache_path().is_file()
