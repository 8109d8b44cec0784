"""The built-in corpus's vector index, built in a child process while searches use the full-text index.

Embedding takes minutes, the full-text index seconds (``retrieval.while_indexing``). The vectors are built by
``python -m factdebate.corpus.vectors_later``, a child at a lower CPU priority in this process's group (Ctrl-C
and :func:`stop` at exit end it; the next run resumes), writing ``vectors-build.json`` and ``.log`` in the
data folder. Searches use the vectors once the marker is written and the child has let go of Milvus Lite."""

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

from factdebate.util.paths import data_dir

STATUS_FILE = "vectors-build.json"
LOG_FILE = "vectors-build.log"
NICE = 10  # below the claim's own work, which the build must not slow
STOP_WAIT_S = 20.0  # for the child to stop at its next batch before it is killed


@dataclass(frozen=True)
class Build:
    """What the vectors are built for: a marker of another document limit or encoder is another index."""

    uri: str
    limit: int | None
    encoder: str


_children: dict[Build, subprocess.Popen[bytes]] = {}
_lock = threading.Lock()


def ready(build: Build) -> bool:
    """The vectors are complete and no child of this process still holds their file."""
    from factdebate.corpus.builtin_index import is_indexed

    child = _children.get(build)
    if child is not None and child.poll() is None:
        return False
    return is_indexed("rag", build.uri, build.limit, build.encoder)


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
        with contextlib.suppress(OSError):
            (folder / STATUS_FILE).unlink()
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        args = [sys.executable, "-m", "factdebate.corpus.vectors_later", build.uri, str(build.limit or ""),
                build.encoder]
        with (folder / LOG_FILE).open("wb") as log:
            # the child lowers its own priority (main): Python run between fork and exec is unsafe beside gRPC's threads
            _children[build] = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)
        if len(_children) == 1:
            atexit.register(stop)
        print(f"building the built-in corpus's vector index in the background (minutes; log: {folder / LOG_FILE}): "
              "until it is complete the RAG agent searches the full-text index, and its verdicts say so",
              file=sys.stderr, flush=True)
        return True


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


def main(argv: list[str]) -> int:
    """The child: build the vectors, stopping at the next batch on SIGTERM or Ctrl-C (exit 130)."""
    import signal

    from factdebate.corpus.builtin_index import ensure_builtin_indexed
    from factdebate.corpus.progress import BuildStopped, stop_builds

    def interrupt(signum: int, frame: object) -> None:
        stop_builds()  # the build's next batch stops (as the command line's own handlers do)
        raise KeyboardInterrupt

    uri, limit, encoder = argv
    with contextlib.suppress(OSError, AttributeError):  # below the claim's own work; os.nice is POSIX's
        os.nice(NICE)
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    _report_to(data_dir() / STATUS_FILE)
    try:
        ensure_builtin_indexed(uri, progress=True, engines=("rag",), limit=int(limit) if limit else None,
                               encoder=encoder)
    except (KeyboardInterrupt, BuildStopped):
        print("stopped: the next run takes the build up", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
