"""MCP server: an agent or chatbot calls ``verify_claim``, ``search_evidence``, ``check_response`` and
``check_answer`` as tools (server/mcp/tools.py).

Run with ``factdebate mcp`` (stdio) or ``factdebate mcp --http`` (streamable HTTP behind the service's API
keys, server/mcp/http.py), or ``python -m factdebate.server.mcp.server``. The MCP SDK answers the handshake, and
answers it soon: this module imports only the SDK (the console script loads it without the command line,
cli/launch.py), and the tools, which import most of factdebate, are registered and the built-in index prepared
on a thread once the first request has been answered (server/mcp/prepare.py), so the imports do not compete
with the handshake for the interpreter; listing or calling a tool waits for the registration, about a second.
Nothing may be written to stdout but protocol messages, so logs go to stderr."""

from __future__ import annotations

import argparse
import asyncio
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, CallToolResult
from pydantic import ValidationError

from factdebate.server.mcp.prepare import Preparation
from factdebate.server.mcp.results import describe_errors
from factdebate.server.mcp.stdio_lines import TOO_LONG, bound_stdin_lines
from factdebate.server.scrub_responses import scrub_value
from factdebate.util.scrub import hide_endpoints
from factdebate.util.version import __version__

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.mcpserver.context import Context
    from mcp.types import Tool

    from factdebate.engine import ResourcePool

logger = logging.getLogger(__name__)
SERVER_NAME = "factdebate"
INSTRUCTIONS = ("Check factual claims. check_answer checks your own reply before you send it, within a deadline: "
                "per claim its label, its span in the reply, the evidence quotes and a correction for what is "
                "refuted. verify_claim runs a debate between retrieval agents and returns a label (SUPPORTS, "
                "REFUTES or NOT ENOUGH INFO) with the evidence and reasoning; search_evidence returns passages "
                "for a query without judging anything; check_response checks a long answer claim by claim with "
                "the full method. The checks take the passages you already have as evidence "
                "([{title, text, url}]), read before (evidence_mode both) or instead of (given) retrieval.")
TOOLS_WAIT_S = 120.0  # the registration is imports and a few models: far less, even on a loaded machine
# The server offers tools only: advertising empty prompt and resource lists makes clients show empty menus.
_UNOFFERED = ("prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read",
              "resources/subscribe", "resources/unsubscribe")
# The capabilities the SDK advertises for the methods above (it derives them from its handlers), left out.
_UNOFFERED_CAPABILITIES = ("prompts", "resources")
# What a client reads of a tool request sent before ``initialize``: the SDK's own refusal does not say why.
NOT_INITIALIZED = ("the connection is not initialized: send initialize first (MCP's handshake, answered at once), "
                   "then notifications/initialized, then your requests")


class AgentServer(MCPServer):
    """factdebate's MCP server: its version, tools only, and tools that may be registered after start-up
    (listing or calling one waits for them)."""

    def __init__(self) -> None:
        super().__init__(name=SERVER_NAME, version=__version__, instructions=INSTRUCTIONS, log_level="WARNING",
                         middleware=[_InWords(self)])
        self.tools_ready = threading.Event()
        self.tools_error: str | None = None
        self.index = Preparation()
        self._deferred: Callable[[], None] | None = None

    async def _tools_registered(self) -> None:
        self.start_deferred()  # a client that lists tools first need not wait for a request to end
        end = time.monotonic() + TOOLS_WAIT_S
        while not self.tools_ready.is_set() and time.monotonic() < end:
            await asyncio.sleep(0.02)
        if self.tools_error is not None or not self.tools_ready.is_set():
            raise ToolError(f"the tools could not be set up: {self.tools_error or 'timed out'}")

    async def list_tools(self) -> list[Tool]:
        await self._tools_registered()
        return await super().list_tools()

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> Any:
        await self._tools_registered()
        try:
            await self._refuse_unknown_arguments(name, arguments)
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:  # what the client reads of a failure: no secret, no address (util/scrub)
            cause = exc.__cause__
            if isinstance(cause, ValidationError):  # the SDK's check of the arguments: one line, as the tools say it
                raise ToolError(hide_endpoints(f"invalid arguments: {describe_errors(cause)}")) from cause
            # the tool's own sentence, as the command line says it: without the SDK's "Error executing tool X: "
            raise ToolError(hide_endpoints(str(exc).removeprefix(f"Error executing tool {name}: "))) from exc
        if isinstance(result, CallToolResult):  # a tool's own answer: its error fields too
            return CallToolResult.model_validate(scrub_value(result.model_dump(by_alias=True, exclude_unset=True)))
        return result

    async def _refuse_unknown_arguments(self, name: str, arguments: dict[str, Any]) -> None:
        """An argument the tool does not take is refused: the SDK would drop it silently, and an agent that
        misspells ``evidence`` would get a check without its passages."""
        tool = next((t for t in await super().list_tools() if t.name == name), None)
        known = (tool.input_schema.get("properties") or {}) if tool is not None else {}
        if unknown := sorted(set(arguments) - set(known)) if tool is not None else []:
            raise ToolError("invalid arguments: " + "; ".join(f"{a}: Extra inputs are not permitted" for a in unknown))

    def prepare_in_background(self, config_file: str | Path | None, allowed_mcp_tools: list[str] | None, *,
                              after_first_request: bool = False) -> None:
        """Register the tools, then prepare the built-in index, on a thread; each process searches its own
        copy of a Milvus Lite folder so that several can serve one data folder (docs/service.md).
        ``after_first_request``: start once the first request (the handshake) has been answered, so that the
        thread's imports do not hold the interpreter while the handshake is answered."""

        def work(index: Preparation) -> None:
            from factdebate.engine import ResourcePool
            from factdebate.server.mcp.tools import prepare_indexes, register_tools

            pool = ResourcePool(size=4, lite_copies=True)
            try:
                resolver = register_tools(self, config_file, pool, allowed_mcp_tools, index=index)
            except BaseException as exc:
                self.tools_error = hide_endpoints(str(exc)) or type(exc).__name__
                raise
            finally:
                self.tools_ready.set()
            prepare_indexes(resolver.base, pool, index)

        self._deferred = lambda: self.index.start(work)
        if not after_first_request:
            self.start_deferred()

    def start_deferred(self) -> None:
        """Start the preparation held back by ``prepare_in_background`` (once; nothing when none is held)."""
        deferred, self._deferred = self._deferred, None
        if deferred is not None:
            deferred()


class _InWords:
    """Middleware: tools only (the prompt and resource methods refused, their capabilities not advertised); a tool
    request sent before the handshake refused in a sentence a person can act on (the SDK's code); and, once any
    request has been answered, the held-back preparation started."""

    def __init__(self, server: AgentServer) -> None:
        self._server = server

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == TOO_LONG:  # the stand-in for a request line dropped as too long (stdio_lines.py)
            said = (ctx.params or {}).get("said")
            raise MCPError(code=INVALID_REQUEST, message=str(said or "the request line was too long: dropped"))
        if ctx.method in _UNOFFERED:
            raise MCPError(code=METHOD_NOT_FOUND, message="Method not found", data=ctx.method)
        try:
            result = await call_next(ctx)
        except MCPError as exc:
            # The SDK's gate refuses a tool request on a connection that has not sent ``initialize`` (no client
            # parameters recorded) with a generic "invalid parameters"; the code stays, the words say why.
            if exc.code == INVALID_PARAMS and ctx.method in ("tools/list", "tools/call") \
                    and ctx.session.client_params is None:
                raise MCPError(code=INVALID_PARAMS, message=NOT_INITIALIZED) from None
            raise
        finally:
            if ctx.request_id is not None:
                self._server.start_deferred()
        if ctx.method in ("initialize", "server/discover") and isinstance(result, dict):
            capabilities = result.get("capabilities", {})
            result = {**result, "capabilities": {k: v for k, v in capabilities.items()
                                                 if k not in _UNOFFERED_CAPABILITIES}}
        return result


def build_server(config_file: str | Path | None = None, pool: ResourcePool | None = None,
                 allowed_mcp_tools: list[str] | None = None) -> AgentServer:
    """The server with its tools registered now and nothing prepared (the built-in index is built on first
    use, as for the library). ``allowed_mcp_tools``: the operator's MCP servers and tools this server's
    callers may reach (as the service's setting of that name); none by default, so MERMAID uses only the
    shipped tool servers."""
    from factdebate.server.mcp.tools import register_tools

    server = AgentServer()
    register_tools(server, config_file, pool, allowed_mcp_tools)
    server.index = Preparation.finished()
    server.tools_ready.set()
    return server


def run_stdio(config_file: str | Path | None = None, allowed_mcp_tools: list[str] | None = None) -> None:
    if allowed_mcp_tools:
        from factdebate.server.tool_allowlist import check_allow_entry

        allowed_mcp_tools = [check_allow_entry(entry) for entry in allowed_mcp_tools]  # a typo stops it here
    server = AgentServer()
    server.prepare_in_background(config_file, allowed_mcp_tools, after_first_request=True)
    bound_stdin_lines()
    server.run("stdio")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m factdebate.server.mcp.server", description=__doc__)
    parser.add_argument("--config", "-c", help="verification settings YAML")
    parser.add_argument("--allow-mcp-tool", action="append", default=[], metavar="mcp:SERVER/TOOL")
    args = parser.parse_args(argv)
    run_stdio(args.config, args.allow_mcp_tool)


if __name__ == "__main__":
    main()
