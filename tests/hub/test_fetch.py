"""Downloads from a local server that speaks the Hub's protocol: verified against the Hub's own hash or a
recorded one, locked on first use, reused with no network, refused (and deleted) when the bytes differ."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from factdebate.hub import lock
from factdebate.hub.checksum import sha256_file
from factdebate.hub.errors import ChecksumMismatch, HubNotFound, HubUnreachable
from factdebate.hub.fetch import lock_key, obtain
from factdebate.hub.remote import RemoteFile, cache_dir
from tests.hub_server import HubServer, go_online, sha256

DATA = b'{"id": 1, "claim": "Paris is in France.", "label": "SUPPORTS"}\n'
FILE = RemoteFile("org/claims", "data/dev.jsonl")


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    with HubServer() as server:
        server.add("org/claims", {"data/dev.jsonl": DATA, "README.md": b"# claims\n"}, in_git={"README.md"})
        go_online(monkeypatch, server.url)
        yield server


def blobs() -> list[Path]:
    return [p for p in cache_dir().rglob("*") if p.is_file() and "blobs" in p.parts]


def test_first_fetch_is_checked_against_the_hub_locked_and_then_read_with_the_server_gone(
        hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    first = obtain(FILE)
    assert first.path.read_bytes() == DATA and first.sha256 == sha256(DATA)
    assert first.checked_against == "Hub" and first.commit == hub.repos[("dataset", "org/claims")].commit
    assert str(first.path).startswith(str(cache_dir()))
    recorded = lock.get(lock_key(FILE))
    assert recorded is not None and (recorded.sha256, recorded.commit) == (first.sha256, first.commit)
    hub.stop()
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there
    again = obtain(FILE)
    assert (again.path, again.sha256, again.checked_against) == (first.path, first.sha256, "lock")


def test_a_file_kept_in_git_is_checked_by_its_git_sha1(hub: HubServer) -> None:
    readme = obtain(RemoteFile("org/claims", "README.md"))
    assert readme.checked_against == "Hub (git sha1)" and readme.path.read_bytes() == b"# claims\n"


def test_a_model_repository_is_addressed_without_the_datasets_prefix(hub: HubServer) -> None:
    hub.add("org/shared-task", {"data/dev.json": b"[]"}, repo_type="model")  # as AVeriTeC keeps its data
    got = obtain(RemoteFile("org/shared-task", "data/dev.json", repo_type="model"))
    assert got.path.read_bytes() == b"[]" and "models--org--shared-task" in str(got.path)
    assert ("HEAD", "/org/shared-task/resolve/main/data/dev.json") in [(m, p) for m, p, _ in hub.requests]


def test_a_recorded_checksum_that_does_not_match_leaves_nothing_behind(hub: HubServer) -> None:
    wrong = RemoteFile("org/claims", "data/dev.jsonl", sha256="0" * 64)
    with pytest.raises(ChecksumMismatch, match=r"checksum from the registry \(expected 0{64}, got sha256 ") as err:
        obtain(wrong)
    assert "deleted" in str(err.value) and "\n" not in str(err.value)
    assert blobs() == [] and not any(p.is_symlink() for p in cache_dir().rglob("dev.jsonl"))
    assert lock.get(lock_key(wrong)) is None


def test_bytes_that_differ_from_the_hubs_hash_are_refused(hub: HubServer) -> None:
    hub.corrupt.add("data/dev.jsonl")
    with pytest.raises(ChecksumMismatch, match="checksum from the Hub"):
        obtain(FILE)
    assert blobs() == [] and lock.get(lock_key(FILE)) is None
    hub.corrupt.clear()
    assert obtain(FILE).path.read_bytes() == DATA  # nothing stale stood in the way of a good download


def test_a_cached_copy_changed_on_disk_is_fetched_again_from_the_locked_commit(hub: HubServer) -> None:
    first = obtain(FILE)
    first.path.resolve().write_bytes(b"edited by hand\n")
    again = obtain(FILE)
    assert again.path.read_bytes() == DATA and sha256_file(again.path) == first.sha256
    assert hub.count("GET", "cdn:") == 2


def test_an_upstream_change_at_the_locked_revision_is_a_mismatch_not_new_data(hub: HubServer) -> None:
    first = obtain(FILE)
    first.path.resolve().unlink()  # the cache is lost, and upstream now serves other bytes at that commit
    hub.repos[("dataset", "org/claims")].files["data/dev.jsonl"] = DATA + DATA
    with pytest.raises(ChecksumMismatch, match="lock file"):
        obtain(FILE)


def test_an_unreachable_hub_says_where_it_looked(monkeypatch: pytest.MonkeyPatch) -> None:
    go_online(monkeypatch, "http://127.0.0.1:9")
    with pytest.raises(HubUnreachable, match=r"could not reach the Hub at http://127\.0\.0\.1:9"):
        obtain(FILE)


def test_offline_mode_uses_verified_copies_and_fetches_nothing(hub: HubServer,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub.constants

    first = obtain(FILE)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    calls = len(hub.requests)
    assert obtain(FILE).path == first.path and len(hub.requests) == calls
    with pytest.raises(HubUnreachable, match=r"offline mode is on \(HF_HUB_OFFLINE\)"):
        obtain(RemoteFile("org/claims", "README.md"))
    assert len(hub.requests) == calls


def test_missing_files_and_repositories_are_named(hub: HubServer) -> None:
    with pytest.raises(HubNotFound, match="entry not found"):
        obtain(RemoteFile("org/claims", "data/test.jsonl"))
    with pytest.raises(HubNotFound, match="repository not found"):
        obtain(RemoteFile("org/nothing", "data/dev.jsonl"))
    with pytest.raises(HubNotFound, match="revision not found"):
        obtain(RemoteFile("org/claims", "data/dev.jsonl", revision="v9"))


def test_hf_token_is_sent_and_its_absence_named(monkeypatch: pytest.MonkeyPatch) -> None:
    with HubServer(token="s3cret") as server:
        server.add("org/private", {"x.jsonl": DATA})
        go_online(monkeypatch, server.url)
        with pytest.raises(HubNotFound, match="set HF_TOKEN"):
            obtain(RemoteFile("org/private", "x.jsonl"))
        monkeypatch.setenv("HF_TOKEN", "s3cret")
        assert obtain(RemoteFile("org/private", "x.jsonl")).path.read_bytes() == DATA
        hub_calls = [h for _, path, h in server.requests if not path.startswith("cdn:")]
        assert hub_calls[-1]["authorization"] == "Bearer s3cret"
        assert all("authorization" not in h for _, path, h in server.requests if path.startswith("cdn:"))
