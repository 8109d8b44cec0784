"""Where factdebate keeps its data: indexes, the Milvus Lite database, the LLM cache."""

from __future__ import annotations

import os
from pathlib import Path

from factdebate.util.errors import FactDebateError


class DataDirError(FactDebateError, OSError):
    """The data folder cannot be made or written: a usage error (exit 2) naming the variable that moves it."""

    __module__ = "factdebate.core.errors"  # where callers import it from, with the other errors
    caller_message = "the service's data folder cannot be used; its operator finds why in the server's log"


_writable: set[str] = set()  # folders found writable in this process: checked once, not per call


def data_dir_path() -> Path:
    """Where :func:`data_dir` is, without making it (a question must not create a folder)."""
    explicit = os.environ.get("FACTDEBATE_DATA_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "factdebate"


def data_dir() -> Path:
    """``$FACTDEBATE_DATA_DIR``, else ``$XDG_DATA_HOME/factdebate``, else ``~/.local/share/factdebate``."""
    explicit = os.environ.get("FACTDEBATE_DATA_DIR")
    path = data_dir_path()
    if str(path) in _writable:
        return path
    where = f"the data folder {path}" + ("" if explicit else " (the default)")
    fix = "point FACTDEBATE_DATA_DIR at a folder you can write (indexes, caches and the model go there)"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataDirError(f"{where} cannot be made ({exc.strerror or exc}): {fix}") from None
    # os.access sees a read-only mount even for root; a folder made read-only by its mode too, for others.
    if not os.access(path, os.W_OK | os.X_OK):
        raise DataDirError(f"{where} is not writable: {fix}")
    _writable.add(str(path))
    return path
