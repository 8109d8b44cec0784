"""The console script. ``factdebate mcp`` over stdio with only ``--config`` and ``--allow-mcp-tool`` starts the
MCP server without loading the command line (a fifth of what a client waits for); everything else runs
through cli/main.py."""

from __future__ import annotations

import sys
from importlib.util import find_spec

_STDIO_OPTIONS = {"--config": "config", "-c": "config", "--allow-mcp-tool": "allow"}


def stdio_mcp(args: list[str]) -> tuple[str | None, list[str]] | None:
    """The settings file and allowed MCP tools when ``args`` ask for ``mcp`` over stdio alone, else None."""
    if args[:1] != ["mcp"]:
        return None
    config: str | None = None
    allowed: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        name, equals, value = arg.partition("=")
        option = _STDIO_OPTIONS.get(name)
        if option is None or (equals and name == "-c"):  # click reads "-c=x" as the value "=x": its own way
            return None
        if not equals:
            value = next(rest, "")
            if not value:
                return None  # a missing value: the command line says so
        if option == "config":
            config = value
        else:
            allowed.append(value)
    return config, allowed


def _serve_stdio(config: str | None, allowed: list[str]) -> int:
    """``factdebate mcp`` as the command line runs it: Ctrl-C and SIGTERM end it with "interrupted" and 130."""
    from factdebate.cli.exits import INTERRUPTED, OK, USAGE
    from factdebate.cli.interrupts import terminate_as_interrupt, was_interrupted
    from factdebate.server.mcp.server import run_stdio
    from factdebate.settings.config_file import check_named
    from factdebate.util.errors import ConfigError

    try:
        check_named(config)  # as the command line says it: one line, exit 2
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE
    terminate_as_interrupt()
    try:
        run_stdio(config, allowed)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    if was_interrupted():
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    return OK


def main() -> None:
    stdio = stdio_mcp(sys.argv[1:])
    if stdio is not None and find_spec("mcp") is not None:
        from factdebate.server.tool_allowlist import check_allow_entry

        try:
            allowed = [check_allow_entry(entry) for entry in stdio[1]]
        except ValueError:
            pass  # the command line refuses it in its words
        else:
            sys.exit(_serve_stdio(stdio[0], allowed))
    from factdebate.cli.main import main as run

    run()


if __name__ == "__main__":
    main()
