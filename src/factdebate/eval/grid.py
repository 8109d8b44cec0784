"""``factdebate eval --grid grid.yaml``: several runs (ablations, baselines) from one file, each in its own
directory under ``--output``, so ``factdebate report OUT/*`` compares them.

    dataset: countries        # any --dataset spec; the command line's --dataset wins
    limit: 50
    seed: 0
    method: tool-mad          # default method of every run
    options: {rounds: 3}      # flat options (the CLI flag names, with underscores) for every run
    grid:                     # every combination of these values is one run
      rounds: [1, 2, 3, 4]
    runs:                     # and/or explicit runs, each with a name and its own options
      - {name: no-qf, options: {query_formulation: false}}

With both ``grid`` and ``runs``, every run is combined with every grid point."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from factdebate.core.runfiles import MAX_JSON_BYTES, read_input_bytes
from factdebate.settings.options import all_options
from factdebate.util.errors import InputError

KEYS = {"dataset", "limit", "seed", "method", "options", "grid", "runs"}


@dataclass
class GridRun:
    name: str
    method: str
    options: dict[str, Any]


@dataclass
class Grid:
    dataset: str | None
    limit: int | None
    seed: int | None
    runs: list[GridRun]


def _check_options(options: Any, where: str) -> dict[str, Any]:
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise InputError(f"grid file: {where} must be a mapping of options")
    known = all_options()
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise InputError(f"grid file: unknown option(s) {', '.join(unknown)} in {where}; "
                         f"known: {', '.join(sorted(known))}")
    return dict(options)


def _label(value: Any) -> str:
    if isinstance(value, list):
        return "+".join(str(v) for v in value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9=+._,-]+", "-", text).strip("-") or "run"


def load_grid(path: Path) -> Grid:
    try:
        data = yaml.safe_load(read_input_bytes(path, what="the grid file", limit=MAX_JSON_BYTES)) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read grid file {path}: {exc}") from exc
    if not isinstance(data, dict) or set(data) - KEYS:
        raise InputError(f"grid file {path}: expected a mapping with keys among {', '.join(sorted(KEYS))}")
    method = str(data.get("method") or "tool-mad")
    base = _check_options(data.get("options"), "options")
    axes = data.get("grid") or {}
    if not isinstance(axes, dict) or not all(isinstance(v, list) and v for v in axes.values()):
        raise InputError(f"grid file {path}: 'grid' maps option names to non-empty lists of values")
    _check_options({k: None for k in axes if k != "method"}, "grid")
    explicit = data.get("runs") or [{}]
    if not isinstance(explicit, list) or not all(isinstance(r, dict) for r in explicit):
        raise InputError(f"grid file {path}: 'runs' is a list of {{name, method, options}} mappings")
    runs: list[GridRun] = []
    for entry in explicit:
        entry_options = {**base, **_check_options(entry.get("options"), f"run {entry.get('name', '')!r}")}
        for point in itertools.product(*axes.values()) if axes else [()]:
            chosen = dict(zip(axes, point, strict=True))
            run_method = str(chosen.pop("method", entry.get("method", method)))
            parts = [str(entry["name"])] if entry.get("name") else [run_method]
            parts += [f"{k}={_label(v)}" for k, v in chosen.items()]
            runs.append(GridRun(safe_name("_".join(parts)), run_method, {**entry_options, **chosen}))
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise InputError(f"grid file {path}: two runs would share a directory name; give the runs names")
    limit, seed = data.get("limit"), data.get("seed")
    return Grid(dataset=data.get("dataset"), limit=int(limit) if limit is not None else None,
                seed=int(seed) if seed is not None else None, runs=runs)
