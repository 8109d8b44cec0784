"""How long the official MCP Python SDK's default client takes to connect to ``factdebate mcp``.

``mcp.Client(StdioServerParameters(...))`` opens with the 2026 protocol's ``server/discover`` (not ``initialize``),
which the SDK's server answers once it is loaded. Each run starts the console script (.venv/bin/factdebate
mcp) on an empty data folder with the scripted model, and measures:

* ``connect_s``: from starting the process to ``async with mcp.Client(...)`` having connected;
* ``tools_s``: to the answer to the first ``list_tools`` (once the tools are registered);
* ``server_cpu_s``: the user and system time the server's processes had used when the client had connected
  (/proc/PID/stat of this process's descendants): on a busy machine the wall time is mostly waiting for a core,
  and this figure says how much was work.

Also prints the machine's 1-minute load average before and after, so that a figure is read with its load.

Run: ``.venv/bin/python benchmarks/mcp_sdk_connect.py [--runs 5]``. Prints one line per run and a summary line
(medians, and the slowest connect). The server writes "interrupted" to stderr (inherited) each time the client
closes it: its command line's word for being stopped, not a failure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def _descendants_cpu_s(root: int) -> float:
    """User + system CPU seconds of every live process below ``root`` (the server and anything it started)."""
    parents: dict[int, int] = {}
    spent: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after the command's name, which may hold spaces
        parents[int(entry.name)] = int(fields[1])
        spent[int(entry.name)] = (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
    total = 0.0
    for pid, seconds in spent.items():
        parent = parents.get(pid)
        while parent not in (None, 0, 1, root):
            parent = parents.get(parent)
        if parent == root and pid != root:
            total += seconds
    return total


def _command() -> list[str]:
    # the console script as installed (cli/launch.py), as an agent's config names it
    script = ROOT / ".venv" / "bin" / "factdebate"
    return [str(script), "mcp"] if script.exists() else [sys.executable, "-m", "factdebate.cli.launch", "mcp"]


async def connect_once(data: Path) -> tuple[float, float, float, str]:
    import mcp

    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(data), "FACTDEBATE_LLM": "scripted:agree",
           "FACTDEBATE_SEARCH": "local", "FACTDEBATE_METHODS__TOOL_MAD__AGENTS": "[none, none]"}
    command = _command()
    params = mcp.StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(ROOT))
    started = time.perf_counter()
    async with mcp.Client(params) as client:
        connected = time.perf_counter() - started
        cpu = _descendants_cpu_s(os.getpid())
        await client.list_tools()
        listed = time.perf_counter() - started
        version = str(client.protocol_version)
    return connected, listed, cpu, version


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    connects, lists, cpus = [], [], []
    for run in range(args.runs):
        data = Path(tempfile.mkdtemp(prefix="factdebate-mcp-connect-"))
        try:
            connected, listed, cpu, version = asyncio.run(connect_once(data))
        finally:
            shutil.rmtree(data, ignore_errors=True)
        connects.append(connected)
        lists.append(listed)
        cpus.append(cpu)
        print(f"run={run + 1} protocol={version} connect_s={connected:.3f} tools_s={listed:.3f} "
              f"server_cpu_s={cpu:.2f}", flush=True)
    print(f"runs={args.runs} connect_s_median={statistics.median(connects):.3f} connect_s_max={max(connects):.3f} "
          f"tools_s_median={statistics.median(lists):.3f} server_cpu_s_median={statistics.median(cpus):.2f} "
          f"load_before={load_before:.2f} load_after={os.getloadavg()[0]:.2f} cores={os.cpu_count()}")


if __name__ == "__main__":
    main()
