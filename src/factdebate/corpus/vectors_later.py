"""The built-in corpus's vector index, built in a child process while searches use the full-text index.

Embedding takes minutes, the full-text index seconds (``retrieval.while_indexing``). The vectors are built by
``python -m factdebate.corpus.vectors_later``, a child at a lower CPU priority in this process's group, writing
``vectors-build.json`` and ``.log`` in the data folder. It is this process's helper, not a service of its own:
Ctrl-C and :func:`stop` at exit end it, and so does this process ending any other way (``kill -9``: the child
watches a pipe from it, util/processes.py); the next run resumes. One child builds per data folder: it holds
``.vectors-builder.lock`` there, taken before it starts, and another process that finds it held starts none and
says so. Searches use the vectors once the marker is written and no builder holds that lock (Milvus Lite
serves one process at a time)."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from factdebate.util.child_python import python_command, python_env
from factdebate.util.paths import data_dir
from factdebate.util.processes import on_parent_exit, parent_tether

STATUS_FILE = "vectors-build.json"
LOG_FILE = "vectors-build.log"
NICE = 10  # below the claim's own work, which the build must not slow
STOP_WAIT_S = 20.0  # for the child to stop at its next batch before it is killed
BUILDER_LOCK = ".vectors-builder.lock"  # in the data folder, held by the one child that builds there
CHILD_MODULE = "factdebate.corpus.vectors_later"  # what the child runs (a test runs a stand-in build)


@dataclass(frozen=True)
class Build:
    """What the vectors are built for: a marker of another document limit or encoder is another index."""

    uri: str
    limit: int | None
    encoder: str


_children: dict[Build, subprocess.Popen[bytes]] = {}
_tethers: dict[Build, int] = {}  # the write end of each child's tether: open while the child may run
_lock = threading.Lock()


def _take_builder_lock(folder: Path) -> int | None:
    """The builder lock of ``folder``, taken (its descriptor), or None while another process's builder holds it.
    The kernel drops it when the last holder of the descriptor ends, however it ends."""
    import fcntl

    fd = os.open(folder / BUILDER_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def builder_running(folder: Path | None = None) -> bool:
    """Whether a builder, this process's or another's, holds the data folder's builder lock now."""
    try:
        fd = _take_builder_lock(folder or data_dir())
    except OSError:  # a folder this process cannot write: no builder of its own, and a search still answers
        return False
    if fd is None:
        return True
    os.close(fd)  # closing the only descriptor lets the lock go
    return False


def ready(build: Build) -> bool:
    """The vectors are complete and no builder still holds their file."""
    from factdebate.corpus.builtin_index import is_indexed

    child = _children.get(build)
    if child is not None and child.poll() is None:
        return False
    return is_indexed("rag", build.uri, build.limit, build.encoder) and not builder_running()


def start(build: Build) -> bool:
    """Start the child that builds the vectors unless one runs or they are complete; whether ours now runs."""
    from factdebate.corpus.builtin_index import build_lock_free, is_indexed

    with _lock:
        child = _children.get(build)
        if child is not None and child.poll() is None:
            return True
        if is_indexed("rag", build.uri, build.limit, build.encoder) or not build_lock_free():
            return False
        folder = data_dir()
        held = _take_builder_lock(folder)
        if held is None:
            print(f"the built-in corpus's vector index is being built by another factdebate process on this data "
                  f"folder (log: {folder / LOG_FILE}): until it is complete the RAG agent searches the full-text "
                  "index, and its verdicts say so", file=sys.stderr, flush=True)
            return False
        try:
            _spawn(build, folder, held)
        finally:
            os.close(held)  # the child holds the lock from its fork on: it goes when the child ends
        if len(_children) == 1:
            atexit.register(stop)
        print(f"building the built-in corpus's vector index in the background (minutes; log: {folder / LOG_FILE}): "
              "until it is complete the RAG agent searches the full-text index, and its verdicts say so",
              file=sys.stderr, flush=True)
        return True


def _spawn(build: Build, folder: Path, lock_fd: int) -> None:
    """Start the child, handing it the builder lock and the read end of a tether whose write end stays here."""
    with contextlib.suppress(OSError):
        (folder / STATUS_FILE).unlink()
    old = _tethers.pop(build, None)
    if old is not None:
        os.close(old)  # a child of this build that has ended (stopped): its tether goes with it
    watched, kept = parent_tether()
    env = {**python_env(), "PYTHONDONTWRITEBYTECODE": "1"}
    args = python_command("-m", CHILD_MODULE, build.uri, str(build.limit or ""), build.encoder, str(watched))
    try:
        with (folder / LOG_FILE).open("wb") as log:
            # the child lowers its own priority and watches its tether (main): Python run between fork and exec
            # is unsafe beside gRPC's threads
            _children[build] = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                                                pass_fds=(watched, lock_fd))
    except BaseException:
        os.close(kept)
        raise
    finally:
        os.close(watched)
    _tethers[build] = kept


def progress() -> tuple[int, int] | None:
    """Passages embedded and passages in all, as the child last wrote them; None before its first batch."""
    try:
        said = json.loads((data_dir() / STATUS_FILE).read_text(encoding="utf-8"))
        return int(said["done"]), int(said["total"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def running() -> bool:
    return any(child.poll() is None for child in _children.values())


def note() -> str | None:
    """One line on a build this process started that has not finished: how far it is, and what comes next."""
    if not running():
        return None
    said = progress()
    # No time left from the child's speed: at its low priority beside a claim it ran at a fraction of what the
    # same build does alone (23 % in a 9-minute debate, the rest in 3 minutes after it: docs/performance.md).
    where = f" ({said[0] / said[1]:.0%} embedded)" if said is not None and said[1] else ""
    return (f"the vector index was still being built in the background{where}: searches use the full-text index "
            f"until it is complete; the next run takes the build up, or `factdebate index --builtin` completes it "
            f"now, in minutes (log: {data_dir() / LOG_FILE})")


def stop() -> None:
    """Stop this process's builds (at their next batch; killed if they do not stop within STOP_WAIT_S)."""
    import signal

    for child in list(_children.values()):
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    for child in list(_children.values()):
        try:
            child.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    for build in list(_tethers):
        os.close(_tethers.pop(build))


def _report_to(path: Path) -> None:
    """Write each embedding stage's progress to ``path`` (whole files, replaced atomically)."""
    from factdebate.corpus.progress import watch_builds

    def write(stage: str, done: int, total: int) -> None:
        if "embeddings" not in stage:
            return
        part = path.with_suffix(".part")
        part.write_text(json.dumps({"done": done, "total": total, "at": time.time()}), encoding="utf-8")
        part.replace(path)

    watch_builds(write)


def _parent_gone() -> None:
    """The process that started this build has ended (``kill -9`` too): stop as its :func:`stop` would have, at
    the next batch; killed if that does not come within STOP_WAIT_S, as :func:`stop` would kill it."""
    import signal

    print("the command that started this build has ended: stopping", file=sys.stderr, flush=True)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(STOP_WAIT_S)
    os._exit(130)


def main(argv: list[str]) -> int:
    """The child: build the vectors, stopping at the next batch on SIGTERM, Ctrl-C or its parent's end (exit
    130). ``argv``: the Milvus URI, the document limit ("" for none), the encoder, and the tether's read end."""
    import signal

    from factdebate.corpus.builtin_index import ensure_builtin_indexed
    from factdebate.corpus.progress import BuildStopped, stop_builds

    def interrupt(signum: int, frame: object) -> None:
        stop_builds()  # the build's next batch stops (as the command line's own handlers do)
        raise KeyboardInterrupt

    uri, limit, encoder, tether = argv
    with contextlib.suppress(OSError, AttributeError):  # below the claim's own work; os.nice is POSIX's
        os.nice(NICE)
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    try:
        on_parent_exit(int(tether), _parent_gone)  # after the handlers: a parent already gone stops it cleanly
        _report_to(data_dir() / STATUS_FILE)
        ensure_builtin_indexed(uri, progress=True, engines=("rag",), limit=int(limit) if limit else None,
                               encoder=encoder)
    except (KeyboardInterrupt, BuildStopped):
        print("stopped: the next run takes the build up", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
