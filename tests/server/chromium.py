"""One headless Chromium per pytest-xdist worker, which every browser test of the worker connects to.

Launching Chromium for each test cost about a second of wall time (36 tests did, and each module of page
tests once more). The browser now starts once per worker, on the first test that asks, and each test
connects to it over the DevTools protocol (``connect_over_cdp``): every page a test opens is a new browser
context (``Browser.new_page``), so no cookie, storage or cache passes from one test to the next, and closing
the connection closes them. The connection cannot outlive its test: Playwright's sync API marks the thread's
event loop as running, and a later test's ``asyncio.run`` would refuse to start.

Chromium is launched by Playwright's own browser server (its driver's ``launch-server``), so it runs with
exactly the switches ``chromium.launch()`` gives it (hidden scrollbars, a touch-less pointer, sRGB...: a page
lays out as it did), plus a DevTools port for the tests. Not Playwright's remote protocol
(``chromium.connect``): there, files given to an upload field travel by name, and two ``results.jsonl`` from
different folders became one.

The server dies with its worker (``setpriv --pdeathsig``), stops at the worker's exit, and one that died is
started again by the next test that asks.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.readiness import NotReady, wait_until_ready

CHROMIUM = os.environ.get("FACTDEBATE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# util-linux's setpriv sets the parent-death signal before it runs the server (a preexec_fn would do it in a
# forked copy of a process that has threads), so a worker killed outright does not leave its browser behind.
DIE_WITH_PARENT = ["setpriv", "--pdeathsig", "TERM"] if shutil.which("setpriv") else []


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class WorkerChromium:
    """The worker's Chromium, launched by Playwright's browser server, and its DevTools endpoint."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.folder: Path | None = None
        self.endpoint = ""
        self.problem = ""  # why the last launch failed

    def url(self) -> str:
        """The DevTools endpoint of a running Chromium, started first if there is none or it died."""
        if self.process is None or self.process.poll() is not None:
            self.stop()
            self._start()
        return self.endpoint

    def _start(self) -> None:
        for _ in range(3):  # the DevTools port is picked free here, so another process may take it first
            port = _free_port()
            if self._launch(port):
                self.endpoint = f"http://127.0.0.1:{port}"
                return
            self.stop()
        raise RuntimeError(f"Chromium did not open its DevTools port in 3 tries; the last: {self.problem}")

    def _launch(self, port: int) -> bool:
        from playwright._impl._driver import compute_driver_executable, get_driver_env

        node, cli = compute_driver_executable()
        self.folder = Path(tempfile.mkdtemp(prefix="factdebate-chromium-"))
        config = self.folder / "launch.json"
        config.write_text(json.dumps({"executablePath": CHROMIUM, "headless": True, "host": "127.0.0.1",
                                      "args": [*ARGS, f"--remote-debugging-port={port}"]}), encoding="utf-8")
        printed = self.folder / "server.log"
        with printed.open("wb") as out:
            self.process = subprocess.Popen(
                [*DIE_WITH_PARENT, node, cli, "launch-server", "--browser", "chromium", "--config", str(config)],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=get_driver_env())

        def listening() -> bool:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
            return False

        try:  # by its state and its own CPU, not a clock: a loaded 2-core machine starts it slowly
            wait_until_ready(listening, self.process, "Chromium's DevTools port", log=printed, every_s=0.05)
        except NotReady as exc:
            self.problem = str(exc)
            return False
        return True

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # the server closes its browser on SIGTERM
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        self.process = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


_WORKER = WorkerChromium()
atexit.register(_WORKER.stop)


@contextlib.contextmanager
def connected_chromium() -> Iterator[Any]:
    """A Playwright ``Browser`` connected to the worker's Chromium (skipped where Playwright is not
    installed); the contexts and pages opened through it are closed when the block ends."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    endpoint = _WORKER.url()
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(endpoint)
        try:
            yield browser
        finally:
            browser.close()  # over CDP: closes the contexts this connection made, and disconnects

