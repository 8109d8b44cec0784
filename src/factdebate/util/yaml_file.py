"""A settings file in YAML as a pydantic-settings source, read bounded: a named file that is missing, unreadable,
not YAML or not a mapping is a ``ConfigError`` in one line (the verification settings' file and a service's)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic_settings import YamlConfigSettingsSource

from factdebate.util.errors import ConfigError, InputError
from factdebate.util.input_files import read_bounded

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

MAX_SETTINGS_BYTES = 64 * 2**20  # a settings file holds a few kilobytes; the bound is for what is not one


class YamlFile(YamlConfigSettingsSource):
    def __init__(self, settings_cls: type[BaseSettings], path: str | Path | None, what: str) -> None:
        self.what = what
        super().__init__(settings_cls, yaml_file=Path(path) if path else None)

    @staticmethod
    def _existing_files(files: Any) -> list[Any]:
        return [files] if files else []  # named: it must be there (the library skips a missing file)

    def _read_file(self, file_path: Any) -> dict[str, Any]:
        # Read bounded: a file named /dev/zero or a FIFO is one line here, not read whole or waited on for ever.
        try:
            raw = read_bounded(file_path, what=self.what, limit=MAX_SETTINGS_BYTES, pipes=False)
        except InputError as exc:
            raise ConfigError(f"cannot read {exc}") from None
        try:
            loaded = yaml.safe_load(raw.decode(self.yaml_file_encoding or "utf-8")) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{self.what} {file_path} is not valid YAML: {yaml_problem(exc)}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read {self.what} {file_path}: {exc}") from exc
        if not isinstance(loaded, dict):
            raise ConfigError(f"{self.what} {file_path} must hold a mapping of settings")
        return loaded


def yaml_problem(exc: yaml.YAMLError) -> str:
    """What is wrong with a YAML text, and where, in one line (the parser's own spans several lines)."""
    mark = getattr(exc, "problem_mark", None)
    problem = str(getattr(exc, "problem", None) or "not valid YAML").strip()
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    context, opened = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and opened is not None and opened.line != getattr(mark, "line", None):
        return f"{where}{problem} ({context} begun on line {opened.line + 1})"
    return f"{where}{problem}"
