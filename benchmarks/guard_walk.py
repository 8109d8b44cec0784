"""The walk of one plain chat reply through the guard: which of factdebate's modules a
``POST /v1/chat/completions`` passes through, counted with ``sys.setprofile`` while the service (scripted
upstream and checker models, in threads of this process) answers one request.

Counted: every new call of a function of a ``factdebate`` module made from a function of another
``factdebate`` module (a coroutine resumed is not a new call; a task's first step counts as a call from the
module that made it, the nearest ``factdebate`` frame below it, when there is one). Printed: the calls made by
the door (callers in ``factdebate.server``) and by everything, the modules they reach, and how often control
enters each of the server's guard modules from another module (its re-entries: the entries after the
first), and the calls from the library (any other ``factdebate`` module) into the service. A first request is
sent before the measured one, so nothing loads lazily in the walk.

    PYTHONPATH=. python benchmarks/guard_walk.py   # (it starts the tests' scripted service)
"""

from __future__ import annotations

import argparse
import dis
import inspect
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import httpx

FACE = "factdebate.server.guard"  # the guard's HTTP face: the server/guard/ package
SERVICE = "factdebate.server"  # the service; every other factdebate module is the library's (or util's)


def _module(frame: FrameType | None) -> str | None:
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name.startswith("factdebate"):
            return str(name)
        frame = frame.f_back
    return None


def _suspended(frame: FrameType) -> bool:
    """Whether a ``return`` event is a coroutine's or generator's suspension (at a yield), not its end."""
    if not frame.f_code.co_flags & (inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR):
        return False
    return frame.f_code.co_code[frame.f_lasti] == dis.opmap["YIELD_VALUE"]


class Walk:
    """The cross-module calls seen while it is on."""

    def __init__(self) -> None:
        self.on = False
        self.seen: set[int] = set()
        self.frames: list[FrameType] = []  # kept alive while counting, so an id is never reused
        self.calls: list[tuple[str, str]] = []  # (caller's module, callee's module)
        self.returns: list[tuple[str, str]] = []  # (callee's module, the caller's module control returns to)

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if not self.on or event not in ("call", "return"):
            return
        name = frame.f_globals.get("__name__", "")
        if not name.startswith("factdebate"):
            return
        if event == "return":  # control back in the caller's module: a re-entry when that is another one
            if _suspended(frame):  # a coroutine waiting (it resumes later), not a return
                return
            caller = _module(frame.f_back)
            if caller is not None and caller != name:
                self.returns.append((name, caller))
            return
        if id(frame) in self.seen:
            return
        self.seen.add(id(frame))
        self.frames.append(frame)
        caller = _module(frame.f_back)
        if caller is not None and caller != name:
            self.calls.append((caller, name))


def measure(tmp: Path) -> Walk:
    from tests.server.conftest import KEY, LiveServer
    from tests.server.guard_support import Upstream, scripted_checker_app, upstream_app

    walk = Walk()
    threading.setprofile(walk)  # every thread started from here on (the servers', the worker threads')
    upstream = LiveServer(upstream_app(Upstream())).__enter__()
    import os

    os.environ["FACTDEBATE_GUARD__UPSTREAM"] = f"{upstream.url}/v1"
    server = LiveServer(scripted_checker_app(tmp, [KEY])).__enter__()
    body = {"model": "scripted", "messages": [{"role": "user", "content": "Tell me about Paris."}],
            "factdebate": {"tier": "fast", "method": "single"}}
    headers = {"Authorization": f"Bearer {KEY}"}
    try:
        with httpx.Client(timeout=60) as client:
            client.post(f"{server.url}/v1/chat/completions", json=body, headers=headers).raise_for_status()
            sys.setprofile(walk)
            walk.on = True
            answer = client.post(f"{server.url}/v1/chat/completions", json=body, headers=headers)
            walk.on = False
            answer.raise_for_status()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        server.__exit__()
        upstream.__exit__()
    return walk


def report(walk: Walk) -> None:
    face = [(a, b) for a, b in walk.calls if a.startswith(FACE)]
    back = [(a, b) for a, b in walk.returns if b.startswith(FACE)]
    entries = Counter(b for _, b in walk.calls) + Counter(b for _, b in walk.returns)
    modules = sorted(m for m in {*(a for a, _ in walk.calls), *(b for _, b in walk.calls)} if m.startswith(FACE))
    print(f"cross-module calls, all: {len(walk.calls)} over {len({b for _, b in walk.calls})} modules")
    print(f"calls made by the guard's server modules ({FACE}*): {len(face)} over "
          f"{len({b for _, b in face})} modules; returns into them from another module: {len(back)}")
    print("entries into each (a call from, or a return from, another module):")
    for module in modules:
        print(f"  {module}: {entries[module]} (re-entries {max(0, entries[module] - 1)})")
    print("calls made by the guard's server modules, by callee:")
    for module, count in Counter(b for _, b in face).most_common():
        print(f"  {count:3d}  {module}")
    # the library calling into the service: what a door hands it (its host, a sink, a watcher) called back
    called_back = Counter((a, b) for a, b in walk.calls if not a.startswith(SERVICE) and b.startswith(SERVICE))
    print(f"calls from the library into the service ({SERVICE}*): {sum(called_back.values())}")
    for (caller, callee), count in called_back.most_common():
        print(f"  {count:3d}  {caller} -> {callee}")


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report(measure(Path(tmp)))


if __name__ == "__main__":
    main()
