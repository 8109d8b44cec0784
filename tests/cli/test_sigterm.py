"""SIGTERM to a factdebate command is an interrupt: the async contexts unwind, so a child process it started
(MERMAID's tool servers under ``reproduce mermaid``) is stopped, not left running. Real
processes: the command stands in as a Python process with the CLI's handler and one child, stopped by the
same ``finally`` an MCP client's context runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

PARENT = """
import asyncio, sys
from factdebate.cli.main import terminate_as_interrupt
if sys.argv[1] == "handled":
    terminate_as_interrupt()
async def main():
    child = await asyncio.create_subprocess_exec(sys.executable, "-c", "import time; time.sleep(60)")
    try:
        print(child.pid, flush=True)  # inside the try: the signal may come as soon as the pid is read
        await child.wait()
    finally:
        child.terminate()
        await child.wait()
try:
    asyncio.run(main())
except KeyboardInterrupt:
    sys.exit(130)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize(("mode", "child_left"), [("handled", False), ("default", True)])
def test_sigterm_stops_the_commands_children(mode: str, child_left: bool) -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT, mode], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    parent.send_signal(signal.SIGTERM)
    code = parent.wait(timeout=20)
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline and not child_left:
        time.sleep(0.05)
    try:
        assert alive(child) is child_left
        assert code == (130 if mode == "handled" else -signal.SIGTERM)
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)
