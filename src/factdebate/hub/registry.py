"""The registry of fetchable datasets and corpora (``datasets.toml`` beside this module), read into typed
entries. Reading it imports nothing heavy, so ``factdebate datasets`` and unknown-name messages stay fast."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factdebate.hub.github import RawFile
from factdebate.hub.remote import RemoteFile

REGISTRY = Path(__file__).with_name("datasets.toml")


@dataclass(frozen=True)
class HubDataset:
    name: str
    description: str
    repo: str
    repo_type: str
    revision: str
    files: tuple[RemoteFile, ...]  # the first is the one the loader reads; others land beside it
    format: str  # the eval FORMAT the (converted) first file is read as
    split: str
    convert: str | None = None
    checksum_source: str = ""
    host: str = "huggingface"  # or "github": a file of a repository at a commit (hub/github.py)
    # github: the records' fingerprint (eval/datasets/hub_datasets.py), accepted in place of the bytes
    records_sha256: str = ""
    size: int | None = None  # github: the registry's copy's size in bytes, which caps the download (hub/github.py)

    def raw_file(self) -> RawFile:
        """The file of a ``github`` entry."""
        first = self.files[0]
        return RawFile(repo=self.repo, commit=self.revision, path=first.path, sha256=first.sha256 or "",
                       size=self.size)


@dataclass(frozen=True)
class HubCorpus:
    key: str
    description: str
    name: str  # the corpus name, a template over ``defaults`` ("wikipedia-{lang}")
    repo: str
    repo_type: str
    revision: str
    folder: str  # template too ("{date}.{lang}")
    pattern: str
    convert: str | None = None
    defaults: dict[str, str] = field(default_factory=dict)


def _files(entry: dict[str, Any]) -> tuple[RemoteFile, ...]:
    listed = entry.get("files") or [{"path": entry["file"], "sha256": entry.get("sha256")}]
    return tuple(RemoteFile(entry["repo"], item["path"], repo_type=entry.get("repo_type", "dataset"),
                            revision=entry.get("revision", "main"), sha256=item.get("sha256"))
                 for item in listed)


@functools.cache
def _read() -> dict[str, Any]:
    with REGISTRY.open("rb") as fh:
        return tomllib.load(fh)


def datasets() -> dict[str, HubDataset]:
    found = {}
    for name, entry in _read().get("datasets", {}).items():
        found[name] = HubDataset(
            name=name, description=entry["description"], repo=entry["repo"],
            repo_type=entry.get("repo_type", "dataset"), revision=entry.get("revision", "main"),
            files=_files(entry), format=entry["format"], split=entry.get("split", ""),
            convert=entry.get("convert"), checksum_source=entry.get("checksum_source", ""),
            host=entry.get("host", "huggingface"), records_sha256=entry.get("records_sha256", ""),
            size=entry.get("size"))
    return found


def corpora() -> dict[str, HubCorpus]:
    return {key: HubCorpus(key=key, description=entry["description"], name=entry["name"], repo=entry["repo"],
                           repo_type=entry.get("repo_type", "dataset"), revision=entry.get("revision", "main"),
                           folder=entry["folder"], pattern=entry["pattern"], convert=entry.get("convert"),
                           defaults=dict(entry.get("defaults", {})))
            for key, entry in _read().get("corpora", {}).items()}
