"""A real Milvus server for the tests: the standalone server that PyPI's ``milvus`` 2.3.5 wheel embeds.

It runs as a child process on loopback ports picked here (so two test sessions on one machine do not meet
on Milvus's default ports), with its data in a temporary folder removed at the end. Its executables
(about 250 MB once unpacked from the wheel) are unpacked once into ``~/.cache/factdebate-tests`` and
linked into each server's folder, so a session pays seconds, not a decompression. One server serves the
whole test session (``milvus_server_uri`` in tests/conftest.py); tests keep apart by corpus name.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.readiness import NotReady, Readiness, wait_until_ready

# CPU-seconds of its own the server may use before it is healthy: a start took 0.28-0.33 CPU-s (3-4 s of wall at
# load 22); a server that never becomes healthy (etcd's leader change, below) still uses about 0.03 CPU-s a
# second, so it ends on this budget in minutes, however loaded the machine, and the second start is tried.
STARTUP_CPU_SECONDS = 5.0


class MilvusUnavailable(Exception):
    """The server could not be started here; the message says why (the tests that need it are skipped)."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cached_binaries(milvus: Any) -> Path | None:
    """The unpacked executables, made once per machine; ``None`` where the cache cannot be written."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "factdebate-tests"
    target = root / f"milvus-{milvus.__version__}"
    if (target / "bin" / "milvus.lzma.md5").is_file():
        return target / "bin"
    try:
        root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="unpacking-", dir=root))
        milvus._initialize_data_files(str(staging))  # writes staging/bin, each file's checksum last
        try:
            staging.rename(target)  # atomic: a concurrent session either wins or finds it done
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    except OSError:
        return None
    return target / "bin" if (target / "bin" / "milvus.lzma.md5").is_file() else None


class MilvusServer:
    """``start()`` returns the URI; ``stop()`` ends the server and deletes its data.

    ``settings`` are keys of the server's milvus.yaml, dotted (``dataCoord.compaction.enableAutoCompaction``),
    with the text each is to hold; none given, the server runs on the wheel's defaults."""

    def __init__(self, settings: dict[str, str] | None = None) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="factdebate-milvus-"))
        self.settings = dict(settings or {})
        self._server: Any = None
        self.readiness: Readiness | None = None  # how the last start went (CPU and wall seconds)
        atexit.register(self.stop)

    def start(self) -> str:
        """Seen once in a dozen starts on a loaded machine: the embedded etcd changes leader while the
        proxy registers, and the server never becomes healthy. A second start, on fresh ports and a fresh
        folder, is then tried before giving up."""
        try:
            import milvus
        except ImportError as exc:
            raise MilvusUnavailable("the embedded Milvus server is not installed (pip install milvus==2.3.5, "
                                    "in the dev extra)") from exc
        binaries = _cached_binaries(milvus)
        problem = ""
        for attempt in range(2):
            if attempt:
                self.base = Path(tempfile.mkdtemp(prefix="factdebate-milvus-"))
            try:
                return self._start_once(milvus, binaries)
            except MilvusUnavailable as exc:
                problem = str(exc)
                self.stop()
        raise MilvusUnavailable(problem)

    def _start_once(self, milvus: Any, binaries: Path | None) -> str:
        if binaries is not None:
            (self.base / "bin").symlink_to(binaries, target_is_directory=True)
        server = milvus.MilvusServer(wait_for_started=False)
        server.set_base_dir(str(self.base))
        for key in [key for key in server.config_keys if key.endswith("_port")]:
            server.config.set(key, _free_port())
        server.webservice_port = _free_port()
        for key, value in self.settings.items():  # the package writes a dotted key over the yaml's own line
            server.config.set(key, value)
        self._server = server
        # The embedded etcd ignores etcd_port and listens on etcd's fixed defaults (2379, 2380) unless given
        # a config file; a second server on the machine then crashes at start. The file moves both.
        etcd = self.base / "configs" / "embed-etcd.yaml"
        client, peer = f"http://127.0.0.1:{_free_port()}", f"http://127.0.0.1:{_free_port()}"
        etcd.write_text(f"name: default\nlisten-client-urls: {client}\nadvertise-client-urls: {client}\n"
                        f"listen-peer-urls: {peer}\ninitial-advertise-peer-urls: {peer}\n"
                        f"initial-cluster: default={peer}\n", encoding="utf-8")
        saved = os.environ.get("ETCD_CONFIG_PATH")
        os.environ["ETCD_CONFIG_PATH"] = str(etcd)  # the package passes this process's environment on
        try:
            server.start()
        except Exception as exc:
            raise MilvusUnavailable(f"the Milvus server did not start ({type(exc).__name__}: {exc})") from exc
        finally:
            if saved is None:
                os.environ.pop("ETCD_CONFIG_PATH", None)
            else:
                os.environ["ETCD_CONFIG_PATH"] = saved
        health = f"http://127.0.0.1:{server.webservice_port}/healthz"

        def healthy() -> bool:
            try:
                with urllib.request.urlopen(health, timeout=5) as reply:
                    return b"OK" in reply.read()
            except (OSError, urllib.error.URLError):
                return False

        try:  # by the server's state and its own CPU, not the clock (a loaded machine starts it slowly)
            self.readiness = wait_until_ready(healthy, server.server_proc, "the Milvus server", log=self._log_tail,
                                              cpu_budget_s=STARTUP_CPU_SECONDS)
        except NotReady as exc:
            raise MilvusUnavailable(str(exc)) from None
        return f"http://127.0.0.1:{server.listen_port}"

    def _log_tail(self) -> str:
        log = self.base / "logs" / "milvus-stderr.log"
        return log.read_text(errors="replace")[-300:] if log.exists() else "(no log)"

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None
        shutil.rmtree(self.base, ignore_errors=True)
