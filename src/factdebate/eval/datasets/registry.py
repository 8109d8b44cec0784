"""The dataset registry: the tables the loaders fill (``FORMATS`` by ``@file_format``, ``BUILTINS`` by
``@builtin``), and the types of :mod:`factdebate.core.dataset_types`. It imports no loader."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from factdebate.core.dataset_types import (
    BINARY_LABELS,
    FACT_LABELS,
    FOUR_LABELS,
    IDENTITY,
    NEI,
    AnswerFormat,
    Dataset,
    Sample,
)
from factdebate.util.errors import InputError

__all__ = ["BINARY_LABELS", "BUILTINS", "FACT_LABELS", "FORMATS", "FOUR_LABELS", "IDENTITY", "NEI", "AnswerFormat",
           "Builtin", "Dataset", "Format", "Loader", "Sample", "builtin", "check_ids", "file_format", "select"]

Loader = Callable[[Path], Dataset]


@dataclass(frozen=True)
class Format:
    name: str
    load: Loader
    description: str


@dataclass(frozen=True)
class Builtin:
    name: str
    load: Callable[[], Dataset]
    description: str


FORMATS: dict[str, Format] = {}
BUILTINS: dict[str, Builtin] = {}


def file_format(name: str, description: str) -> Callable[[Loader], Loader]:
    def wrap(load: Loader) -> Loader:
        FORMATS[name] = Format(name, load, description)
        return load

    return wrap


def builtin(name: str, description: str) -> Callable[[Callable[[], Dataset]], Callable[[], Dataset]]:
    def wrap(load: Callable[[], Dataset]) -> Callable[[], Dataset]:
        BUILTINS[name] = Builtin(name, load, description)
        return load

    return wrap


def check_ids(dataset: Dataset) -> None:
    seen: set[str] = set()
    for sample in dataset.samples:
        if sample.id in seen:
            raise InputError(f"dataset '{dataset.spec}': duplicate sample id '{sample.id}'")
        seen.add(sample.id)


def select(samples: list[Sample], limit: int | None, seed: int, *, shuffle: bool = True) -> list[Sample]:
    """A seeded shuffle (or the file's order), then the first ``limit``: a larger limit extends a smaller run."""
    order = list(samples)
    if shuffle:
        random.Random(seed).shuffle(order)
    return order if limit is None else order[:limit]
