"""Where settings come from. Precedence: defaults < YAML file < environment (FACTDEBATE_*) < CLI flags / API
keyword arguments, put together by pydantic-settings from the sources of :mod:`factdebate.settings.sources`;
each layer is upgraded from old names (:mod:`factdebate.settings.legacy`) on its own first."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_settings import BaseSettings, InitSettingsSource, SettingsConfigDict, SettingsError

from factdebate.hub.offline_model import installed_default
from factdebate.settings.config_file import check_found, find_config
from factdebate.settings.model import Settings, normalised, validation_problems
from factdebate.settings.operator_paths import found_file_refuses
from factdebate.settings.options import Option
from factdebate.settings.sources import FactdebateEnv, Layer, env_aliases
from factdebate.util.errors import ConfigError
from factdebate.util.scrub import remember_settings
from factdebate.util.yaml_file import YamlFile


class _Loaded(Settings, BaseSettings):
    """:class:`Settings` as pydantic-settings builds it; :func:`load_settings` hands out a plain copy."""

    model_config = SettingsConfigDict(env_prefix="FACTDEBATE_", env_nested_delimiter="__", extra="forbid",
                                      validate_default=False, env_parse_none_str="null")


# Short environment names for the settings people change most (declared on the fields); any other setting
# is reachable as FACTDEBATE_<SECTION>__<FIELD>, e.g. FACTDEBATE_METHODS__TOOL_MAD__ROUNDS=2.
ENV_ALIASES = env_aliases(_Loaded, "FACTDEBATE_")


def settings_from(options: dict[str, Any], config_file: str | Path | None = None) -> Settings:
    """Settings from flat options (``rounds=2``) over the file and the environment."""
    return load_settings(config_file, Option.overrides(options))


def load_settings(config_file: str | Path | None = None, overrides: dict[str, Any] | None = None,
                  environ: dict[str, str] | None = None) -> Settings:
    """Build settings from file, environment and explicit overrides (nested dicts, None values skipped); the
    file is found, and trusted, as settings/config_file.py says."""
    environ = dict(os.environ) if environ is None else environ
    config = find_config(config_file, environ)
    from_file = Layer(YamlFile(_Loaded, config.path if config else None, "config file"), normalised)
    if config is not None:  # a file found in the current folder is checked before anything of it is used
        check_found(config, found_file_refuses(from_file()))
    sources = (Layer(InitSettingsSource(_Loaded, _drop_none(overrides or {})), normalised),
               Layer(FactdebateEnv(_Loaded, environ), normalised), from_file)
    try:
        # pydantic-settings' own argument for sources built per call (the mypy plugin knows only the fields)
        loaded = _Loaded(_build_sources=(sources, {}))  # type: ignore[call-arg]
    except ValidationError as exc:
        raise ConfigError(f"invalid settings: {validation_problems(exc)}") from exc
    except SettingsError as exc:
        raise ConfigError(f"invalid settings: {exc}") from exc
    settings = Settings.model_construct(loaded.model_fields_set, **{name: getattr(loaded, name)
                                                                    for name in Settings.model_fields})
    settings._config_file = config  # for the run's provenance (run/provenance.py)
    _offline_default(settings)
    remember_settings(settings.model_dump(mode="json"))  # its secrets and endpoints reach no caller (util/scrub/)
    return settings


def _offline_default(settings: Settings) -> None:
    """No model configured: verdicts use the offline model ``factdebate setup`` installed, if it is there."""
    if "debater" in settings.llm.model_fields_set:
        return
    if (model := installed_default()) is not None:
        settings.llm.debater = model.spec


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = _drop_none(value)
            if value:
                out[key] = value
        elif value is not None:
            out[key] = value
    return out
