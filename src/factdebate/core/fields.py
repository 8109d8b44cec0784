"""How a setting is offered beyond the settings file, said once on its pydantic ``Field``: ``title`` is its
short name, ``description`` its help everywhere, and ``json_schema_extra`` (:func:`offered`, read by
:func:`exposure`) the rest:

- ``option``: its flat name (the ``--flag``, the API keyword, the request field, the form control);
- ``operator_only``: callers of the service may not set it;
- ``reaches``: what outside the settings it names (:data:`REACHES`): operator only, and never taken from a
  file the user did not choose (settings/operator_paths.py lists them from this mark);
- ``env``, ``short``, ``flag``: a short environment variable, a one-letter flag, a flag of its own;
- ``group`` (:data:`GROUPS`), ``main``: the web form's section, and shown first;
- ``only``: ``response`` or ``eval`` where it matters only there.

It lives in the lowest layer so that the settings of every layer describe themselves the same way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypedDict

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic.json_schema import JsonDict, JsonValue

# What a setting may act on, in the order the web form shows its sections (key -> the section's title).
GROUPS: dict[str, str] = {
    "rounds": "Rounds and stopping",
    "agents": "Agents and roles",
    "scoring": "Scoring",
    "referees": "Referees",
    "evidence": "Evidence",
    "memory": "Memory",
    "labels": "Labels",
    "length": "Lengths",
    "tasks": "Evaluation tasks",
    "models": "Models",
    "leakage": "Leakage control",
    "response": "Checking a response",
    "limits": "Limits",
}


# Where a setting may matter (``only``): nowhere but in these.
SCOPES = ("response", "eval")
# What a setting's value may name outside the settings (``reaches``).
REACHES = ("endpoint", "command", "executor", "key", "path")


class Exposure(TypedDict, total=False):
    option: str
    operator_only: bool
    env: str
    short: str
    flag: str
    group: str
    main: bool
    only: str
    reaches: str


def offered(option: str | None = None, *, operator_only: bool = False, env: str | None = None,
            short: str | None = None, flag: str | None = None, group: str | None = None, main: bool = False,
            only: str | None = None, reaches: str | None = None, **extra: JsonValue) -> JsonDict:
    """The ``json_schema_extra`` of a setting; ``extra`` carries a family's own keys and JSON Schema words. A
    setting that ``reaches`` outside is operator only."""
    if group is not None and group not in GROUPS:
        raise ValueError(f"unknown settings group '{group}'; known: {', '.join(GROUPS)}")
    if only is not None and only not in SCOPES:
        raise ValueError(f"unknown scope '{only}'; known: {', '.join(SCOPES)}")
    if reaches is not None and reaches not in REACHES:
        raise ValueError(f"unknown reach '{reaches}'; known: {', '.join(REACHES)}")
    out: JsonDict = {key: value for key, value in (("option", option), ("env", env), ("short", short),
                                                   ("flag", flag), ("group", group), ("only", only),
                                                   ("reaches", reaches)) if value}
    if operator_only or reaches:
        out["operator_only"] = True
    if main:
        out["main"] = True
    return {**out, **extra}


def exposure(info: FieldInfo) -> Exposure:
    """What :func:`offered` put on a field (nothing for a field that says nothing)."""
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    found = Exposure()
    for key in ("option", "env", "short", "flag", "group", "only", "reaches"):
        value = extra.get(key)
        if isinstance(value, str):
            found[key] = value
    for flag in ("operator_only", "main"):
        if extra.get(flag) is True:
            found[flag] = True
    return found


def walk(model: type[BaseModel], path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], FieldInfo]]:
    """Every field of ``model`` and of its sections, in declaration order, with its path (``("llm", "debater")``)."""
    for name, info in model.model_fields.items():
        yield (*path, name), info
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            yield from walk(info.annotation, (*path, name))
