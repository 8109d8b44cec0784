"""Flat options (``verify(rounds=2)``, ``--rounds 2``, ``?rounds=2``) and where each lands in the settings.

The table is read off the settings models' fields (:mod:`factdebate.core.fields`): a shared setting is an
option when its ``Field`` names one, every method's fields as ``<prefix><field>``. Everything about an option
comes from its field, so the CLI, the Python API, the service and the web page's form offer the same set, and a
new setting is one ``Field``."""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass, replace
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from factdebate.core.fields import exposure, walk
from factdebate.methods.base import Method
from factdebate.settings.model import Settings
from factdebate.util.errors import ConfigError

Path = tuple[str, ...]


# JSON Schema words a field's extra may add to its value's schema: bounds a validator enforces with its own message
_SCHEMA_WORDS = ("minItems", "maxItems")


@dataclass(frozen=True)
class Option:
    name: str
    paths: tuple[Path, ...]
    annotation: Any  # the value's type, without None
    help: str = ""
    field: FieldInfo | None = None  # the model field (constraints for the service's request model)
    public: bool = True  # open to callers of the service (False: the operator's alone)
    method: str | None = None  # the method that owns it; None: shared
    short: str | None = None  # a one-letter flag besides --<name>
    title: str = ""  # the field's title: the form's label, the start of the flag's help
    group: str | None = None  # what it acts on (core.fields.GROUPS): its section of the form
    main: bool = False  # among the few settings that change the method most: shown first
    alias_of: str | None = None  # an older name of another option: accepted, but not offered twice
    only: str | None = None  # "response" or "eval": the only checks it matters to (core.fields.SCOPES)

    @classmethod
    def public_options(cls) -> dict[str, Option]:
        """The options a service's caller may choose (``public``): every method's, and the shared ones that do not
        spend or reach the operator's resources; the operator's alone left out."""
        return {name: option for name, option in all_options().items() if option.public}

    @classmethod
    def overrides(cls, options: dict[str, Any]) -> dict[str, Any]:
        """Flat options (``rounds=2``) -> nested settings overrides, each at its option's paths; ``None`` values
        are skipped, an unknown name is a ``ConfigError``."""
        table = all_options()
        overrides: dict[str, Any] = {}
        for key, value in options.items():
            if key not in table:
                raise ConfigError(f"unknown option '{key}'; known: {', '.join(sorted(table))}")
            if value is None:
                continue
            for path in table[key].paths:
                target = overrides
                for part in path[:-1]:
                    target = target.setdefault(part, {})
                target[path[-1]] = value
        return overrides

    def converted(self, value: Any) -> Any:
        """``value`` for this option: a list option given as text (a flag, a query parameter) is comma-separated."""
        if value is not None and typing.get_origin(self.annotation) is list and isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of the option's value, constraints included (what the web form draws)."""
        from pydantic import TypeAdapter

        metadata = list(self.field.metadata) if self.field is not None else []
        annotation: Any = typing.Annotated[self.annotation, *metadata] if metadata else self.annotation
        schema = TypeAdapter(annotation).json_schema()
        extra = self.field.json_schema_extra if self.field is not None else None
        if isinstance(extra, dict):  # bounds a validator enforces with its own message (Tool-MAD's 2 or 3 agents)
            schema.update({word: extra[word] for word in _SCHEMA_WORDS if word in extra})
        return schema

    def value_in(self, settings_data: dict[str, Any]) -> Any:
        """The option's value in a settings dump (``Settings.model_dump(mode="json")``)."""
        value: Any = settings_data
        for part in self.paths[0]:
            value = value.get(part) if isinstance(value, dict) else None
        return value


def _option(name: str, path: Path, info: FieldInfo, method: str | None = None) -> Option:
    said = exposure(info)
    return Option(name, (path,), _bare(info.annotation), info.description or "", info,
                  not said.get("operator_only"), method, said.get("short"), info.title or "",
                  said.get("group"), bool(said.get("main")), only=said.get("only"))


def shared_options() -> list[Option]:
    """The settings that name a flat option, wherever they live in :class:`Settings`."""
    return [_option(option, path, info) for path, info in walk(Settings)
            if (option := exposure(info).get("option"))]


def _bare(annotation: Any) -> Any:
    """``int | None`` -> ``int``: every flat option is optional anyway (None: not given)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def method_options() -> list[Option]:
    """Each method's fields as ``<prefix><field>`` plus its aliases; a name two methods share sets both."""
    merged: dict[str, Option] = {}
    for name, method in Method.registered().items():
        for field_name, info in method.settings_model.model_fields.items():
            path = ("methods", name, field_name)
            own = method.prefix() + field_name
            for flat in (own, *method.option_aliases.get(field_name, ())):
                if flat in merged:  # an alias shared with another method's field: it sets both
                    known = merged[flat]
                    merged[flat] = replace(known, paths=(*known.paths, path),
                                           help=f"{known.help} (also sets methods.{name}.{field_name})")
                else:  # a field marked operator_only (a spending lever) is not offered to service callers
                    merged[flat] = replace(_option(flat, path, info, name), alias_of=None if flat == own else own)
    return list(merged.values())


# The table, built once for each set of methods registered: the guard resolves it on every request, and building
# it each time costs about 3 % of the guard's CPU per reply at 10 streams (benchmarks/guard_vs_litellm.py --py-spy).
_built: tuple[tuple[tuple[str, int], ...], dict[str, Option]] | None = None


def all_options() -> dict[str, Option]:
    global _built
    methods = tuple((name, id(method)) for name, method in Method.registered().items())
    if _built is None or _built[0] != methods:
        options: dict[str, Option] = {}
        for option in [*shared_options(), *method_options()]:
            if option.name in options:
                raise ConfigError(f"option '{option.name}' is declared twice (a method's field clashes with a "
                                  "shared option; give the method an option_prefix)")
            options[option.name] = option
        _built = (methods, options)
    return dict(_built[1])  # a copy: a caller may add to or drop from its table


def not_read_by(names: list[str], method: str) -> list[Option]:
    """The options among ``names`` that ``method`` does not read: set, they change nothing (a warning)."""
    methods = Method.registered()
    if method not in methods:
        return []
    read = set(methods[method]().settings_sections())
    table = all_options()
    found = []
    for name in names:
        option = table.get(name)
        if option is not None and option.method is not None and not {p[1] for p in option.paths} & read:
            found.append(option)
    return found


# A field's unit, read off its name's ending, for the default shown in --help.
_UNITS = {"_s": "s", "_days": "days", "_chars": "characters", "_tokens": "tokens"}


def default_text(name: str, info: FieldInfo) -> str | None:
    """The built-in default as --help shows it (``3``, ``on``, ``30 s``); None when there is none to show."""
    if info.default_factory is not None:
        value: Any = info.default_factory()  # type: ignore[call-arg]
    elif info.default is PydanticUndefined:
        return None
    else:
        value = info.default
    if value is None or value == [] or value == "":
        return None
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    unit = next((unit for ending, unit in _UNITS.items() if name.endswith(ending)), "")
    return f"{value:g} {unit}".strip() if isinstance(value, float) else f"{value} {unit}".strip()
