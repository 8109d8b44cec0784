"""The built-in corpus's indexes for a long-running process (the MCP server): which of them a run or a search
opens, and their preparation in the background, the full-text index first (seconds: searched on its own while
the vectors build), then the vectors, each build's progress told to whoever follows it; the folder is let go of
once built, so that each process can open its own copy of it (Milvus Lite serves one process at a time)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable

from factdebate.corpus.builtin import BUILTIN_CORPUS
from factdebate.run.build import builtin_engines
from factdebate.settings.model import Settings


def needs_builtin(settings: Settings, kinds: set[str] | None = None) -> bool:
    """Whether a run with ``settings`` (or a search with the tools ``kinds``) opens the built-in indexes."""
    if kinds is None:
        return bool(builtin_engines(settings))
    if settings.retrieval.corpus != BUILTIN_CORPUS:
        return False
    return "rag" in kinds or ("search" in kinds and settings.retrieval.search == "local")


BUILD_NICE = 10  # as the command line's background vector build (corpus/vectors_later.py)


def at_lower_priority(work: Callable[[], None]) -> None:
    """``work`` on a thread of its own at nice :data:`BUILD_NICE`, waited for; what it raises is raised here.
    The threads and processes it starts (the encoder's, Milvus Lite's) inherit the priority, so a check the
    process answers meanwhile gets the cores first: at the same priority the MCP server's build took a core
    from its first check's model (its quick start's one claim took 104 s, 58 s at nice 10). Its own thread,
    because a thread's priority is not raised again without privileges: what the caller does next (opening the
    searches, which a request waits for) runs at its own."""
    raised: list[BaseException] = []

    def run() -> None:
        with contextlib.suppress(OSError, AttributeError):  # where a thread has no priority of its own: as is
            own = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, own, max(os.getpriority(os.PRIO_PROCESS, own), BUILD_NICE))
        try:
            work()
        except BaseException as exc:  # re-raised in the caller's thread, as if it had run there
            raised.append(exc)

    thread = threading.Thread(target=run, name="factdebate-index-build", daemon=True)
    thread.start()
    thread.join()
    if raised:
        raise raised[0]


def prepare_builtin(settings: Settings, follow: Callable[[str, int, int], None],
                    full_text_ready: Callable[[], None]) -> list[str]:
    """The built-in indexes ``settings``' method searches, built if missing: the full-text index first
    (``full_text_ready`` is called once it is there), then the vectors; ``follow(stage, done, total)`` is told
    each build's progress. Returns the tools to open over them (``search``, ``rag``), none when the method
    searches no built-in index."""
    from factdebate.corpus.builtin_index import ensure_builtin_indexed
    from factdebate.corpus.progress import watch_builds
    from factdebate.run.build import ensure_indexes
    from factdebate.scale.lite_copy import close_lite_clients

    engines = builtin_engines(settings)
    if not engines:
        return []
    def build() -> None:
        if "local" in engines:
            retrieval = settings.retrieval
            ensure_builtin_indexed(retrieval.milvus_uri, engines=["local"], limit=retrieval.builtin_docs,
                                   encoder=retrieval.encoder)
            full_text_ready()
        ensure_indexes(settings, wait=True)  # progress goes to stderr (an MCP server's stdout is its protocol)

    stop = watch_builds(follow)
    try:
        at_lower_priority(build)
    finally:
        stop()
    close_lite_clients()  # a build here left the folder open: let go of it before anyone copies it
    return ["search" if engine == "local" else "rag" for engine in engines]
