"""Every call this project makes to ``huggingface_hub``, with its errors turned into one-line usage errors.

``HF_ENDPOINT`` and ``HF_TOKEN`` are read at each call; the Hub's cache lives in ``<data>/hub/``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from factdebate.hub.errors import ChecksumMismatch, HubNotFound, HubUnreachable
from factdebate.util.errors import MissingDependencyError
from factdebate.util.paths import data_dir

DEFAULT_ENDPOINT = "https://huggingface.co"


def endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def token() -> str | None:
    return os.environ.get("HF_TOKEN") or None


def cache_dir() -> Path:
    return data_dir() / "hub"


@dataclass(frozen=True)
class RemoteFile:
    repo_id: str
    path: str
    repo_type: str = "dataset"
    revision: str = "main"
    sha256: str | None = None  # recorded elsewhere; when None, the Hub's own hash is checked
    checksum_from: str = "registry"  # where ``sha256`` was recorded, for messages and the lock file

    def __str__(self) -> str:
        kind = "" if self.repo_type == "model" else f"{self.repo_type} "
        return f"{self.path} of the {kind}repo {self.repo_id}@{self.revision[:12]}"


@dataclass(frozen=True)
class Head:
    """What the Hub says of a file before sending it: the commit the revision points to, the file's ETag
    (its LFS sha256, or its git blob sha1 for files kept in git) and its size."""

    commit: str
    etag: str | None
    size: int | None


@dataclass(frozen=True)
class Listed:
    path: str
    size: int
    sha256: str | None  # the LFS sha256; None for a file kept in git
    blob_id: str


def _hf() -> ModuleType:
    try:
        import huggingface_hub
    except ImportError as exc:
        raise MissingDependencyError("huggingface_hub", "eval") from exc
    return huggingface_hub


@contextlib.contextmanager
def translated(what: str) -> Iterator[None]:
    """Turn huggingface_hub's failures into one line naming ``what`` and the endpoint."""
    _hf()
    from huggingface_hub import errors

    where = endpoint()
    try:
        yield
    except errors.HFValidationError as exc:  # an id the client refuses before asking (hf: specs are checked earlier)
        raise HubNotFound(f"{what}: not a valid Hub repository id or path ({str(exc).splitlines()[0][:160]})") \
            from None
    except errors.OfflineModeIsEnabled:
        raise HubUnreachable(f"{what}: offline mode is on (HF_HUB_OFFLINE) and there is no verified copy "
                             "here yet") from None
    except errors.GatedRepoError:
        raise HubNotFound(f"{what}: the repository is gated: accept its terms on the Hub and set HF_TOKEN") from None
    except (errors.RepositoryNotFoundError, errors.RevisionNotFoundError, errors.RemoteEntryNotFoundError) as exc:
        kind = type(exc).__name__.removesuffix("Error").replace("NotFound", " not found").lower()
        raise HubNotFound(f"{what}: {kind} on the Hub at {where} (a private repository also needs HF_TOKEN)") from None
    except errors.HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else "?"
        if status in (401, 403):
            raise HubNotFound(f"{what}: the Hub at {where} refused access (HTTP {status}): set HF_TOKEN") from None
        raise HubUnreachable(f"{what}: the Hub at {where} answered HTTP {status}") from None
    except errors.FileMetadataError:
        raise HubUnreachable(f"{what}: {where} did not answer as the Hub does (no commit or ETag): check "
                             "HF_ENDPOINT") from None
    except (errors.HTTPError, errors.LocalEntryNotFoundError, ConnectionError, TimeoutError) as exc:
        reason = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        raise HubUnreachable(f"{what}: could not reach the Hub at {where} ({reason})") from None


def head(file: RemoteFile) -> Head:
    hf = _hf()
    with translated(str(file)):
        url = hf.hf_hub_url(file.repo_id, file.path, repo_type=file.repo_type, revision=file.revision,
                            endpoint=endpoint())
        meta = hf.get_hf_file_metadata(url, token=token(), endpoint=endpoint())
        if meta.commit_hash is None:
            from huggingface_hub.errors import FileMetadataError

            raise FileMetadataError("no X-Repo-Commit")
    return Head(commit=meta.commit_hash, etag=meta.etag, size=meta.size)


def download(file: RemoteFile, commit: str, *, local_dir: Path | None = None, force: bool = False) -> Path:
    """The file at ``commit``: into the cache (``local_dir`` None) or into ``local_dir`` under its repo path."""
    hf = _hf()
    kwargs: dict[str, Any] = {"local_dir": str(local_dir)} if local_dir is not None else {}
    from factdebate.util.progress import download_bar

    kwargs["tqdm_class"] = download_bar(file.path.rsplit("/", 1)[-1])
    with translated(str(file)):
        try:
            path = hf.hf_hub_download(file.repo_id, file.path, repo_type=file.repo_type, revision=commit,
                                      cache_dir=str(cache_dir()), endpoint=endpoint(), token=token(),
                                      force_download=force, **kwargs)
        except OSError as exc:
            # huggingface_hub's own size check (a plain OSError); it has already removed the partial file
            if "Consistency check failed" not in str(exc):
                raise
            raise ChecksumMismatch(f"{file}: the download is not the size the Hub announced "
                                   f"({str(exc).splitlines()[0]}); nothing was kept") from None
    return Path(path)


def cached(file: RemoteFile, commit: str) -> Path | None:
    """The cache's copy of the file at ``commit``, without any network call; None if there is none."""
    found = _hf().try_to_load_from_cache(file.repo_id, file.path, cache_dir=str(cache_dir()), revision=commit,
                                         repo_type=file.repo_type)
    return Path(found) if isinstance(found, str) and Path(found).is_file() else None


def remove(path: Path) -> None:
    """Delete a download (the cache's blob and its snapshot link) so nothing takes it for a good copy."""
    if path.is_symlink():
        path.resolve().unlink(missing_ok=True)
    path.unlink(missing_ok=True)


def resolve_commit(repo_id: str, repo_type: str, revision: str) -> str:
    hf = _hf()
    with translated(f"revision {revision} of {repo_id}"):
        info = hf.HfApi(endpoint=endpoint(), token=token()).repo_info(repo_id, repo_type=repo_type,
                                                                       revision=revision)
    if not info.sha:
        raise HubUnreachable(f"{repo_id}: the Hub at {endpoint()} did not say which commit {revision} is")
    return str(info.sha)


def list_folder(repo_id: str, repo_type: str, commit: str, folder: str) -> list[Listed]:
    """The files directly in ``folder`` at ``commit``, with the LFS sha256 the Hub records for each."""
    hf = _hf()
    from huggingface_hub.hf_api import RepoFile

    with translated(f"{folder}/ of {repo_id}"):
        entries = list(hf.HfApi(endpoint=endpoint(), token=token()).list_repo_tree(
            repo_id, path_in_repo=folder or None, revision=commit, repo_type=repo_type))
    return [Listed(path=e.path, size=e.size, sha256=e.lfs.sha256 if e.lfs else None, blob_id=e.blob_id)
            for e in entries if isinstance(e, RepoFile)]
