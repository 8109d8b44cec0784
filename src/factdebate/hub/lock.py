"""The lock file: the sha256 and commit of every file fetched from the Hub, recorded on its first download.

An entry without a checksum is trusted on first use; every later load is checked against this record and
refetched from the same commit, so an upstream update or a tampered copy shows up as a mismatch."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from factdebate.util.errors import InputError
from factdebate.util.paths import data_dir

try:
    import fcntl
except ImportError:  # Windows: writes stay atomic, concurrent writers may drop each other's new entries
    fcntl = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Locked:
    commit: str
    sha256: str
    size: int
    checked_against: str  # "registry", "hub" (the Hub's LFS sha256 or git sha1) or "first download"
    recorded_at: str = ""
    fetched_from: str = ""  # the URL the bytes came from, as asked when they were downloaded ("": not recorded)


def lock_path() -> Path:
    return data_dir() / "hub" / "lock.json"


def key(repo_type: str, repo_id: str, revision: str, path: str) -> str:
    return f"{repo_type}:{repo_id}@{revision}/{path}"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{path} is unreadable ({exc}): fix or delete it, and fetched files will be "
                         "checked against the Hub again") from None
    return data.get("files", {}) if isinstance(data, dict) else {}


def get(name: str) -> Locked | None:
    entry = _read(lock_path()).get(name)
    if not isinstance(entry, dict):
        return None
    try:
        return Locked(**entry)
    except TypeError:  # a hand-edited entry: treat the file as never fetched
        return None


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    with open(path.with_suffix(".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _write(path: Path, files: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"version": 1, "files": files}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def record(name: str, entry: Locked) -> None:
    path = lock_path()
    stamped = Locked(**{**asdict(entry), "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    with _exclusive(path):
        files = _read(path)
        files[name] = asdict(stamped)
        _write(path, files)


def forget(names: list[str]) -> None:
    """Drop entries, so the next fetch resolves the registry's revision afresh (``datasets fetch --update``)."""
    path = lock_path()
    with _exclusive(path):
        files = _read(path)
        dropped = [name for name in names if files.pop(name, None) is not None]
        if dropped:
            _write(path, files)
