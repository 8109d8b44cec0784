"""The provenance block of an evaluation's ``run.json``: the runtime and the dataset as read, so ``reproduce
--from`` can run the same samples and tell whether they still are.

``file_sha256`` is the file as it lies on disk, ``content_sha256`` the samples the loader made of it, and
``samples_sha256`` the selected samples'; a dataset fetched by name adds its ``origin``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from factdebate.eval.datasets import Dataset, Sample
from factdebate.run.provenance import runtime_record, sha256_path
from factdebate.settings.model import Settings


def content_sha256(samples: list[Sample]) -> str:
    digest = hashlib.sha256()
    for sample in samples:
        row = {"id": sample.id, "claim": sample.claim, "gold": sample.gold, "options": sample.options,
               "meta": sample.meta}
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def dataset_file(spec: str) -> Path | None:
    """The file or folder a ``FORMAT:PATH`` spec reads; None for a built-in name."""
    _, sep, path = spec.partition(":")
    file = Path(path).expanduser() if sep else None
    return file if file is not None and file.exists() else None


def dataset_record(dataset: Dataset, samples: list[Sample], split: str | None) -> dict[str, Any]:
    file = dataset_file(dataset.spec)
    return {"spec": dataset.spec, "kind": dataset.kind, "split": split,
            "file": str(file.resolve()) if file else None, "file_sha256": sha256_path(file) if file else None,
            "content_sha256": content_sha256(dataset.samples), "loaded": len(dataset.samples),
            "sample_ids": [s.id for s in samples], "samples_sha256": content_sha256(samples),
            **({"origin": dataset.origin} if dataset.origin else {})}


def run_provenance(settings: Settings, dataset: Dataset, samples: list[Sample], split: str | None) -> dict[str, Any]:
    return {**runtime_record(settings), "dataset": dataset_record(dataset, samples, split)}
