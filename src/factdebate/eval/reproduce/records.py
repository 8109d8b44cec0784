"""Reading back what a reproduction wrote: ``reproduce.json`` and a run's ``run.json``, checked field by field.

A run folder is a file on disk that anyone may have edited, truncated or sent: read unchecked, a missing
``cells`` or a ``seed`` of ``"abc"`` surfaced as Python's ``KeyError`` or ``ValueError`` ("internal error").
Here it is one line naming the file and the first bad field (exit 2), before anything is run or written.
A cell's ``folder`` must also be a relative path that stays inside the reproduction's folder.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from factdebate.core.errors import InputError
from factdebate.core.runfiles import read_run_json
from factdebate.eval.report.folder_records import settings_shape_problem


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")  # fields added by later versions are kept as they are


class CellRecord(_Record):
    run: str
    method: str
    dataset: str
    folder: str
    status: Literal["planned", "done", "skipped", "failed"]
    reason: str | None = None
    spec: str | None = None
    samples: int = 0
    paper_n: int | None = None
    notes: list[str] = []
    overrides: list[str] = []
    errored: int = 0

    @field_validator("folder")
    @classmethod
    def _inside(cls, folder: str) -> str:
        path = PurePosixPath(folder)
        if not folder or "\\" in folder or path.is_absolute() or ".." in path.parts or folder in (".", "./"):
            raise ValueError(f"{folder!r} is not a folder inside the reproduction (a relative path without '..')")
        return folder


class ReproduceRecord(_Record):
    paper: str
    tables: list[str]
    rows: list[str] | None = None
    datasets: list[str] | None = None
    paper_model: str | None = None
    limit: int | None = None
    seed: int = Field(ge=0)  # numpy refuses a negative seed, after the run (bootstrap)
    data: dict[str, str] = {}
    options: dict[str, Any] = {}
    config: str | None = None
    cells: list[CellRecord]
    provenance: dict[str, Any] = {}


class RunRecord(_Record):
    """The fields of an eval run's ``run.json`` that a rerun reads."""

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


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]  # no "input": the value may be large; the field's name says where to look
    where = ".".join(str(p) for p in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return f"{where}: {message}{more}" if where else message + more


def read_record(path: Path, model: type[_Record], what: str) -> dict[str, Any]:
    """``path`` read as ``model`` (JSON), as a plain dict; one InputError line if it is missing, not JSON,
    not a regular file inside its folder (core/runfiles.py) or not of that shape."""
    data = read_run_json(path.parent, path.name, what=what)  # a regular file inside its folder, bounded
    if data is None:
        raise InputError(f"{path}: no such file (is this {what}?)")
    try:
        return model.model_validate(data).model_dump()
    except ValidationError as exc:
        raise InputError(f"{path} is damaged: {_first_problem(exc)}; it is not {what} this version can read") \
            from None


def read_reproduce_record(path: Path) -> dict[str, Any]:
    return read_record(path, ReproduceRecord, "the record of a reproduction (reproduce.json)")


def read_run_record(path: Path) -> dict[str, Any]:
    return read_record(path, RunRecord, "the record of an eval run (run.json)")
