"""Datasets named by the registry (``--dataset fever``): fetched from the Hub or GitHub into the data folder,
verified, converted where needed, and read with the format's own loader (``fever`` as ``fever:PATH``)."""

from __future__ import annotations

import hashlib
import json
import sys
import unicodedata
from pathlib import Path
from typing import Any

# The file formats a fetched dataset is read with register themselves in FORMATS when imported.
from factdebate.eval.datasets import FORMATS, Dataset, Sample, loaders, response_loaders  # noqa: F401
from factdebate.hub import github, registry
from factdebate.hub.errors import HubError
from factdebate.hub.fetch import Fetched, Notify, is_cached, obtain
from factdebate.hub.lock import forget
from factdebate.hub.registry import HubDataset
from factdebate.util.errors import FactDebateError


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def fetchable() -> dict[str, HubDataset]:
    return registry.datasets()


def _nfc(value: Any) -> Any:
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, dict):
        return {_nfc(k): _nfc(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_nfc(v) for v in value]
    return value


def records_sha256(samples: list[Sample], skipped: dict[str, int] | None = None) -> str:
    """A fingerprint of everything the loader reads from a sample set (every field of every sample, in order,
    and the skips), unchanged by whitespace, key order or Unicode normalisation."""
    digest = hashlib.sha256()
    for sample in samples:
        record = {"id": sample.id, "gold": sample.gold, "claim": sample.claim, "options": sample.options,
                  "meta": sample.meta}
        digest.update(json.dumps(_nfc(record), sort_keys=True, ensure_ascii=False, default=str).encode() + b"\n")
    if skipped:
        digest.update(json.dumps(dict(sorted(skipped.items()))).encode())
    return digest.hexdigest()


CHECKED_RECORDS = "registry's records (every field the loader reads)"


def _same_records(entry: HubDataset) -> github.Accept | None:
    """Whether the loader reads the registry copy's samples from a GitHub file whose bytes differ."""
    if not entry.records_sha256:
        return None

    def accept(path: Path) -> str | None:
        try:
            loaded = FORMATS[entry.format].load(path)
        except FactDebateError:
            return None
        return CHECKED_RECORDS if records_sha256(loaded.samples, loaded.skipped) == entry.records_sha256 else None

    return accept


def fetch(entry: HubDataset, *, update: bool = False, notify: Notify | None = _say) -> tuple[Path, list[Fetched]]:
    """The verified (and converted) file the loader reads, and what was fetched (``update``: resolved afresh)."""
    from factdebate.eval.datasets.hub_convert import converted
    from factdebate.hub.fetch import lock_key

    if update:
        forget([lock_key(f) for f in entry.files] if entry.host != "github" else [entry.raw_file().lock_key()])
    try:
        if entry.host == "github":
            fetched = [github.obtain(entry.raw_file(), accept=_same_records(entry), notify=notify)]
        else:
            fetched = [obtain(file, notify=notify) for file in entry.files]
    except HubError as exc:
        raise type(exc)(f"dataset '{entry.name}': {exc}. To use a copy of your own instead: "
                        f"--dataset {entry.format}:PATH") from None
    path = fetched[0].path
    if entry.convert:
        path = converted(entry.name, entry.convert, path, fetched[0].sha256)
    return path, fetched


def load(name: str) -> Dataset:
    entry = fetchable()[name]
    path, fetched = fetch(entry)
    dataset = FORMATS[entry.format].load(path)
    if entry.host == "github":
        file = entry.raw_file()
        dataset.origin = {"source": "github", "repo": entry.repo, "commit": entry.revision, "path": file.path,
                          "url": f"https://github.com/{entry.repo}/blob/{entry.revision}/{file.path}",
                          # where the bytes came from, recorded when they were downloaded (not today's mirror)
                          "fetched_from": fetched[0].fetched_from or None, "sha256": fetched[0].sha256,
                          "split": entry.split, "format": entry.format, "checked_against": fetched[0].checked_against}
        return dataset
    dataset.origin = {
        "source": "huggingface", "repo": entry.repo, "repo_type": entry.repo_type, "revision": entry.revision,
        "commit": fetched[0].commit, "split": entry.split, "format": entry.format, "converted": entry.convert,
        "files": {f.path: got.sha256 for f, got in zip(entry.files, fetched, strict=True)},
        "checked_against": fetched[0].checked_against,
    }
    return dataset


def cached(entry: HubDataset) -> bool:
    if entry.host == "github":
        return github.is_cached(entry.raw_file())
    return all(is_cached(file) for file in entry.files)
