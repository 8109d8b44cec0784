"""The check every command runs on a path it was given, before anything heavy loads: a wrong path is an
:class:`InputError` (one line, exit 2) naming the flag and the path, not a late OS error. Nothing is created."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from factdebate.util.errors import InputError


def _named(path: Path, flag: str) -> str:
    return f"{flag} {path}" if flag else str(path)


def input_file(path: str | Path, flag: str = "") -> Path:
    """``path`` as a file to read: it exists and is a regular file (checked with ``stat``, which never blocks)."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{_named(path, flag)} is a directory: give a file")
    if not path.exists():
        raise InputError(f"{_named(path, flag)}: no such file")
    if not stat.S_ISREG(path.stat().st_mode):
        raise InputError(f"{_named(path, flag)} is not a regular file (a FIFO or a device): give a file")
    return path


def output_file(path: str | Path, flag: str = "", example: str = "out.jsonl") -> Path:
    """``path`` as a file to write or append to: not a directory, in a folder that exists and may be written."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{_named(path, flag)} is a directory: give a file name, e.g. {path / example}")
    folder = path.parent
    if not folder.exists():
        raise InputError(f"{_named(path, flag)}: no such folder {folder} (create it first)")
    if not folder.is_dir():
        raise InputError(f"{_named(path, flag)}: {folder} is not a folder")
    if not os.access(path if path.exists() else folder, os.W_OK):
        raise InputError(f"{_named(path, flag)}: not writable")
    return path


def input_flag(flag: str) -> Callable[[Path | None], Path | None]:
    """A Typer ``callback`` that runs :func:`input_file` on an optional flag's value while flags are parsed."""

    def check(value: Path | None) -> Path | None:
        return None if value is None else input_file(value, flag)

    return check


def output_flag(flag: str, example: str) -> Callable[[Path | None], Path | None]:
    """A Typer ``callback`` that runs :func:`output_file` on an optional flag's value while flags are parsed."""

    def check(value: Path | None) -> Path | None:
        return None if value is None else output_file(value, flag, example)

    return check


def inside(folder: Path, relative: str, what: str) -> Path:
    """``folder / relative`` for a path read from a file in ``folder``, refused unless it stays inside."""
    candidate = Path(relative)
    if not relative or candidate.is_absolute() or candidate.drive:
        raise InputError(f"{what}: '{relative}' must be a relative path inside {folder}")
    try:
        (folder / candidate).resolve().relative_to(folder.resolve())
    except ValueError:
        raise InputError(f"{what}: '{relative}' leads outside {folder}") from None
    return folder / candidate


def output_folder(path: str | Path, flag: str = "") -> Path:
    """``path`` as a folder to create or write into: not a file, and nothing on its way that is a file."""
    path = Path(path)
    for at in (path, *path.parents):
        if at.exists():
            if not at.is_dir():
                where = "is a file" if at == path else f"cannot be made: {at} is a file"
                raise InputError(f"{_named(path, flag)} {where}: give a folder")
            if not os.access(at, os.W_OK):
                raise InputError(f"{_named(path, flag)}: {at} is not writable")
            return path
    return path
