"""The pydantic-settings sources both loaders use (verification settings, service settings), and what each
adds to the library's own:

- :class:`YamlFile`: a named file that is missing, unreadable or not a mapping is a ``ConfigError``.
- :class:`FactdebateEnv`: the library's environment source plus values in YAML (``[rag, search]``), a bad
  value as a one-line ``ConfigError`` naming the variable, the fields' short names (``FACTDEBATE_LLM`` is
  ``llm.debater``), unknown sections kept for the upgrade or validation, and a mapping in place of ``os.environ``.
- :class:`Layer`: one source's data upgraded from old names on its own, so the layers keep their order."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic.fields import FieldInfo
from pydantic_settings import EnvSettingsSource, PydanticBaseSettingsSource, YamlConfigSettingsSource
from pydantic_settings.sources.utils import parse_env_vars

from factdebate.core.fields import exposure, walk
from factdebate.core.input_files import read_bounded
from factdebate.util.errors import ConfigError, InputError

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

Data = dict[str, Any]
MAX_SETTINGS_BYTES = 64 * 2**20  # a settings file holds a few kilobytes; the bound is for what is not one


class YamlFile(YamlConfigSettingsSource):
    def __init__(self, settings_cls: type[BaseSettings], path: str | Path | None, what: str) -> None:
        self.what = what
        super().__init__(settings_cls, yaml_file=Path(path) if path else None)

    @staticmethod
    def _existing_files(files: Any) -> list[Any]:
        return [files] if files else []  # named: it must be there (the library skips a missing file)

    def _read_file(self, file_path: Any) -> Data:
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


def env_aliases(model: type[BaseSettings], prefix: str) -> dict[str, tuple[str, ...]]:
    """Short environment names -> settings paths, as the fields declare them (``offered(env=...)``)."""
    return {env: path for path, info in walk(model) if (env := exposure(info).get("env", "")).startswith(prefix)}


def _yaml(name: str, value: str) -> Any:
    try:
        return yaml.safe_load(value) if value else value  # "2" -> 2, "[rag, none]" -> a list
    except yaml.YAMLError as exc:
        problem = str(getattr(exc, "problem", None) or "not valid YAML")
        raise ConfigError(f"environment variable {name}={value[:60]!r} is not a valid value ({problem}); "
                          "give a plain value such as 2 or a YAML list such as [rag, search]") from None


def _set(target: Data, path: tuple[str, ...], value: Any, *, keep: bool = False) -> None:
    for part in path[:-1]:
        nested = target.get(part)
        target = target.setdefault(part, {}) if not isinstance(nested, dict) else nested
    if not (keep and path[-1] in target):
        target[path[-1]] = value


class FactdebateEnv(EnvSettingsSource):
    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        prefix = str(settings_cls.model_config.get("env_prefix", ""))
        self.environ = dict(environ)
        self.aliases = {name.lower(): path for name, path in env_aliases(settings_cls, prefix).items()}
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        # As the library reads os.environ; the short names are set apart (see __call__).
        kept = {name: value for name, value in self.environ.items() if name.lower() not in self.aliases}
        return parse_env_vars(kept, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)

    def decode_complex_value(self, field_name: str, field: FieldInfo | None, value: Any) -> Any:
        return _yaml((self.env_prefix + field_name).upper(), value) if isinstance(value, str) else value

    def __call__(self) -> Data:
        prefix, nested = self.env_prefix.lower(), str(self.env_nested_delimiter)
        named = {name: value for name, value in self.environ.items()
                 if name.lower().startswith(prefix) and nested in name}
        for name, value in named.items():
            _yaml(name, value)  # every nested value is YAML: a bad one is named before anything else
        data = super().__call__()
        fields = set(self.settings_cls.model_fields)
        for name, value in named.items():
            head, *rest = name.lower().removeprefix(prefix).split(nested)
            if head not in fields:  # an old name or a typo: the upgrade moves it, validation refuses it
                _set(data, (head, *rest), _yaml(name, value))
        for name, value in self.environ.items():
            path = self.aliases.get(name.lower())
            if path is not None:  # the full name wins when both are set
                _set(data, path, value, keep=True)
        return data


class Layer(PydanticBaseSettingsSource):
    def __init__(self, source: PydanticBaseSettingsSource, prepare: Callable[[Data], Data]) -> None:
        super().__init__(source.settings_cls)
        self.source, self.prepare = source, prepare

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # the wrapped source reads the fields

    def __call__(self) -> Data:
        return self.prepare(self.source())
