"""The settings only the operator gives, for every reader of a settings file the user may not have written
(a run folder's ``run.json``, a ``factdebate.yaml`` in the current folder). A folder someone sent is data: it
may choose the method's settings, never a command to start or a server to send the user's keys and claims to.

They are read off the settings models, from each field's ``reaches`` mark (:mod:`factdebate.core.fields`): a
list kept by hand misses new ones, and a test finds unmarked fields that look like a URL, command, path or key."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from factdebate.core.fields import exposure, walk
from factdebate.hub.offline_model import OFFLINE_MODELS
from factdebate.methods.base import Method
from factdebate.settings.model import Settings

SettingPath = tuple[str, ...]

# What starts a program, receives the user's API keys and claims, or chooses where work runs.
STARTS_OR_SENDS = frozenset({"command", "endpoint", "executor", "key"})
# Always the user's in a rerun besides those: where the work runs, and how long and how often calls are tried.
RERUN_OWN: tuple[SettingPath, ...] = (
    ("scale",), ("llm", "timeout"), ("llm", "retries"), ("llm", "retry_budget"), ("llm", "concurrency"),
)


def marked(kinds: Iterable[str]) -> tuple[SettingPath, ...]:
    """The settings marked as reaching one of ``kinds``: the shared ones, then each registered method's."""
    wanted = set(kinds)
    return tuple(path for path, reach in _reaches(tuple(Method.registered())) if reach in wanted)


@cache
def _reaches(names: tuple[str, ...]) -> tuple[tuple[SettingPath, str], ...]:
    """Every marked setting with its mark, worked out once per set of registered methods ``names``."""
    fields = list(walk(Settings))
    for name, method in Method.registered().items():
        fields += list(walk(method.settings_model, ("methods", name)))
    return tuple((path, reach) for path, info in fields if (reach := exposure(info).get("reaches")))


# Model specs that name a file rather than a model (``builtin`` and the catalogued models are names).
MODEL_FILE_PROVIDERS = ("llama-cpp:", "llamacpp:", "llama_cpp:")
SHIPPED_MODELS = ("", "builtin", "builtin-q4", *(model.name for model in OFFLINE_MODELS))


def commands_and_endpoints() -> tuple[SettingPath, ...]:
    """What a ``factdebate.yaml`` found in the current folder may not set: commands, endpoints, keys, the executor."""
    return marked(STARTS_OR_SENDS)


def path_settings() -> tuple[SettingPath, ...]:
    """Settings that hold a file path (a rerun keeps one only if it lies inside the run's folder)."""
    return marked({"path"})


def operator_paths() -> tuple[SettingPath, ...]:
    """Always the user's in a rerun: :func:`commands_and_endpoints` and :data:`RERUN_OWN`, each path once."""
    paths = [*commands_and_endpoints(), *RERUN_OWN]
    return tuple(dict.fromkeys(path for path in paths
                               if not any(path[:len(other)] == other and path != other for other in paths)))


def model_files(value: Any, where: str = "") -> list[tuple[str, str]]:
    """``(setting, spec)`` for every model spec in settings data ``value`` that names a model file."""
    if isinstance(value, str):
        provider, _, target = value.partition(":")
        named_file = value.startswith(MODEL_FILE_PROVIDERS) and target not in SHIPPED_MODELS
        return [(where.rstrip("."), value)] if named_file and provider else []
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in model_files(item, f"{where}{key}.")]
    if isinstance(value, list):
        return [found for i, item in enumerate(value) for found in model_files(item, f"{where}{i}.")]
    return []


def found_file_refuses(data: dict[str, Any]) -> list[str]:
    """The dotted names of what a ``factdebate.yaml`` found in the current folder sets and may not, file paths
    included (one could name a FIFO that holds the run, or create a database anywhere)."""
    files = [setting for setting, _ in model_files(data.get("llm"), "llm.") + model_files(data.get("methods"),
                                                                                            "methods.")]
    return list(dict.fromkeys([*set_in(data, commands_and_endpoints() + path_settings()), *files]))


def value_at(data: dict[str, Any], path: SettingPath) -> Any:
    """The value at ``path`` in nested settings data (None where any part is missing)."""
    value: Any = data
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def set_in(data: dict[str, Any], paths: tuple[SettingPath, ...]) -> list[str]:
    """The dotted names of ``paths`` that ``data`` gives a value (an empty list or mapping is no value)."""
    return [".".join(path) for path in paths if value_at(data, path) not in (None, "", [], {})]
