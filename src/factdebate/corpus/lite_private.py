"""A process's private, read-only copy of a Milvus Lite database folder.

Milvus Lite lets one process open a folder at a time. A process that only searches while another holds it
copies the folder once into a temporary directory and searches that frozen copy, deleted at exit or by the
next process's sweep."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path

from factdebate.util.processes import pid_alive

_copies: dict[str, str] = {}
_lock = threading.Lock()


def private_copy(source: str) -> str:
    """The path of this process's copy of the Milvus Lite folder ``source`` (made on first call)."""
    with _lock:
        if source in _copies:
            return _copies[source]
        folder = Path(source)
        root = Path(tempfile.gettempdir()) / "factdebate-lite"
        root.mkdir(exist_ok=True)
        _sweep(root)
        target_dir = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=root))
        atexit.register(shutil.rmtree, target_dir, True)  # a killed process's copy goes in the next sweep
        target = target_dir / folder.name
        if folder.is_dir():
            # The holder's LOCK file comes along as a plain file: a lock is not copied with it.
            shutil.copytree(folder, target)
        else:
            shutil.copy2(folder, target)
        _copies[source] = str(target)
        return str(target)


def _sweep(root: Path) -> None:
    """Delete the copies of processes that are gone (Ray kills its workers without running atexit)."""
    for folder in root.iterdir():
        pid = folder.name.split("-", 1)[0]
        if pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
