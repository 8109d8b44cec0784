"""A third-party-style MCP tool server that fails the way real ones do: ``crash`` ends the process,
``hang`` blocks its event loop (no request is answered again), and ``search_facts`` crashes the process
while the file given as ``--crash-while`` exists. Each start appends its process id to ``--starts``.

Run as ``python tests/methods/mermaid/faulty_mcp_server.py --starts FILE [--crash-while FILE]`` (stdio)."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer

FACTS = {"paris": "Paris is the capital and largest city of France.", "oslo": "Oslo is the capital of Norway."}

parser = argparse.ArgumentParser()
parser.add_argument("--starts", type=Path, required=True)
parser.add_argument("--crash-while", type=Path)
options = parser.parse_args()
with options.starts.open("a", encoding="utf-8") as starts:
    starts.write(f"{os.getpid()}\n")

server = MCPServer("faulty-encyclopedia")


@server.tool(description="Find short facts about a city.")
def search_facts(query: str) -> str:
    if options.crash_while is not None and options.crash_while.exists():
        os._exit(1)
    hits = [fact for key, fact in FACTS.items() if key in query.lower()]
    return " ".join(hits) or "no entry"


@server.tool(description="Ends the server process.")
def crash(query: str) -> str:
    os._exit(1)


@server.tool(description="Blocks the server for an hour.")
async def hang(query: str) -> str:
    time.sleep(3600)  # on the event loop: the whole server stops answering, pings included
    return "late"


if __name__ == "__main__":
    server.run("stdio")
