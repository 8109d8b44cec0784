"""The console script. ``factdebate mcp`` over stdio starts answering the MCP handshake before the command line
and the MCP SDK load (server/mcp/front.py: about a second of imports that an MCP client would otherwise wait
through); every command then runs as cli/main.py parses it."""

from __future__ import annotations

import sys
from importlib.util import find_spec

_NOT_STDIO_MCP = frozenset({"--http", "--help", "-h"})  # HTTP, or help on stdout: no handshake to answer


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["mcp"] and not _NOT_STDIO_MCP & set(args[1:]) and find_spec("mcp") is not None:
        from factdebate.server.mcp.front import start

        start()
    from factdebate.cli.main import main as run

    run()


if __name__ == "__main__":
    main()
