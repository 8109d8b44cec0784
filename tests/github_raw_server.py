"""A local stand-in for GitHub's raw-file host (``raw.githubusercontent.com``), for ``FACTDEBATE_GITHUB_RAW``
in tests: ``GET /{owner}/{name}/{commit}/{path}`` answers the file's bytes, anything else a 404, as the host
does. ``serve_file`` maps a repository path to a file on disk (the shared copies are read where they lie,
never copied into the project); ``corrupt`` alters one byte of a path's answer (a checksum mismatch);
``requests`` records the paths asked for."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import pytest


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up mid-reply is not a failure of the server


class RawServer:
    def __init__(self) -> None:
        self.files: dict[str, Path] = {}  # "owner/name/commit/path" -> file on disk
        self.corrupt: set[str] = set()
        self.requests: list[str] = []
        self._server = _Quiet(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def serve_file(self, repo: str, commit: str, path: str, file: Path) -> str:
        key = f"{repo}/{commit}/{path}"
        self.files[key] = file
        return key

    def raw_url(self, repo: str, commit: str, path: str) -> str:
        return f"{self.url}/{repo}/{commit}/{quote(path)}"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _answer(self, raw_path: str) -> tuple[int, bytes]:
        key = unquote(urlsplit(raw_path).path).lstrip("/")
        self.requests.append(key)
        file = self.files.get(key)
        if file is None:
            return 404, b"404: Not Found"
        data = file.read_bytes()
        if key in self.corrupt:
            data = data[:-1] + bytes([data[-1] ^ 1])
        return 200, data

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                status, body = server._answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


def point_at(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """Fetch GitHub files from ``url``, online: the suite's HF_HUB_OFFLINE=1 would forbid the download."""
    monkeypatch.setenv("FACTDEBATE_GITHUB_RAW", url)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
