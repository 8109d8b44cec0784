"""``factdebate mcp-tools wikipedia|search|scholar`` (and ``python -m factdebate.toolservers``): run one of
factdebate's MCP tool servers over stdio. The tool servers own this command; the CLI only registers it.

Only protocol messages may go to stdout, so index building and logs report on stderr."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from factdebate.util.errors import ConfigError, MissingDependencyError

Opt = typer.Option


class ServerName(StrEnum):
    wikipedia = "wikipedia"
    search = "search"
    scholar = "scholar"


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def mcp_tools(
    name: Annotated[ServerName, typer.Argument(help="Which tool server: wikipedia, search or scholar.")],
    online: Annotated[bool, Opt("--online/--offline", help="wikipedia: the live MediaWiki API instead of the "
                                                           "indexed corpus.")] = False,
    engines: Annotated[str | None, Opt(help="wikipedia offline: local,rag (default both); search: local,tavily "
                                            "(default local, plus tavily when TAVILY_API_KEY is set).")] = None,
    search_before: Annotated[str | None, Opt(help="Leakage control for every call: evidence before this date "
                                                  "(YYYY-MM-DD) only, where the engine can tell.")] = None,
    exclude_domains: Annotated[str | None, Opt(help="Leakage control: comma-separated domains to drop.")] = None,
    exclude_fact_checkers: Annotated[bool, Opt("--exclude-fact-checkers",
                                               help="Drop results from the built-in list of fact-checking "
                                                    "sites (factdebate docs "
                                                    "methods/mermaid-tools#leakage-controls).")] = False,
    config: Annotated[Path | None, Opt("--config", "-c", help="Settings YAML (corpus, Milvus URI...).")] = None,
) -> None:
    """Serve factdebate's evidence tools to an agent over MCP (stdio)."""
    try:
        from factdebate.toolservers.serve import run
    except ImportError as exc:
        raise MissingDependencyError(exc.name or "mcp", "serve") from exc
    from factdebate.tools.leakage import LeakagePolicy, parse_day

    policy = LeakagePolicy(parse_day(search_before), tuple(_split(exclude_domains)), exclude_fact_checkers)
    chosen = _split(engines)
    if online and name != ServerName.wikipedia:
        raise ConfigError("--online only applies to the wikipedia server (the others are online already)")
    run(name.value, policy=policy, online=online, engines=chosen or None, config=config)


def register_mcp_tools(app: typer.Typer) -> None:
    app.command("mcp-tools")(mcp_tools)
