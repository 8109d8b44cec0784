"""Reading a file a user names on the command line within bounds, whatever the path leads to.

The path is opened without blocking: a regular file is read to at most the cap (refused from its size first);
a pipe is read as it comes, to the cap, and refused after :data:`PIPE_IDLE_S` seconds without a byte; anything
else (``/dev/zero``, a socket, a folder) is refused. Each refusal is one :class:`InputError` line (exit 2)
naming the file and the setting that raises the cap."""

from __future__ import annotations

import fcntl
import os
import select
import stat
import time
from collections.abc import Mapping
from pathlib import Path

from factdebate.util.errors import ConfigError, InputError

STDIN = "-"
MAX_INPUT_ENV = "FACTDEBATE_MAX_INPUT_MB"  # raises (or lowers) the cap on a named input file: a dataset, a batch
DEFAULT_INPUT_MB = 1024
PIPE_IDLE_S = 120.0  # a writer that has sent nothing for two minutes is not coming back
_CHUNK = 1 << 20
_OPEN = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def input_limit(environ: Mapping[str, str] | None = None) -> int:
    """The most bytes a dataset or batch file may hold: ``FACTDEBATE_MAX_INPUT_MB`` MiB, 1 GiB by default."""
    raw = (os.environ if environ is None else environ).get(MAX_INPUT_ENV, "").strip()
    if not raw:
        return DEFAULT_INPUT_MB * 2**20
    try:
        megabytes = int(raw)
    except ValueError:
        megabytes = 0
    if not 1 <= megabytes <= 1 << 20:
        raise ConfigError(f"{MAX_INPUT_ENV}={raw[:40]!r} must be a whole number of MiB from 1 to {1 << 20}")
    return megabytes * 2**20


def size_text(count: int) -> str:
    return f"{count / 2**20:.0f} MiB" if count >= 2**20 else f"{count} bytes"


def read_bounded(path: str | Path, *, what: str, limit: int, setting: str = "", pipes: bool = True,
                 idle_s: float = PIPE_IDLE_S) -> bytes:
    """The bytes of ``path`` (``-``: standard input), at most ``limit``. ``what`` and ``setting`` name the file
    and what raises the cap in errors; ``pipes=False`` refuses a pipe too."""
    shown = "standard input" if str(path) == STDIN else f"{what} {path}"
    if str(path) == STDIN:
        return _read_fd(0, shown, limit, setting, pipes, idle_s)
    try:
        fd = os.open(path, _OPEN)
    except IsADirectoryError:
        raise InputError(f"{shown} is a directory: give the file inside it") from None
    except FileNotFoundError:
        raise InputError(f"{shown}: no such file") from None
    except OSError as exc:
        raise InputError(f"cannot read {shown}: {exc.strerror or exc}") from None
    try:
        return _read_fd(fd, shown, limit, setting, pipes, idle_s)
    finally:
        os.close(fd)


def _too_large(shown: str, size: str, limit: int, setting: str) -> InputError:
    """``size``: "is 3072 MiB", "sent more", "grew while it was read"."""
    raise_it = f" (set {setting} to change it)" if setting else ""
    past = {"sent more": "sent more than", "grew while it was read": "grew past"}.get(size)
    said = f"{past} the {size_text(limit)}" if past else f"{size}, more than the {size_text(limit)}"
    return InputError(f"{shown} {said} it may hold{raise_it}")


def _read_fd(fd: int, shown: str, limit: int, setting: str, pipes: bool, idle_s: float) -> bytes:
    mode = os.fstat(fd)
    if stat.S_ISDIR(mode.st_mode):
        raise InputError(f"{shown} is a directory: give the file inside it")
    if stat.S_ISREG(mode.st_mode):
        if mode.st_size > limit:
            raise _too_large(shown, f"is {size_text(mode.st_size)}", limit, setting)
        data = _read_regular(fd, limit)
    elif stat.S_ISFIFO(mode.st_mode) and pipes:
        data = _read_pipe(fd, shown, limit, idle_s)
    else:
        kinds = "a regular file or a pipe" if pipes else "a regular file"
        raise InputError(f"{shown} is not a regular file (a FIFO or a device): it must be {kinds}")
    if len(data) > limit:
        raise _too_large(shown, "grew while it was read" if stat.S_ISREG(mode.st_mode) else "sent more", limit,
                         setting)
    return data


def _read_regular(fd: int, limit: int) -> bytes:
    parts: list[bytes] = []
    room = limit + 1  # one byte past the cap tells a file that grew while it was read
    while room > 0 and (part := os.read(fd, min(room, _CHUNK))):
        parts.append(part)
        room -= len(part)
    return b"".join(parts)


def _read_pipe(fd: int, shown: str, limit: int, idle_s: float) -> bytes:
    """A pipe read as its writer sends, each wait at most ``idle_s`` seconds."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    nonblocking = bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK)
    parts: list[bytes] = []
    room = limit + 1
    while room > 0:
        if not nonblocking:
            _wait(poller, shown, idle_s)
        try:
            part = os.read(fd, min(room, _CHUNK))
        except BlockingIOError:  # the writer is there but has sent nothing yet
            _wait(poller, shown, idle_s)
            continue
        if not part:
            break
        parts.append(part)
        room -= len(part)
    return b"".join(parts)


def _wait(poller: select.poll, shown: str, idle_s: float) -> None:
    started = time.monotonic()
    if not poller.poll(int(idle_s * 1000)):
        raise InputError(f"{shown} is a pipe that sent nothing for {time.monotonic() - started:.0f} s: is the "
                         "program writing to it stuck?")
