"""Where settings come from. Precedence: defaults < YAML file < environment (FACTDEBATE_*) < CLI flags / API
keyword arguments; each layer is upgraded from old names (:mod:`factdebate.settings.legacy`) first."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from factdebate.core.errors import ConfigError
from factdebate.settings.legacy import upgrade_settings_data
from factdebate.settings.model import Settings
from factdebate.settings.options import options_to_overrides


def settings_from(options: dict[str, Any], config_file: str | Path | None = None) -> Settings:
    """Settings from flat options (``rounds=2``) over the file and the environment."""
    return load_settings(config_file, options_to_overrides(options))


# Short environment names for the settings people change most; any other setting is reachable as
# FACTDEBATE_<SECTION>__<FIELD>, e.g. FACTDEBATE_METHODS__TOOL_MAD__ROUNDS=2 (old names such as
# FACTDEBATE_TOOLMAD__ROUNDS still work: see config_legacy.py).
ENV_ALIASES = {
    "FACTDEBATE_LLM": ("llm", "debater"),
    "FACTDEBATE_JUDGE_LLM": ("llm", "judge"),
    "FACTDEBATE_SCORER_LLM": ("llm", "scorer"),
    "FACTDEBATE_SEARCH": ("retrieval", "search"),
    "FACTDEBATE_MILVUS_URI": ("retrieval", "milvus_uri"),
    "FACTDEBATE_METHOD": ("method",),
}


def _set_path(target: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _from_env(environ: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name, value in environ.items():
        if name in ENV_ALIASES:
            _set_path(data, ENV_ALIASES[name], value)
        elif name.startswith("FACTDEBATE_") and "__" in name:
            path = tuple(p.lower() for p in name.removeprefix("FACTDEBATE_").split("__"))
            try:
                parsed = yaml.safe_load(value) if value else value  # "2" -> 2, "[rag, none]" -> list
            except yaml.YAMLError as exc:
                problem = str(getattr(exc, "problem", None) or "not valid YAML")
                raise ConfigError(f"environment variable {name}={value[:60]!r} is not a valid value ({problem}); "
                                  "give a plain value such as 2 or a YAML list such as [rag, search]") from None
            _set_path(data, path, parsed)
    return data


def _from_file(path: Path) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    if not isinstance(loaded, dict):
        raise ConfigError(f"config file {path} must hold a mapping of settings")
    return loaded


def load_settings(config_file: str | Path | None = None, overrides: dict[str, Any] | None = None,
                  environ: dict[str, str] | None = None) -> Settings:
    """Build settings from file, environment and explicit overrides (nested dicts, None values skipped)."""
    environ = dict(os.environ) if environ is None else environ
    data: dict[str, Any] = {}
    path = config_file or environ.get("FACTDEBATE_CONFIG")
    if path is None and Path("factdebate.yaml").exists():
        path = "factdebate.yaml"
    # Each layer is upgraded from old names before merging, so precedence holds across old and new names.
    if path:
        data = _merge(data, upgrade_settings_data(_from_file(Path(path))))
    data = _merge(data, upgrade_settings_data(_from_env(environ)))
    data = _merge(data, upgrade_settings_data(_drop_none(overrides or {})))
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(_problem(err) for err in exc.errors())
        raise ConfigError(f"invalid settings: {problems}") from exc


def _problem(err: Any) -> str:
    where, message = ".".join(str(p) for p in err["loc"]), str(err["msg"]).removeprefix("Value error, ")
    return message if message.startswith(where + ".") else f"{where}: {message}"


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
