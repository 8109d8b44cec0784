"""Datasets named by the registry (``--dataset fever``): fetched from the Hub into the data folder,
verified (:mod:`factdebate.hub.fetch`), converted when the Hub holds another shape, and read with the
benchmark format's own loader, so ``fever`` and ``fever:PATH`` give the same samples for the same file."""

from __future__ import annotations

import sys
from pathlib import Path

from factdebate.core.errors import InputError
from factdebate.eval.datasets import Dataset
from factdebate.hub import registry
from factdebate.hub.errors import HubError
from factdebate.hub.fetch import Fetched, Notify, is_cached, obtain
from factdebate.hub.lock import forget
from factdebate.hub.registry import HubDataset


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def fetchable() -> dict[str, HubDataset]:
    return registry.datasets()


def fetch(entry: HubDataset, *, update: bool = False, notify: Notify | None = _say) -> tuple[Path, list[Fetched]]:
    """The verified (and converted) file the loader reads, and what was fetched. ``update``: forget the
    lock file's record first, so the registry's revision is resolved afresh."""
    from factdebate.eval.hub_convert import converted
    from factdebate.hub.fetch import lock_key

    if update:
        forget([lock_key(f) for f in entry.files])
    try:
        fetched = [obtain(file, notify=notify) for file in entry.files]
    except HubError as exc:
        raise InputError(f"dataset '{entry.name}': {exc}. To use a copy of your own instead: "
                         f"--dataset {entry.format}:PATH") from None
    path = fetched[0].path
    if entry.convert:
        path = converted(entry.name, entry.convert, path, fetched[0].sha256)
    return path, fetched


def load(name: str) -> Dataset:
    from factdebate.eval.datasets import FORMATS

    entry = fetchable()[name]
    path, fetched = fetch(entry)
    dataset = FORMATS[entry.format].load(path)
    dataset.origin = {
        "source": "huggingface", "repo": entry.repo, "repo_type": entry.repo_type, "revision": entry.revision,
        "commit": fetched[0].commit, "split": entry.split, "format": entry.format, "converted": entry.convert,
        "files": {f.path: got.sha256 for f, got in zip(entry.files, fetched, strict=True)},
        "checked_against": fetched[0].checked_against,
    }
    return dataset


def cached(entry: HubDataset) -> bool:
    return all(is_cached(file) for file in entry.files)
