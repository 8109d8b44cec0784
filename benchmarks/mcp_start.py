"""What an agent waits for when it starts ``factdebate mcp``, and what sharing one data folder costs.

* ``initialize_s``: from starting ``factdebate mcp`` as its console script does (cli/launch.py; an empty data
  folder, the scripted model) to the MCP SDK's answer to ``initialize`` (``mcp.ClientSession``);
  ``tools_s``: to the answer to ``tools/list``, which waits for the tools to be registered;
  ``connect_s``: from starting it to the SDK's default client (``mcp.Client``, which opens with the 2026
  protocol's ``server/discover``) having connected; the median of ``--runs`` starts each.
  ``start_cpu_s``: the CPU time of importing what the process loads before it answers (Python's start
  included: the console script and the MCP server module, which loads the SDK), the median of as many runs.
* ``lite_copy_s`` / ``lite_mb``: each MCP process searches its own copy of the Milvus Lite folder (Milvus Lite
  serves one process per folder): the copy of a folder the built-in corpus's size (10,033 passages of 384
  float dimensions, random vectors and texts of the corpus's mean length), and its size;
  ``lite_open_search_s``: opening the copy and the first search.

Run: ``python benchmarks/mcp_start.py [--runs 5] [--passages 10033] [--no-lite]``. Prints one ``key=value`` line,
with the machine's 1-minute load average before and after: on a loaded machine the wall times are mostly
waiting for a core, and the CPU figure says how much was work.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MEAN_TEXT_CHARS = 420  # the built-in corpus's summaries, title and extract, on average (rounded)


def _params(data: Path) -> Any:
    import mcp

    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(data), "FACTDEBATE_LLM": "scripted:agree",
           "FACTDEBATE_SEARCH": "local", "FACTDEBATE_METHODS__TOOL_MAD__AGENTS": "[none, none]"}
    return mcp.StdioServerParameters(command=sys.executable, args=["-m", "factdebate.cli.launch", "mcp"], env=env,
                                     cwd=str(ROOT))


async def start_once(data: Path) -> tuple[float, float]:
    import mcp

    params = _params(data)
    started = time.perf_counter()
    async with mcp.stdio_client(params, errlog=open(os.devnull, "w")) as (read, write), \
            mcp.ClientSession(read, write) as session:
        await session.initialize()
        initialized = time.perf_counter() - started
        await session.list_tools()
        listed = time.perf_counter() - started
    return initialized, listed


async def connect_once(data: Path) -> float:
    import mcp

    params = _params(data)
    started = time.perf_counter()
    async with mcp.Client(params) as client:
        connected = time.perf_counter() - started
        assert client.protocol_version == "2026-07-28", client.protocol_version  # discover, not the fallback
    return connected


def start_cpu(runs: int) -> float:
    """CPU-seconds (user + system) of a Python that imports what the console script loads before it can answer
    the handshake: the figure a loaded machine inflates least."""
    spent = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", "import factdebate.cli.launch, factdebate.server.mcp.server"],
                       check=True, cwd=ROOT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(spent)


def lite_copy(passages: int, folder: Path) -> dict[str, float]:
    from pymilvus import DataType, MilvusClient

    source = folder / "milvus.db"
    client = MilvusClient(str(source))
    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=64)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=384)
    schema.add_field("text", DataType.VARCHAR, max_length=8192)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="AUTOINDEX", metric_type="COSINE")
    client.create_collection("passages", schema=schema, index_params=index)
    rng = random.Random(0)
    for start in range(0, passages, 1000):
        client.insert("passages", [{"id": str(i), "vector": [rng.random() for _ in range(384)],
                                    "text": "x" * MEAN_TEXT_CHARS} for i in range(start, min(passages, start + 1000))])
    client.close()
    started = time.perf_counter()
    target = folder / "copy" / "milvus.db"
    shutil.copytree(source, target)
    copied = time.perf_counter() - started
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file()) / 2**20
    started = time.perf_counter()
    reader = MilvusClient(str(target))
    reader.load_collection("passages")
    reader.search("passages", data=[[0.5] * 384], limit=5, search_params={"metric_type": "COSINE"})
    opened = time.perf_counter() - started
    reader.close()
    return {"lite_copy_s": copied, "lite_mb": size, "lite_open_search_s": opened}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--passages", type=int, default=10_033)
    parser.add_argument("--no-lite", action="store_true", help="skip the Milvus Lite copy's figures")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    starts, connects = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as data:
            starts.append(asyncio.run(start_once(Path(data))))
        with tempfile.TemporaryDirectory() as data:
            connects.append(asyncio.run(connect_once(Path(data))))
    figures = {"initialize_s": statistics.median(s[0] for s in starts),
               "tools_s": statistics.median(s[1] for s in starts), "connect_s": statistics.median(connects),
               "start_cpu_s": start_cpu(args.runs)}
    if not args.no_lite:
        with tempfile.TemporaryDirectory() as folder:
            figures |= lite_copy(args.passages, Path(folder))
    print(" ".join(f"{key}={value:.2f}" for key, value in figures.items())
          + f" load_before={load_before:.1f} load_after={os.getloadavg()[0]:.1f} cores={os.cpu_count()}")


if __name__ == "__main__":
    main()
