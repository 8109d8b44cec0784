"""How a setting is offered beyond the settings file, said once on its pydantic ``Field``.

Every setting is a ``Field`` whose ``title`` is its short human name and whose ``description`` is its help
text wherever it shows (flags, the API reference, the web form). Its ``json_schema_extra``, written with
:func:`offered` and read with :func:`exposure`, says the rest:

- ``option``: its flat name: the ``--flag`` of ``verify``/``eval``/``serve``/``check-response``, the Python
  API's keyword, the service's request field and the web form's control. A method's fields are options
  without saying so (``<prefix><field>``, see :class:`factdebate.methods.base.Method`);
- ``operator_only``: the command line and the Python API may set it, callers of the service may not (it
  spends or reaches the operator's resources);
- ``reaches``: what outside the settings the value names (a kind of :data:`REACHES`): an endpoint the claims
  and keys are sent to, a command that is started, the executor work runs on, a key, a file path. Such a
  setting is operator only, and it is never taken from a file the user did not choose (a ``factdebate.yaml``
  found in the current folder, a run folder's ``run.json``): settings/operator_paths.py lists them from this
  mark, so a new field of that kind is kept out by being declared, not by being remembered in a list;
- ``env``: a short environment variable besides ``FACTDEBATE_<SECTION>__<FIELD>`` (``FACTDEBATE_LLM``);
- ``short``: a one-letter flag besides the long one (``-k``);
- ``flag``: a command-line flag of its own for a setting that is not a flat option (scale's ``--workers``);
- ``group``: what the setting acts on (a key of :data:`GROUPS`): the web form's section under "More options";
- ``main``: one of the few settings that change a method's behaviour most, shown first in the form;
- ``only``: where the setting matters at all, when that is not every check: ``response`` (checking a whole
  response) or ``eval`` (the evaluation harness: a dataset's task, its two labels, its given claims). The
  web form leaves it out of the modes where it would do nothing.

It lives in the lowest layer so that the settings of every layer (memory, methods, the service) describe
themselves the same way and the option table can read them all.
"""

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
    """The ``json_schema_extra`` of a setting; ``extra`` carries a family's own keys (MERMAID's ``memory``)
    and JSON Schema words the type cannot say (``maxItems`` where a validator gives the message). A setting
    that ``reaches`` outside is operator only."""
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
    """Every field of ``model`` and of its sections (fields whose type is a model), in declaration order,
    each with its path (``("llm", "debater")``)."""
    for name, info in model.model_fields.items():
        yield (*path, name), info
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            yield from walk(info.annotation, (*path, name))
