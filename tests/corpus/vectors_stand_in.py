"""The vectors' child (corpus/vectors_later.py) with a stand-in build: its real ``main``, tether and lock, the
build replaced by one that writes its pid to ``builders.txt`` in the data folder and then works in short
batches until it is stopped. Run as ``python -P -m tests.corpus.vectors_stand_in`` (PYTHONPATH: the checkout)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from factdebate.corpus import builtin_index, vectors_later
from factdebate.corpus.progress import raise_if_stopped
from factdebate.util.paths import data_dir

BATCH_S = 0.05


def build(*args: Any, **kwargs: Any) -> None:
    with (data_dir() / "builders.txt").open("a", encoding="utf-8") as fh:
        fh.write(f"{os.getpid()}\n")
    while True:
        raise_if_stopped()  # where the real build asks, between its batches
        time.sleep(BATCH_S)


builtin_index.ensure_builtin_indexed = build  # main imports it when it runs

if __name__ == "__main__":
    sys.exit(vectors_later.main(sys.argv[1:]))
