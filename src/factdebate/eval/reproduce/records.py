"""Reading back what a reproduction wrote: ``reproduce.json`` and a run's ``run.json``, checked field by field.

A bad field is one line naming the file and the field (exit 2), before anything runs; a cell's ``folder``
must stay inside the reproduction's folder."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from factdebate.eval.report.run_folder import read_checked


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


def read_record(path: Path, model: type[_Record], what: str) -> dict[str, Any]:
    """``path`` read as ``model``: the run folder's reader (eval/report/run_folder.py) does it for both."""
    return read_checked(path, model, what)


def read_reproduce_record(path: Path) -> dict[str, Any]:
    return read_record(path, ReproduceRecord, "the record of a reproduction (reproduce.json)")

