"""The service's start-up heap kept out of the garbage collector's full passes.

A full (generation 2) collection walks every tracked object, and the service's modules, settings, schemas and
models are most of them: under guard_load.py's load a full pass held the guard's event loop 84 ms, the longest
callback of the run, and a first token waiting behind it was that late (benchmarks/loop_watch.py; the numbers
are in docs/performance.md, "The guard at twice its capacity"). ``gc.freeze()`` once the service has started
moves what exists then into the permanent generation, which no pass walks; what requests create later is
collected as before. Once per process: a second app in the same process (tests) adds nothing to freeze.
"""

from __future__ import annotations

import gc

_frozen = [False]


def freeze_startup_heap() -> None:
    """Collect what start-up left as garbage, then keep the rest out of later passes (once per process)."""
    if _frozen[0]:
        return
    _frozen[0] = True
    gc.collect()  # garbage frozen would never be collected
    gc.freeze()
