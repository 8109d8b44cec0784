"""The offline quick start of docs/ways/proxy.md, run as the page prints it: its one bash block (the stand-in
upstream, ``factdebate serve`` in front of it, the wait for ``/v1/health`` and the curl) by bash, with its ports
(9000 and 8000) moved to free ones, since other servers may hold those. tests/server/guard/test_stand_in.py runs
it on a scripted checker and on the offline model; benchmarks/guard_first_runs.py times it."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.paths import ROOT
from tests.readiness import Readiness, wait_until_ready

PAGE = ROOT / "docs" / "ways" / "proxy.md"
EXE = str(Path(sys.executable).with_name("factdebate"))
SAYS = "The Eiffel Tower was finished in 1899. It stands in Paris."
FALSE = "The Eiffel Tower was finished in 1899."
# What the default policy (flag) writes under a claim it refuted or could not check (guard_engine/policy.py).
MARKS = ("is contradicted by the evidence", "could not be checked")
NOTES = "\n\n---\nFact check:\n"


def quick_start() -> str:
    """The page's offline quick start: its one bash block that starts the stand-in."""
    blocks = re.findall(r"```bash\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    found = [block for block in blocks if "stand-in-upstream" in block]
    assert len(found) == 1, "docs/ways/proxy.md should print one offline quick start"
    return found[0]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def on_free_ports(block: str) -> str:
    """The block with the stand-in's port 9000 and the service's 8000 moved to free ones."""
    model, service = _free_port(), _free_port()
    assert block.count(":9000") == 1 and "--port 9000" in block and block.count("localhost:8000") == 2
    moved = block.replace("--port 9000", f"--port {model}").replace(":9000", f":{model}")
    moved = moved.replace("localhost:8000", f"localhost:{service}")
    return moved.replace("factdebate serve ", f"factdebate serve --port {service} ", 1)


def reader_env(**extra: str) -> dict[str, str]:
    """The environment of a reader's shell: factdebate and curl on PATH, no service keys, no model named."""
    env = {k: v for k, v in os.environ.items() if k not in ("FACTDEBATE_API_KEYS", "FACTDEBATE_LLM")}
    return {**env, "PATH": f"{Path(EXE).parent}{os.pathsep}{env['PATH']}", **extra}


def run_quick_start(folder: Path, env: dict[str, str]) -> tuple[dict[str, Any], str, Readiness]:
    """Run the block in ``folder`` by bash, in a session of its own that is ended with everything it started
    (the stand-in and the service it leaves running); the reply it printed, its stderr and its wall and CPU
    seconds. Waited for by its CPU, not the clock (tests/readiness.py)."""
    (folder / "quick-start.sh").write_text(on_free_ports(quick_start()), encoding="utf-8")
    out, err = folder / "stdout.txt", folder / "stderr.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(["bash", "quick-start.sh"], cwd=folder, env=env, stdout=stdout, stderr=stderr,
                                   start_new_session=True)  # the servers it starts with & stay in its group
    try:
        took = wait_until_ready(lambda: process.poll() is not None, process, "the offline quick start",
                                every_s=0.5, cpu_budget_s=3600, log=lambda: err.read_text(errors="replace"))
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    printed = out.read_text(encoding="utf-8")
    reply = next((json.loads(line) for line in printed.splitlines() if line.startswith("{")), None)
    said = err.read_text(errors="replace")
    assert reply is not None, f"no reply printed:\n{printed[-2000:]}\n{said[-3000:]}"
    return reply, said, took


def marked(content: str) -> str | None:
    """The default policy's footnote on the 1899 sentence, if the text the client receives carries one."""
    notes = content.split(NOTES, 1)
    return next((line for line in notes[1].splitlines() if FALSE in line and any(mark in line for mark in MARKS)),
                None) if len(notes) == 2 else None


def installed_data_folder() -> Path:
    """The data folder ``factdebate setup`` filled: the default one, whatever a test set."""
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "factdebate"


def offline_data_folder(target: Path, installed: Path) -> Path:
    """A data folder as ``factdebate setup`` leaves one: ``installed``'s models linked in and its full-text index
    copied, and nothing else (no cache of earlier answers, no service state)."""
    (target / "models").mkdir(parents=True)
    for model in (installed / "models").iterdir():
        if not model.name.startswith("."):
            (target / "models" / model.name).symlink_to(model)
    for part in ("tantivy", "indexed.json"):
        if (installed / part).is_dir():
            shutil.copytree(installed / part, target / part)
        elif (installed / part).exists():
            shutil.copy(installed / part, target / part)
    return target
