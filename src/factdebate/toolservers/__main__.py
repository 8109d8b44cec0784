"""``python -m factdebate.toolservers NAME [options]``: the same as ``factdebate mcp-tools``."""

import sys

import typer

from factdebate.toolservers.command import mcp_tools
from factdebate.util.errors import FactDebateError

if __name__ == "__main__":
    app = typer.Typer(add_completion=False)
    app.command()(mcp_tools)
    try:
        app(standalone_mode=False)
    except FactDebateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
