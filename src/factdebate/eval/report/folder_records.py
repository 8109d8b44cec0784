"""The shape of what ``compare``, ``report`` and ``reproduce --from`` read from a run folder's JSON files.

A run folder may have been edited or crafted. Read unchecked, ``settings.llm`` holding a list, ``labels``
holding a number or ``ids`` holding objects surfaced deep inside the comparison as Python's
``AttributeError`` ("internal error"). Here the fields those commands read are checked when the file is
read, and a wrong one is one line naming the file and the field (exit 2), before anything is computed or
written. Fields they do not read are left as they are (a later version may add some).
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from factdebate.core.errors import InputError

_KINDS = {list: "list", str: "string", int: "number", float: "number", bool: "true/false value"}


def _kind(value: Any) -> str:
    return _KINDS.get(type(value), type(value).__name__)


def settings_shape_problem(data: dict[str, Any], model: type[BaseModel] | None = None, where: str = "") -> str | None:
    """Where recorded settings hold something other than an object in a place the settings model has a
    section (``llm``, ``retrieval.…``, a method's section under ``methods``, an MCP server), or None. Values
    inside the sections are left to the settings model's own validation; only the sections' shape is needed
    to walk them safely."""
    if model is None:
        from factdebate.settings.model import Settings

        model = Settings
    for name, field in model.model_fields.items():
        value = data.get(name)
        if value is None:
            continue
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if not isinstance(value, dict):
                return f"{where}{name} is a JSON {_kind(value)}, not an object"
            if problem := settings_shape_problem(value, annotation, f"{where}{name}."):
                return problem
        elif typing.get_origin(annotation) is dict:
            if not isinstance(value, dict):
                return f"{where}{name} is a JSON {_kind(value)}, not an object"
            held = typing.get_args(annotation)[1] if typing.get_args(annotation) else Any
            if held is not str:  # methods (Any) and MCP servers: one object per entry
                for key, item in value.items():
                    if not isinstance(item, dict):
                        return f"{where}{name}.{key} is a JSON {_kind(item)}, not an object"
    return None


class SummaryRecord(BaseModel):
    """The fields of a run's ``summary.json`` that ``compare`` and ``report`` read."""

    model_config = ConfigDict(extra="allow")

    name: str | None = None
    method: str | None = None
    dataset: str | None = None
    labels: list[str] = []
    ids: list[str | int] | None = None
    settings: dict[str, Any] = {}
    deviations: list[dict[str, Any]] = []
    evidence: dict[str, Any] | None = None
    complete: bool = True

    @field_validator("settings")
    @classmethod
    def _sections(cls, settings: dict[str, Any]) -> dict[str, Any]:
        if problem := settings_shape_problem(settings):
            raise ValueError(problem)
        return settings


def check_summary(file: Path, summary: dict[str, Any]) -> None:
    """One line naming ``file`` and its first wrong field, when ``summary`` is not of the shape compare reads."""
    try:
        SummaryRecord.model_validate(summary)
    except ValidationError as exc:
        error = exc.errors()[0]  # no "input": it may be large
        where = ".".join(str(p) for p in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        raise InputError(f"{file} is damaged: {where}: {message}; it is not the summary of an eval run this "
                         "version can read") from None
