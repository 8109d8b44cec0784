"""``factdebate corpus fetch``: a public corpus from the Hugging Face Hub into ``<data>/corpora/<name>/`` as
Parquet files and a ``manifest.json``, for ``factdebate index NAME``.

Each file is checked against the sha256 the Hub's tree listing records before it is moved in; JSON lines
become Parquet. The manifest is rewritten after every file, so a stopped fetch resumes from the same commit."""

from __future__ import annotations

import fnmatch
import functools
import logging
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from string import Formatter
from typing import Any

from factdebate.corpus.fetch_manifest import read_manifest, write_manifest
from factdebate.corpus.folders import corpora_dir
from factdebate.corpus.hub_spec import hub_corpus_name
from factdebate.corpus.names import check_corpus_name
from factdebate.hub import registry
from factdebate.hub.checksum import sha256_file
from factdebate.hub.errors import HubError, HubUnreachable
from factdebate.hub.fetch import fetch
from factdebate.hub.registry import HubCorpus
from factdebate.hub.remote import Listed, RemoteFile, list_folder, resolve_commit
from factdebate.util.errors import InputError, MissingDependencyError

Notify = Callable[[str], None]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FetchReport:
    name: str
    folder: Path
    fetched: int  # files downloaded now
    skipped: int  # files already there and verified
    files: int  # files in the folder now
    rows: int  # rows in those files
    available: int | None  # files of the whole corpus at that commit (None: the Hub was not reached)


def _params(entry: HubCorpus, given: dict[str, str | None]) -> dict[str, str]:
    wanted = {field for template in (entry.name, entry.folder)
              for _, field, _, _ in Formatter().parse(template) if field}
    extra = sorted(key for key, value in given.items() if value is not None and key not in wanted)
    if extra:
        raise InputError(f"corpus '{entry.key}' takes no --{', --'.join(extra)}")
    values = {**entry.defaults, **{k: v for k, v in given.items() if v is not None}}
    missing = sorted(wanted - set(values))
    if missing:
        raise InputError(f"corpus '{entry.key}' needs --{', --'.join(missing)}")
    for key, value in given.items():
        if value is not None:
            _check_param(key, value)
    return values


# The values fill a folder name on the Hub ("{date}.{lang}"): unchecked, `--date ../../../x` sent `..%2F`
# to the Hub's API. Each is held to the shape the Wikipedia dumps use, before any request.
_PARAM_SHAPES = {"date": (re.compile(r"\d{8}"), "a dump date as YYYYMMDD, e.g. 20231101"),
                 "lang": (re.compile(r"[A-Za-z][A-Za-z-]{0,11}"), "a Wikipedia language code: letters and hyphens, "
                          "at most 12, e.g. en or zh-classical")}


def _check_param(key: str, value: str) -> None:
    shape = _PARAM_SHAPES.get(key)
    if shape is None:
        return
    pattern, wanted = shape
    shown = value if len(value) <= 40 and value.isprintable() else repr(value[:40])
    valid = pattern.fullmatch(value) is not None
    if valid and key == "date":
        try:
            datetime.strptime(value, "%Y%m%d")
        except ValueError:
            valid = False
    if not valid:
        raise InputError(f"--{key} {shown}: give {wanted}")


def _rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return int(pq.ParquetFile(path).metadata.num_rows)


def _jsonl_to_parquet(source: Path, target: Path) -> int:
    """JSON lines to Parquet with id / title / text / source columns (the loader's field spellings)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from factdebate.corpus.loading import load_documents

    schema = pa.schema([(name, pa.string()) for name in ("id", "title", "text", "source")])
    tmp = target.with_name(f".{target.name}.tmp")
    rows = 0
    try:
        with pq.ParquetWriter(tmp, schema) as writer:
            batch: list[dict[str, str]] = []
            for doc in load_documents(source, fmt="jsonl"):
                batch.append(doc.model_dump(include={"id", "title", "text", "source"}))
                if len(batch) == 10_000:
                    writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                    rows, batch = rows + len(batch), []
            if batch:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                rows += len(batch)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a bad line: no half-converted file left in the corpus folder
        raise
    os.replace(tmp, target)
    return rows


def _local_name(entry: HubCorpus, remote_path: str) -> str:
    name = PurePosixPath(remote_path).name
    return str(PurePosixPath(name).with_suffix(".parquet")) if entry.convert == "jsonl" else name


def _verified(record: dict[str, Any] | None, listed: Listed, path: Path) -> bool:
    if not record or not path.is_file():
        return False
    if listed.sha256 and record.get("source_sha256") != listed.sha256:
        return False
    return sha256_file(path) == record.get("sha256")


def _store(entry: HubCorpus, downloaded: Path, target: Path, name: str, remote_path: str) -> int:
    """Move a verified download into the corpus folder and count its rows (a non-Parquet file stops the fetch)."""
    if entry.convert == "jsonl":
        rows = _jsonl_to_parquet(downloaded, target)
        downloaded.unlink()
        return rows
    import pyarrow as pa

    try:
        rows = _rows(downloaded)  # before the move: only readable files enter the folder
    except (pa.ArrowException, OSError, ValueError) as exc:
        downloaded.unlink(missing_ok=True)
        reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        raise InputError(f"corpus '{name}': {remote_path} of {entry.repo} is not a readable Parquet file ({reason}); "
                         "it was deleted, and the files fetched before it are kept") from None
    os.replace(downloaded, target)
    return rows


def _listing(entry: HubCorpus, commit: str, folder: str) -> list[Listed]:
    listed = [f for f in list_folder(entry.repo, entry.repo_type, commit, folder)
              if fnmatch.fnmatch(PurePosixPath(f.path).name, entry.pattern)]
    if not listed and entry.key.startswith("hf:"):
        raise InputError(f"{entry.key}: no Parquet files in {folder or 'the top folder'} of {entry.repo}@"
                         f"{commit[:12]}; name the folder that holds them: hf:{entry.repo}/FOLDER")
    if not listed:
        raise InputError(f"no file matching {entry.pattern} in {folder}/ of {entry.repo}@{commit[:12]}: is the "
                         "language or date right? (the dump's folders are named DATE.LANG)")
    return sorted(listed, key=lambda f: f.path)


def fetch_corpus(key: str, params: dict[str, str | None], *, limit_files: int | None = None,
                 notify: Notify | None = None) -> FetchReport:
    corpora = registry.corpora()
    if key not in corpora:
        raise InputError(f"unknown corpus '{key}'; fetchable: {', '.join(sorted(corpora))}")
    entry = corpora[key]
    return _fetch_entry(entry, _params(entry, params), limit_files=limit_files, notify=notify)


def fetch_repo(repo: str, folder: str = "", *, notify: Notify | None = None, name: str | None = None) -> FetchReport:
    """Any Hub dataset's Parquet files (``index hf:OWNER/NAME[/FOLDER]``) as the corpus ``name`` (default from
    corpus/hub_spec.py); they must have id/title/text columns or ones ``corpus.loading`` maps."""
    name = name or hub_corpus_name(repo, folder)
    entry = HubCorpus(key=f"hf:{repo}", description=f"Parquet files of the Hub dataset {repo}", name=name,
                      repo=repo, repo_type="dataset", revision="main", folder=folder, pattern="*.parquet")
    return _fetch_entry(entry, {}, notify=notify)


def _what(folder: str | None, repo: str | None) -> str:
    return f"{folder or 'the top folder'} of {repo}"


def _numbered(say: Notify, prefix: str, line: str) -> None:
    say(f"{prefix} {line}")


def _fetch_entry(entry: HubCorpus, values: dict[str, str], *, limit_files: int | None = None,
                 notify: Notify | None = None) -> FetchReport:
    say_to: Notify = notify or log.info  # a library logs; the command line passes its own line printer
    try:
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError("pyarrow", "retrieval") from exc
    name = check_corpus_name(entry.name.format(**values))
    folder = corpora_dir() / name
    remote_folder = entry.folder.format(**values)
    manifest = read_manifest(folder)
    source = manifest.get("source", {})
    if source and (source.get("repo"), source.get("folder")) != (entry.repo, remote_folder):
        raise InputError(f"{folder} holds {_what(source.get('folder'), source.get('repo'))}, not "
                         f"{_what(remote_folder, entry.repo)}: move or delete that folder first, or name another "
                         "(--corpus)")
    records: dict[str, dict[str, Any]] = {f["path"]: f for f in manifest.get("files", [])}
    try:
        # First, also when the manifest pins the commit: it fails at once without the Hub, while the tree
        # listing retries for half a minute
        commit = resolve_commit(entry.repo, entry.repo_type, source.get("commit") or entry.revision)
        listing = _listing(entry, commit, remote_folder)
    except HubUnreachable as exc:
        if records and all((folder / r["file"]).is_file() for r in records.values()):
            say_to(f"{exc}; {folder} keeps the {len(records)} file(s) fetched earlier")
            return FetchReport(name, folder, 0, 0, len(records), sum(r["rows"] for r in records.values()), None)
        raise InputError(f"corpus '{name}': {exc}. To index files of your own instead: factdebate index PATH") from None
    chosen = listing[:limit_files] if limit_files else listing
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"name": name, "description": entry.description,
                "source": {"repo": entry.repo, "repo_type": entry.repo_type, "revision": entry.revision,
                           "commit": commit, "folder": remote_folder, "pattern": entry.pattern, "params": values},
                "available_files": len(listing)}
    staging = folder / ".partial"  # huggingface_hub writes here; only verified files leave it
    fetched = skipped = 0
    try:
        for number, listed in enumerate(chosen, start=1):
            target = folder / _local_name(entry, listed.path)
            if _verified(records.get(listed.path), listed, target):
                skipped += 1
                continue
            say = functools.partial(_numbered, say_to, f"[{number}/{len(chosen)}]")
            file = RemoteFile(entry.repo, listed.path, repo_type=entry.repo_type, revision=commit,
                              sha256=listed.sha256, checksum_from="Hub's file listing")
            try:
                got = fetch(file, local_dir=staging, notify=say)
            except HubError as exc:
                raise InputError(f"corpus '{name}': {exc}. The files fetched so far are kept; run the same "
                                 "command again to resume") from None
            rows = _store(entry, got.path, target, name, listed.path)
            records[listed.path] = {"path": listed.path, "file": target.name, "source_sha256": got.sha256,
                                    "sha256": sha256_file(target) if entry.convert else got.sha256,
                                    "size": target.stat().st_size, "rows": rows}
            fetched += 1
            _save(folder, manifest, records)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _save(folder, manifest, records)
    return FetchReport(name, folder, fetched, skipped, len(records), sum(r["rows"] for r in records.values()),
                       len(listing))


def _save(folder: Path, manifest: dict[str, Any], records: dict[str, dict[str, Any]]) -> None:
    files = sorted(records.values(), key=lambda r: r["path"])
    write_manifest(folder, {**manifest, "files": files, "rows": sum(r["rows"] for r in files),
                             "complete": len(files) >= manifest["available_files"],
                             "updated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
