"""The one reader of a run folder (``summary.json``, ``run.json``, ``results.jsonl``) for every command that reads
one, each file read within bounds (core/runfiles.py) and checked field by field.

A run folder may have been edited or crafted: a wrong field is one line naming the file and the field (exit 2),
before anything is computed. Fields not read are left as they are."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from factdebate.core.runfiles import read_run_json
from factdebate.eval.report.summary import RUN, SUMMARY_JSON
from factdebate.util.errors import InputError

_KINDS = {list: "list", str: "string", int: "number", float: "number", bool: "true/false value"}


def _kind(value: Any) -> str:
    return _KINDS.get(type(value), type(value).__name__)


def settings_shape_problem(data: dict[str, Any], model: type[BaseModel] | None = None, where: str = "") -> str | None:
    """Where recorded settings hold something other than an object where the settings model has a section, or None."""
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


class RunRecord(BaseModel):
    """The fields of an eval run's ``run.json`` that a rerun reads."""

    model_config = ConfigDict(extra="allow")  # fields added by later versions are kept as they are

    settings: dict[str, Any]
    dataset: str
    seed: int = Field(ge=0)  # numpy refuses a negative seed, after the run (bootstrap)
    limit: int | None = None
    name: str | None = None
    labels: list[str] | None = None
    options: dict[str, Any] | None = None
    provenance: dict[str, Any] | None = None

    @field_validator("settings")
    @classmethod
    def _sections(cls, settings: dict[str, Any]) -> dict[str, Any]:
        """A section that is not an object (``llm`` as a list) is refused here, not met while merging."""
        if problem := settings_shape_problem(settings):
            raise ValueError(problem)
        return settings


def first_problem(exc: ValidationError) -> str:
    """The first wrong field of a validation error, in one line (and how many more there are)."""
    error = exc.errors()[0]  # no "input": the value may be large; the field's name says where to look
    where = ".".join(str(p) for p in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return f"{where}: {message}{more}" if where else message + more


def read_checked(path: Path, model: type[BaseModel], what: str) -> dict[str, Any]:
    """``path`` read as ``model`` (JSON), as a plain dict; one InputError line if it cannot be."""
    data = read_run_json(path.parent, path.name, what=what)  # a regular file inside its folder, bounded
    if data is None:
        raise InputError(f"{path}: no such file (is this {what}?)")
    try:
        return model.model_validate(data).model_dump()
    except ValidationError as exc:
        raise InputError(f"{path} is damaged: {first_problem(exc)}; it is not {what} this version can read") \
            from None


def read_run(directory: Path) -> dict[str, Any]:
    """A run folder's ``run.json``, checked (a rerun's settings, dataset and seed come from it)."""
    return read_checked(directory / RUN, RunRecord, "the record of an eval run (run.json)")


def read_run_provenance(directory: Path) -> dict[str, Any]:
    """The ``provenance`` of a run folder's ``run.json``, or ``{}`` where there is none."""
    run = read_run_json(directory, RUN, what="the record of an eval run (run.json)")
    provenance = (run or {}).get("provenance")
    return provenance if isinstance(provenance, dict) else {}


def read_summary(directory: Path) -> dict[str, Any] | None:
    """A run folder's ``summary.json``, checked; None when the run has not been summarised yet."""
    summary = read_run_json(directory, SUMMARY_JSON, what="the summary of an eval run (summary.json)")
    if summary is not None:
        check_summary(directory / SUMMARY_JSON, summary)
    return summary
