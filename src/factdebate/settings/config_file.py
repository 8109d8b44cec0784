"""Which settings file a run reads, and how far it is trusted.

A file named with ``--config`` or ``FACTDEBATE_CONFIG`` is the user's choice and is read whole. With neither,
``factdebate.yaml`` in the current folder is still read, but that folder may be one someone sent: so the file is
announced on stderr, recorded in the run's provenance, and refused if it sets what starts a program, receives
the user's keys or names a file to open or create
(:func:`~factdebate.settings.operator_paths.found_file_refuses`, looked up by the caller, since those are read
off the settings model, which imports this module)."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from factdebate.util.errors import ConfigError, InputError
from factdebate.util.input_files import read_bounded

FOUND_NAME = "factdebate.yaml"
How = Literal["named", "environment", "found"]
_announced: set[Path] = set()  # one line per file per process, however often settings are loaded


@dataclass(frozen=True)
class ConfigFile:
    path: Path
    how: How  # named (--config, an API's config_file), environment (FACTDEBATE_CONFIG), found (the current folder)

    def record(self) -> dict[str, Any]:
        """What a run's provenance says of it: the file, how it was chosen, and its checksum as read."""
        try:
            # read as the settings were (bounded, regular files only): the record never waits on a FIFO
            raw = read_bounded(self.path, what="settings file", limit=64 * 2**20, pipes=False)
            digest: str | None = hashlib.sha256(raw).hexdigest()
        except (OSError, InputError):
            digest = None
        return {"file": str(self.path.resolve()), "how": self.how, "sha256": digest}


def check_named(config_file: str | Path | None) -> None:
    """Refuse a named settings file that cannot be read, so that a server stops at the start, not per request."""
    if config_file:
        try:
            read_bounded(config_file, what="config file", limit=64 * 2**20, pipes=False)
        except InputError as exc:
            said = str(exc)
            # "config file F: no such file" reads as verify's "cannot read config file F: no such file"
            raise ConfigError(f"cannot read {said}" if said.startswith(f"config file {config_file}:") else said) \
                from None


def find_config(config_file: str | Path | None, environ: dict[str, str]) -> ConfigFile | None:
    """The file named, else ``FACTDEBATE_CONFIG``, else ``factdebate.yaml`` in the current folder, if any."""
    if config_file:
        return ConfigFile(Path(config_file), "named")
    if environ.get("FACTDEBATE_CONFIG"):
        return ConfigFile(Path(environ["FACTDEBATE_CONFIG"]), "environment")
    found = Path(FOUND_NAME)
    return ConfigFile(found, "found") if found.is_file() else None


def check_found(config: ConfigFile, refused: list[str]) -> None:
    """Refuse a file found in the current folder that sets any of ``refused``; else say that it is read."""
    if config.how != "found":
        return
    where = config.path.resolve()
    if refused:
        raise ConfigError(f"{FOUND_NAME} in the current folder ({where}) sets {', '.join(refused)}, which start "
                          "programs, receive your API keys or name files to open or create, and a file found by "
                          f"chance is not trusted with them: name it with --config {where} (or FACTDEBATE_CONFIG) "
                          "if you trust it, or set them with flags or FACTDEBATE_ variables")
    if where not in _announced:
        _announced.add(where)
        print(f"factdebate: reading settings from {where} (found in the current folder; --config names another)",
              file=sys.stderr)
