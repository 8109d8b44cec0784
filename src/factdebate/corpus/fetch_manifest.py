"""A fetched corpus's ``manifest.json`` (corpus/fetch.py keeps it), read back with its shape checked.

A person may edit it: a damaged manifest is one line saying what is wrong and what to do (delete it, and the
next fetch starts afresh). A file's name must be a plain name inside the corpus folder."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from factdebate.corpus.folders import MANIFEST
from factdebate.util.errors import InputError


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")  # fields a later version adds are kept


class FileRecord(_Part):
    path: str
    file: str
    sha256: str
    source_sha256: str | None = None
    size: int = Field(ge=0)
    rows: int = Field(ge=0)

    @field_validator("file")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        if not name or name in (".", "..") or "/" in name or "\\" in name:
            raise ValueError(f"{name!r} is not a file name inside the corpus folder")
        return name


class SourceRecord(_Part):
    repo: str
    folder: str = ""
    commit: str | None = None


class CorpusManifest(_Part):
    source: SourceRecord | None = None
    files: list[FileRecord] = []


def read_manifest(folder: Path) -> dict[str, Any]:
    """The folder's manifest ({} when there is none), or one InputError line if it is damaged."""
    path = folder / MANIFEST
    fix = "delete it to fetch the corpus again"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise InputError(f"{path} is unreadable ({exc}): {fix}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path} is damaged (a JSON {type(data).__name__}, not an object): {fix}")
    try:
        CorpusManifest.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise InputError(f"{path} is damaged ({where}: {str(error['msg']).removeprefix('Value error, ')}): "
                         f"{fix}") from None
    return dict(data)


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    """Written beside and moved over: a stopped fetch never leaves half a manifest."""
    tmp = folder / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, folder / MANIFEST)
