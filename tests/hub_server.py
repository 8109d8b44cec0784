"""A local server that speaks the Hugging Face Hub's download protocol, for ``HF_ENDPOINT`` in tests.

It answers what ``huggingface_hub`` asks (read from its source: ``hf_hub_download``,
``get_hf_file_metadata``, ``HfApi.repo_info`` and ``list_repo_tree``):

- ``HEAD/GET /[datasets/]{repo}/resolve/{revision}/{path}``: ``X-Repo-Commit``; for an LFS file a 302 to
  a "CDN" on another port with ``X-Linked-Etag`` (its sha256) and ``X-Linked-Size``, as the Hub does; for
  a small file kept in git a 200 with its git blob sha1 as ``ETag``. Unknown repos, revisions and files
  get a 404 with the Hub's ``X-Error-Code``.
- ``GET /api/{datasets|models}/{repo}/revision/{revision}``: the commit (``sha``) and the files.
- ``GET /api/{datasets|models}/{repo}/tree/{revision}[/{folder}]``: the folder's entries with ``oid``,
  ``size`` and ``lfs: {oid, size, pointerSize}``.

``corrupt`` makes the CDN send other bytes of the same size than the ones advertised (a checksum
mismatch that only a hash can see); ``token``
makes every Hub route require ``Authorization: Bearer <token>``. ``requests`` records what was asked.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

DEFAULT_COMMIT = "c0ffee" * 6 + "c0ff"  # 40 hex digits


@dataclass
class Repo:
    files: dict[str, bytes]
    commit: str = DEFAULT_COMMIT
    in_git: set[str] = field(default_factory=set)  # served as small git files (ETag = git blob sha1)


def go_online(monkeypatch: pytest.MonkeyPatch, endpoint: str | None = None) -> None:
    """Lift the suite's offline mode for this test: conftest sets HF_HUB_OFFLINE=1 before huggingface_hub
    is imported, and the library keeps what it read then."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    if endpoint is not None:
        monkeypatch.setenv("HF_ENDPOINT", endpoint)


def subprocess_env(data: str, endpoint: str, **extra: str) -> dict[str, str]:
    """The environment of a CLI run against the local hub: a fresh data folder, no offline switch."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN")}
    return {**env, "FACTDEBATE_DATA_DIR": data, "HF_ENDPOINT": endpoint, "HF_HUB_DISABLE_PROGRESS_BARS": "1", **extra}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def git_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up mid-reply is not a failure of the server


class HubServer:
    def __init__(self, *, token: str | None = None) -> None:
        self.repos: dict[tuple[str, str], Repo] = {}
        self.corrupt: set[str] = set()  # repo paths whose bytes the CDN alters
        self.token = token
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self._blobs: dict[str, bytes] = {}
        self._hub = _Quiet(("127.0.0.1", 0), self._handler(cdn=False))
        self._cdn = _Quiet(("127.0.0.1", 0), self._handler(cdn=True))
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._hub.server_address[1]}"

    def add(self, repo_id: str, files: dict[str, bytes], *, repo_type: str = "dataset",
            commit: str = DEFAULT_COMMIT, in_git: set[str] | None = None) -> Repo:
        repo = Repo(dict(files), commit, set(in_git or ()))
        self.repos[(repo_type, repo_id)] = repo
        return repo

    def __enter__(self) -> HubServer:
        for server in (self._hub, self._cdn):
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        for server in (self._hub, self._cdn):
            server.shutdown()
            server.server_close()

    def count(self, method: str, fragment: str = "") -> int:
        return sum(1 for m, path, _ in self.requests if m == method and fragment in path)

    # --- routing -------------------------------------------------------------------------------------

    def _find(self, parts: list[str]) -> tuple[str, str, list[str]] | None:
        """(repo type, repo id, rest) for ``[datasets/]ns/name/...``."""
        repo_type = "model"
        if parts and parts[0] in ("datasets", "models", "spaces"):
            repo_type, parts = parts[0][:-1], parts[1:]
        if len(parts) < 2:
            return None
        return repo_type, f"{parts[0]}/{parts[1]}", parts[2:]

    def _answer(self, method: str, raw_path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        path = urlsplit(raw_path).path
        self.requests.append((method, path, headers))
        if self.token and headers.get("authorization") != f"Bearer {self.token}":
            return 401, {"X-Error-Message": "Invalid credentials"}, b'{"error": "unauthorized"}'
        parts = [unquote(p) for p in path.strip("/").split("/")]
        api = parts[:1] == ["api"]
        found = self._find(parts[1:] if api else parts)
        if found is None:
            return 404, {"X-Error-Code": "RepoNotFound"}, b"{}"
        repo_type, repo_id, rest = found
        repo = self.repos.get((repo_type, repo_id))
        if repo is None:
            return 404, {"X-Error-Code": "RepoNotFound"}, b'{"error": "Repository not found"}'
        if len(rest) < 2 or rest[1] not in ("main", repo.commit):
            return 404, {"X-Error-Code": "RevisionNotFound"}, b'{"error": "Invalid rev id"}'
        verb, inner = rest[0], "/".join(rest[2:])
        if api and verb == "revision":
            siblings = [{"rfilename": name} for name in sorted(repo.files)]
            return 200, {"Content-Type": "application/json"}, json.dumps(
                {"id": repo_id, "sha": repo.commit, "siblings": siblings}).encode()
        if api and verb == "tree":
            return 200, {"Content-Type": "application/json"}, json.dumps(self._tree(repo, inner)).encode()
        if not api and verb == "resolve" and inner in repo.files:
            return self._resolve(repo, inner, method)
        return 404, {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": repo.commit}, b'{"error": "Entry not found"}'

    def _tree(self, repo: Repo, folder: str) -> list[dict[str, Any]]:
        prefix = f"{folder}/" if folder else ""
        entries: dict[str, dict[str, Any]] = {}
        for name, data in sorted(repo.files.items()):
            if not name.startswith(prefix):
                continue
            head, sep, _ = name[len(prefix):].partition("/")
            if sep:
                entries.setdefault(prefix + head, {"type": "directory", "oid": "0" * 40, "path": prefix + head})
                continue
            entry: dict[str, Any] = {"type": "file", "oid": git_sha1(data), "size": len(data), "path": name}
            if name not in repo.in_git:
                entry["lfs"] = {"oid": sha256(data), "size": len(data), "pointerSize": 134}
            entries[name] = entry
        return list(entries.values())

    def _resolve(self, repo: Repo, name: str, method: str) -> tuple[int, dict[str, str], bytes]:
        data = repo.files[name]
        if name in repo.in_git:
            headers = {"X-Repo-Commit": repo.commit, "ETag": f'"{git_sha1(data)}"',
                       "Content-Length": str(len(data))}
            return 200, headers, data if method == "GET" else b""
        digest = sha256(data)
        self._blobs[digest] = bytes(b ^ 1 for b in data) if name in self.corrupt else data  # same size
        location = f"http://127.0.0.1:{self._cdn.server_address[1]}/{digest}"
        return 302, {"X-Repo-Commit": repo.commit, "ETag": f'"{git_sha1(data)}"', "X-Linked-Etag": f'"{digest}"',
                     "X-Linked-Size": str(len(data)), "Location": location, "Content-Length": "0"}, b""

    def _handler(self, *, cdn: bool) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self, method: str) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                if cdn:
                    owner.requests.append((method, f"cdn:{self.path}", headers))
                    blob = owner._blobs.get(self.path.strip("/"))
                    status, extra, body = (200, {}, blob) if blob is not None else (404, {}, b"")
                    extra = {"Content-Length": str(len(body)), **extra}
                else:
                    status, extra, body = owner._answer(method, self.path, headers)
                    extra.setdefault("Content-Length", str(len(body)))
                self.send_response(status)
                for key, value in extra.items():
                    self.send_header(key, value)
                self.end_headers()
                if method == "GET" and body:
                    self.wfile.write(body)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_HEAD(self) -> None:
                self._serve("HEAD")

        return Handler
