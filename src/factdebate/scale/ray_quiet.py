"""Keeping Ray's own lines off the terminal while an index build runs on it.

None of Ray's notes are for the user: during the build Ray's loggers report errors only, its warnings are
ignored, and what is written below Python to descriptor 2 goes to a log file; ``sys.stderr`` still reaches
the terminal."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

# Ray 2.60 deprecates the retry arguments passed as ray_remote_args; 2.64 drops them with no named parameter.
_KNOWN_WARNING = r"`ray_remote_args` is deprecated"


@contextlib.contextmanager
def quiet_ray(native_log: Path) -> Iterator[None]:
    """Ray's lines to ``native_log`` (appended) or nowhere, for the duration of the block."""
    with contextlib.suppress(ImportError):  # first: importing Ray sets its loggers' levels and warning filters
        import ray  # noqa: F401
    logger = logging.getLogger("ray")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_KNOWN_WARNING)  # raised from our call, so named by message
            warnings.filterwarnings("ignore", module=r"ray(\.|$)")  # Ray Data's advice on pool sizes, and the like
            with _native_stderr_to(native_log):
                yield
    finally:
        logger.setLevel(level)


def _terminal_stderr() -> bool:
    """Whether Python's ``sys.stderr`` writes to descriptor 2 itself (not when a test captures it)."""
    try:
        return sys.stderr is not None and sys.stderr.fileno() == 2
    except (AttributeError, OSError, ValueError):
        return False


@contextlib.contextmanager
def _native_stderr_to(path: Path) -> Iterator[None]:
    """Descriptor 2 to ``path``; ``sys.stderr`` meanwhile writes to a copy of the old descriptor 2."""
    if not _terminal_stderr():
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    except OSError:  # nowhere to put them: Ray's lines stay on the terminal rather than stop the build
        yield
        return
    python_stderr = sys.stderr
    python_stderr.flush()
    saved = os.dup(2)
    sys.stderr = os.fdopen(os.dup(saved), "w", buffering=1, encoding=python_stderr.encoding,
                           errors=python_stderr.errors)
    os.dup2(log, 2)
    os.close(log)
    try:
        yield
    finally:
        replacement = sys.stderr
        replacement.flush()
        sys.stderr = python_stderr
        os.dup2(saved, 2)
        os.close(saved)
        replacement.close()
