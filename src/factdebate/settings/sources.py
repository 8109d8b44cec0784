"""The pydantic-settings sources the verification settings are loaded from (the file's is
:class:`factdebate.util.yaml_file.YamlFile`, which the service's settings read too), and what each adds to the
library's own:

- :class:`FactdebateEnv`: the library's environment source plus values in YAML (``[rag, search]``), a bad
  value as a one-line ``ConfigError`` naming the variable, the fields' short names (``FACTDEBATE_LLM`` is
  ``llm.debater``), unknown sections kept for the upgrade or validation, and a mapping in place of ``os.environ``.
- :class:`Layer`: one source's data upgraded from old names on its own, so the layers keep their order."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import yaml
from pydantic.fields import FieldInfo
from pydantic_settings import EnvSettingsSource, PydanticBaseSettingsSource
from pydantic_settings.sources.utils import parse_env_vars

from factdebate.core.fields import exposure, walk
from factdebate.util.errors import ConfigError

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

Data = dict[str, Any]


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
