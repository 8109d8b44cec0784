"""The GitHub raw fetch cannot be flooded, stalled, redirected away or poisoned, against a
local server speaking the raw host's protocol (``GET /{owner}/{name}/{commit}/{path}``) that misbehaves on
purpose:

- an endless body for a file the registry says is 2,000 bytes is cut near that size (it wrote 2.15 GB in
  17 s for a 78 KB file) and a ``Content-Length`` past the cap is refused unread;
- a server that sends one byte and then nothing more fails at the download's whole deadline (a byte every
  50 s never timed out: each read had its own 60 s);
- a redirect to another host is refused; one to the same host is followed;
- no ``.part`` file is left behind by any of them;
- a copy whose bytes differ from the registry's is accepted only when every field the loader reads is the
  same: planted gold evidence (FEVEROUS-S sentences in place of cell ids) is refused, where a fingerprint of
  ids, labels and claims let it into the prompts of ``--evidence given``;
- ``fetched_from`` is the URL the bytes came from, recorded at download time, not rebuilt from today's
  ``FACTDEBATE_GITHUB_RAW``;
- ``reproduce --dry-run`` downloads nothing.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from factdebate.hub import github
from factdebate.hub.errors import ChecksumMismatch, HubUnreachable
from tests.github_raw_server import point_at

REPO, COMMIT = "someone/papers", "a" * 40


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client cut the body short: that is the point


class Hostile:
    """``behave(handler)`` answers each GET; ``sent`` counts the body bytes written; ``release`` frees a
    handler that holds its connection open."""

    def __init__(self, behave: Callable[[BaseHTTPRequestHandler, Hostile], None]) -> None:
        self.behave = behave
        self.sent = 0
        self.paths: list[str] = []
        self.release = threading.Event()
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                hostile.paths.append(self.path)
                hostile.behave(self, hostile)

        self.server = _Quiet(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Hostile:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def _file(size: int = 2000, sha: str = "0" * 64, path: str = "data/claims.json") -> github.RawFile:
    return github.RawFile(REPO, COMMIT, path, sha, size=size)


def _leftovers(file: github.RawFile) -> list[str]:
    folder = file.cache_path().parent
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    return lambda url: point_at(monkeypatch, url)


def _endless(handler: BaseHTTPRequestHandler, hostile: Hostile) -> None:
    handler.send_response(200)
    handler.end_headers()  # no Content-Length: the body ends when the connection does
    block = b"x" * 65536
    try:
        while not hostile.release.is_set():
            handler.wfile.write(block)
            hostile.sent += len(block)
    except OSError:
        pass  # the client hung up


def test_an_endless_body_is_cut_near_the_registry_size(online: Callable[[str], None]) -> None:
    file = _file(size=2000)
    with Hostile(_endless) as server:
        online(server.url)
        with pytest.raises(ChecksumMismatch, match=r"sent more than 68,536 bytes, more than the registry's copy"):
            github.obtain(file)
    assert server.sent < 64 * 2**20  # the client stopped reading long before: kernel buffers at most
    assert _leftovers(file) == []  # no .part file


def test_a_content_length_past_the_cap_is_refused_unread(online: Callable[[str], None]) -> None:
    def announce(handler: BaseHTTPRequestHandler, hostile: Hostile) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(2 * 2**30))
        handler.end_headers()
        hostile.release.wait(30)

    file = _file(size=2000)
    with Hostile(announce) as server:
        online(server.url)
        with pytest.raises(ChecksumMismatch, match=r"announced 2,147,483,648 bytes, .* refused unread"):
            github.obtain(file)
    assert _leftovers(file) == []


def test_a_trickle_fails_at_the_whole_deadline(online: Callable[[str], None],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """One byte, then nothing until the test ends: only a deadline over the whole download can end it (each
    read waits 60 s; the deadline is set to 1 s here so the test does not wait minutes)."""
    def trickle(handler: BaseHTTPRequestHandler, hostile: Hostile) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", "1000")
        handler.end_headers()
        handler.wfile.write(b"[")
        handler.wfile.flush()
        hostile.release.wait(120)

    monkeypatch.setattr(github, "DEADLINE_S", 1.0)
    file = _file(size=2000)
    with Hostile(trickle) as server:
        online(server.url)
        with pytest.raises(HubUnreachable, match=r"did not send the file within 1 s \(the download's whole deadline\)"):
            github.obtain(file)
    assert _leftovers(file) == []


def test_redirects_only_to_the_same_host(online: Callable[[str], None], tmp_path: Path) -> None:
    body = b'{"a": 1}'
    file = _file(size=len(body), sha=hashlib.sha256(body).hexdigest())

    def redirect(handler: BaseHTTPRequestHandler, hostile: Hostile) -> None:
        if handler.path.startswith("/moved/"):
            handler.send_response(200)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        where = hostile.release_target  # type: ignore[attr-defined]
        handler.send_response(302)
        handler.send_header("Location", where)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    with Hostile(redirect) as server:
        online(server.url)
        port = server.server.server_address[1]
        server.release_target = f"http://localhost:{port}/moved/x"  # type: ignore[attr-defined]
        with pytest.raises(HubUnreachable, match=r"redirected the download to another host \(localhost\): refused"):
            github.obtain(file)
        assert _leftovers(file) == []
        server.release_target = "/moved/x"  # type: ignore[attr-defined]
        fetched = github.obtain(file)
    assert fetched.path.read_bytes() == body and fetched.checked_against == "registry"
    assert fetched.fetched_from == f"{server.url}/moved/x"  # where the bytes came from, not where it was asked


def _records(evidence: Any) -> list[dict[str, Any]]:
    return [{"id": i, "label": label, "claim": f"Claim {i} about a table.", "challenge": "numbers",
             "evidence": evidence(i)}
            for i, label in enumerate(["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"])]


@pytest.fixture
def feverous_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A registry entry of the authors' kind (GitHub, a FEVEROUS file in its original format, whose evidence
    names cells by id and is not read), pinned to a copy written as a text view writes it."""
    from factdebate.eval.datasets.hub_datasets import records_sha256
    from factdebate.eval.datasets.loader import load_dataset
    from factdebate.hub import registry

    pinned = tmp_path / "pinned.json"
    pinned.write_text(json.dumps(_records(lambda i: [{"content": [f"Table_{i}_cell_0_1"]}]), indent=2),
                      encoding="utf-8")
    loaded = load_dataset(f"feverous:{pinned}")
    entry = {"description": "test", "host": "github", "repo": REPO, "revision": COMMIT, "file": "feverous.json",
             "sha256": hashlib.sha256(pinned.read_bytes()).hexdigest(),
             "records_sha256": records_sha256(loaded.samples, loaded.skipped), "size": pinned.stat().st_size,
             "format": "feverous", "split": "test"}
    real = registry._read()
    monkeypatch.setattr(registry, "_read", lambda: {**real, "datasets": {**real["datasets"], "planted": entry}})
    yield "planted", pinned


def _serve_bytes(data: bytes) -> Callable[[BaseHTTPRequestHandler, Hostile], None]:
    def answer(handler: BaseHTTPRequestHandler, hostile: Hostile) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    return answer


def test_planted_gold_evidence_is_refused_other_whitespace_accepted(
        online: Callable[[str], None], feverous_entry: tuple[str, Path]) -> None:
    from factdebate.eval.datasets.hub_datasets import fetchable
    from factdebate.eval.datasets.loader import load_dataset

    name, pinned = feverous_entry
    records = json.loads(pinned.read_text(encoding="utf-8"))
    planted = _records(lambda i: "Some_Page\tThe answer to claim {i} is certainly SUPPORTS.".replace("{i}", str(i)))
    assert [(r["id"], r["label"], r["claim"]) for r in planted] == [(r["id"], r["label"], r["claim"])
                                                                     for r in records]  # the old check's fields
    with Hostile(_serve_bytes(json.dumps(planted).encode())) as server:
        online(server.url)
        with pytest.raises(ChecksumMismatch, match="do not match the checksum from the registry"):
            load_dataset(name)
    assert _leftovers(fetchable()[name].raw_file()) == []

    with Hostile(_serve_bytes(json.dumps(records).encode())) as server:  # other whitespace, the same records
        online(server.url)
        dataset = load_dataset(name)
        asked = f"{server.url}/{REPO}/{COMMIT}/feverous.json"
    assert dataset.origin["checked_against"] == "registry's records (every field the loader reads)"
    assert not any(s.meta.get("evidence") for s in dataset.samples)
    assert dataset.origin["fetched_from"] == asked
    # Later loads read the verified copy from disk: fetched_from is still where it came from, whatever the
    # variable says today.
    online("http://mirror.invalid")
    again = load_dataset(name)
    assert again.origin["fetched_from"] == asked and again.origin["checked_against"] == "lock"


def test_a_copy_accepted_by_the_old_weak_check_is_fetched_again(
        online: Callable[[str], None], feverous_entry: tuple[str, Path]) -> None:
    from factdebate.eval.datasets.hub_datasets import fetchable
    from factdebate.eval.datasets.loader import load_dataset
    from factdebate.hub import lock
    from factdebate.hub.checksum import sha256_file

    name, pinned = feverous_entry
    file = fetchable()[name].raw_file()
    planted = json.dumps(_records(lambda i: "Some_Page\tPlanted.")).encode()
    file.cache_path().parent.mkdir(parents=True, exist_ok=True)
    file.cache_path().write_bytes(planted)  # what an earlier version kept, accepted by ids, labels and claims
    weak = "registry's records (ids, labels, claims)"
    lock.record(file.lock_key(), lock.Locked(commit=COMMIT, sha256=sha256_file(file.cache_path()),
                                             size=len(planted), checked_against=weak))
    with Hostile(_serve_bytes(pinned.read_bytes())) as server:
        online(server.url)
        dataset = load_dataset(name)
        assert len(server.paths) == 1
    assert dataset.origin["checked_against"] == "registry"
    assert not any(s.meta.get("evidence") for s in dataset.samples)


def test_nothing_listens_is_unreachable_and_leaves_nothing(online: Callable[[str], None]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    online(f"http://127.0.0.1:{port}")
    file = _file()
    with pytest.raises(HubUnreachable, match="could not reach"):
        github.obtain(file)
    assert _leftovers(file) == []
