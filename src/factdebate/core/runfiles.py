"""Reading the files of a run folder that someone else may have made (``compare`` and ``reproduce --from``
read folders people are sent).

A file must be a regular file, reached without leaving the folder, and within a bound; a JSON file must hold
an object nested no deeper than :data:`MAX_DEPTH`. ``results.jsonl`` is streamed a line at a time
(:func:`iter_run_lines`) within :data:`MAX_LINE_BYTES` and :data:`MAX_RESULTS_BYTES`. Each refusal is one
:class:`InputError` line naming the file: exit 2, before any work."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from factdebate.util.errors import InputError
from factdebate.util.input_files import MAX_INPUT_ENV, input_limit, read_bounded
from factdebate.util.input_files import size_text as _size
from factdebate.util.textsafe import nesting_depth

MAX_JSON_BYTES = 64 * 2**20  # run.json, summary.json, reproduce.json: settings, ids and metrics
MAX_RESULTS_BYTES = 4 * 2**30  # results.jsonl: one record per sample with its whole debate
MAX_LINE_BYTES = 64 * 2**20  # one record of results.jsonl; a debate with its evidence takes well under 1 MiB
MAX_INPUT_BYTES = 2**30  # a dataset or grid file named on the command line or recorded in a run folder
MAX_DEPTH = 64  # levels of lists and objects; a verdict with its steps and evidence nests about 10
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


_JSON_KINDS = {list: "list", str: "string", int: "number", float: "number", bool: "true/false value",
               type(None): "null"}


def run_file(folder: Path, name: str | Path, *, limit: int | None = None) -> Path | None:
    """``folder / name`` once checked, or None when nothing is there. Refused: a link out of ``folder``, what
    is not a regular file, and a file larger than ``limit`` bytes."""
    path = folder / name
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"{path} is unreadable: {exc.strerror or exc}") from None
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise InputError(f"{path} is a link that leads nowhere: a run folder's files are plain files") from None
    if not real.is_relative_to(folder.resolve()):
        raise InputError(f"{path} is a link leading outside {folder}: a run folder's files are read only "
                         "inside it")
    info = real.stat()
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path} is not a regular file (a FIFO, a device or a folder): a run folder's files "
                         "are plain files")
    _check_size(path, info.st_size, limit)
    return real


def _check_size(shown: Path, size: int, limit: int | None) -> None:
    if limit is not None and size > limit:
        raise InputError(f"{shown} is {_size(size)}, more than the {_size(limit)} such a file may hold: it is "
                         "not a file `factdebate eval` wrote")


@contextmanager
def _opened(folder: Path, name: str | Path, limit: int) -> Iterator[IO[bytes] | None]:
    """``folder / name`` (checked by :func:`run_file`) open for reading, or None; checked again once open."""
    real = run_file(folder, name, limit=limit)
    if real is None:
        yield None
        return
    shown = folder / name
    try:
        fd = os.open(real, _FLAGS)
    except OSError as exc:
        raise InputError(f"{shown} is unreadable: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{shown} is not a regular file: a run folder's files are plain files")
        _check_size(shown, info.st_size, limit)
        yield fh


def read_run_bytes(folder: Path, name: str | Path, *, limit: int = MAX_JSON_BYTES) -> bytes | None:
    """The bytes of ``folder / name`` (checked by :func:`run_file`), at most ``limit``; None when absent."""
    with _opened(folder, name, limit) as fh:
        if fh is None:
            return None
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{folder / name} grew past {_size(limit)} while it was read")
    return data


def read_input_bytes(path: Path, *, what: str, limit: int | None = None) -> bytes:
    """The bytes of an input file the user names or a run folder records: a regular file (links followed) of at
    most ``limit`` bytes (default :func:`~factdebate.util.input_files.input_limit`)."""
    if limit is None:
        return read_bounded(path, what=what, limit=input_limit(), setting=MAX_INPUT_ENV, pipes=False)
    return read_bounded(path, what=what, limit=limit, pipes=False)


def iter_run_lines(folder: Path, name: str | Path, *, limit: int = MAX_RESULTS_BYTES,
                   line_limit: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """The lines of ``folder / name`` (checked as :func:`read_run_bytes` does), one at a time; a line past
    ``line_limit`` bytes or a file past ``limit`` is refused."""
    shown = folder / name
    with _opened(folder, name, limit) as fh:
        if fh is None:
            return
        total = 0
        while line := fh.readline(line_limit + 1):
            total += len(line)
            if len(line) > line_limit and not line.endswith(b"\n"):  # line_limit bytes and its end are fine
                raise InputError(f"{shown} has a line longer than {_size(line_limit)}: it is not a results file "
                                 "factdebate wrote")
            if total > limit:
                raise InputError(f"{shown} grew past {_size(limit)} while it was read")
            yield line.rstrip(b"\r\n")


def json_line(line: bytes, shown: Path, number: int) -> Any:
    """One line of a JSON-lines run file, parsed (``ValueError`` for a torn line, which readers skip); a line
    nested deeper than :data:`MAX_DEPTH` is refused."""
    try:
        data = json.loads(line.decode("utf-8", "replace"))
    except RecursionError:
        data = None
        deep = True
    else:
        deep = nesting_depth(data, MAX_DEPTH + 1) > MAX_DEPTH
    if deep:
        raise InputError(f"{shown}, line {number}, nests lists or objects more than {MAX_DEPTH} levels deep: it "
                         "is not a record `factdebate` wrote")
    return data


def read_run_json(folder: Path, name: str | Path, *, what: str, limit: int = MAX_JSON_BYTES) -> dict[str, Any] | None:
    """``folder / name`` as a JSON object, or None when absent; ``what`` names the file in the error."""
    raw = read_run_bytes(folder, name, limit=limit)
    if raw is None:
        return None
    shown = folder / name
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{shown} is unreadable: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise InputError(f"{shown} is damaged: it nests lists or objects more than {MAX_DEPTH} levels deep; "
                         f"it is not {what}") from None
    except ValueError as exc:
        raise InputError(f"{shown} is damaged: not JSON ({exc}); it is not {what} this version can read") from None
    if not isinstance(data, dict):
        kind = _JSON_KINDS.get(type(data), type(data).__name__)
        raise InputError(f"{shown} is damaged: it holds a JSON {kind}, not an object; it is not {what}")
    if nesting_depth(data, MAX_DEPTH + 1) > MAX_DEPTH:
        raise InputError(f"{shown} is damaged: it nests lists or objects more than {MAX_DEPTH} levels deep; "
                         f"it is not {what}")
    return data
