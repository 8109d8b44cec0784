"""Reading a dataset spec (``NAME`` or ``FORMAT:PATH``) and listing what can be read; importing the loaders here
fills the registry's tables."""

from __future__ import annotations

from pathlib import Path

from factdebate.eval.datasets import builtin_data, hub_datasets, loaders, response_loaders
from factdebate.eval.datasets.registry import BUILTINS, FORMATS, Dataset, check_ids
from factdebate.util.errors import InputError

REGISTERING = (builtin_data, loaders, response_loaders)  # imported for what importing them registers


def load_dataset(spec: str, *, strict: bool = False) -> Dataset:
    """``NAME`` (built in, or fetched from the Hub) or ``FORMAT:PATH``; ``strict``: a skipped record is an error."""
    name, sep, path = spec.partition(":")
    if not sep:
        if spec in BUILTINS:
            dataset = BUILTINS[spec].load()
        elif spec in hub_datasets.fetchable():
            dataset = hub_datasets.load(spec)
        elif spec in FORMATS:
            raise InputError(f"the '{spec}' format needs a file: --dataset {spec}:PATH")
        else:
            fetchable = hub_datasets.fetchable()
            hub = sorted(n for n, e in fetchable.items() if e.host != "github")
            github = sorted(n for n, e in fetchable.items() if e.host == "github")
            raise InputError(f"unknown dataset '{spec}'; built in: {', '.join(sorted(BUILTINS))}; "
                             f"fetched from the Hugging Face Hub: {', '.join(hub)}; "
                             + (f"papers' authors' sample sets, fetched from GitHub: {', '.join(github)}; "
                                if github else "")
                             + f"or FORMAT:PATH with a format among {', '.join(sorted(FORMATS))}")
    else:
        if name not in FORMATS:
            raise InputError(f"unknown dataset format '{name}'; known: {', '.join(sorted(FORMATS))}")
        file = Path(path).expanduser()
        if not file.exists():
            raise InputError(f"dataset file not found: {file}")
        dataset = FORMATS[name].load(file)
    dataset.spec = spec
    check_ids(dataset)
    if strict and dataset.skipped:
        raise InputError(f"--strict: {dataset.load_report()}; fix the file or drop --strict")
    if not dataset.samples:
        raise InputError(f"dataset '{spec}' has no labelled samples")
    return dataset


def describe() -> list[tuple[str, str]]:
    """(spec, description) for every built-in dataset, dataset fetched from the Hub and file format."""
    rows = [(name, b.description) for name, b in sorted(BUILTINS.items())]
    for name, entry in sorted(hub_datasets.fetchable().items()):
        state = "cached here" if hub_datasets.cached(entry) else "downloaded on first use"
        host = "GitHub" if entry.host == "github" else "Hub"
        rows.append((name, f"{entry.description} [{host}: {entry.repo}, {entry.split}; {state}]"))
    rows += [(f"{name}:PATH", f.description) for name, f in sorted(FORMATS.items())]
    return rows
