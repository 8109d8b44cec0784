"""MCP server: an agent or chatbot calls ``verify_claim``, ``search_evidence``, ``check_response`` and
``check_answer`` as tools (server/mcp/tools.py).

Run with ``factdebate mcp`` (stdio) or ``factdebate mcp --http`` (streamable HTTP behind the service's API
keys, server/mcp/http.py), or ``python -m factdebate.server.mcp.server``. The handshake is answered at once:
``factdebate mcp`` answers it before this module is imported (server/mcp/front.py), this module imports only
the MCP SDK, and the tools (which import most of factdebate) are registered and the
built-in index prepared on a thread after the server has started (server/mcp/prepare.py); listing or calling
a tool waits for the registration, about a second. Nothing may be written to stdout but protocol messages,
so logs go to stderr."""

from __future__ import annotations

import argparse
import asyncio
import logging
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, cast

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, JSONRPCError, JSONRPCResponse

from factdebate.facade.core import __version__
from factdebate.facade.scrub import scrub, scrub_value
from factdebate.server.mcp.front import INSTRUCTIONS, SERVER_NAME, Front, started
from factdebate.server.mcp.prepare import Preparation

if TYPE_CHECKING:
    from mcp.server.mcpserver.context import Context
    from mcp.shared._stream_protocols import WriteStream
    from mcp.shared.message import SessionMessage
    from mcp.types import Tool

    from factdebate.server.resources import ResourcePool

logger = logging.getLogger(__name__)
TOOLS_WAIT_S = 120.0  # the registration is imports and a few models: far less, even on a loaded machine
# The server offers tools only: advertising empty prompt and resource lists makes clients show empty menus.
_UNOFFERED = ("prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read",
              "resources/subscribe", "resources/unsubscribe")


class AgentServer(MCPServer):
    """factdebate's MCP server: its version, tools only, and tools that may be registered after start-up
    (listing or calling one waits for them)."""

    def __init__(self) -> None:
        super().__init__(name=SERVER_NAME, version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
        for method in _UNOFFERED:  # the SDK has no switch: a capability is advertised when its handler exists
            self._lowlevel_server._request_handlers.pop(method, None)
        self.tools_ready = threading.Event()
        self.tools_error: str | None = None
        self.index = Preparation()

    async def _tools_registered(self) -> None:
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
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:  # what the client reads of a failure: no secret, no address (util/scrub.py)
            raise ToolError(scrub(str(exc))) from exc
        if isinstance(result, CallToolResult):  # a tool's own answer: its error fields too
            return CallToolResult.model_validate(scrub_value(result.model_dump(by_alias=True, exclude_unset=True)))
        return result

    def prepare_in_background(self, config_file: str | Path | None, allowed_mcp_tools: list[str] | None) -> None:
        """Register the tools, then prepare the built-in index, on a thread; each process searches its own
        copy of a Milvus Lite folder so that several can serve one data folder (docs/service.md)."""

        def work(index: Preparation) -> None:
            from factdebate.server.mcp.tools import prepare_indexes, register_tools
            from factdebate.server.resources import ResourcePool

            pool = ResourcePool(size=4, lite_copies=True)
            try:
                resolver = register_tools(self, config_file, pool, allowed_mcp_tools, index=index)
            except BaseException as exc:
                self.tools_error = scrub(str(exc)) or type(exc).__name__
                raise
            finally:
                self.tools_ready.set()
            prepare_indexes(resolver.base, pool, index)

        self.index.start(work)


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


def __getattr__(name: str) -> Any:
    """The tools' helpers under their former address (they moved to mcp_tools.py with the tools)."""
    if name in {"MAX_QUERY_CHARS", "EXCERPT_CHARS", "summarize", "summarize_response", "summarize_answer",
                "describe_errors"}:
        from factdebate.server.mcp import tools as mcp_tools

        return getattr(mcp_tools, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_stdio(config_file: str | Path | None = None, allowed_mcp_tools: list[str] | None = None) -> None:
    from factdebate.server.tool_allowlist import check_allow_entry

    allowed_mcp_tools = [check_allow_entry(entry) for entry in allowed_mcp_tools or []]  # a typo stops it here
    server = AgentServer()
    server.prepare_in_background(config_file, allowed_mcp_tools)
    front = started()
    if front is None:
        server.run("stdio")
    else:
        anyio.run(_serve_after_front, server, front)


async def _serve_after_front(server: AgentServer, front: Front) -> None:
    """As ``MCPServer.run_stdio_async``, reading every line the front read (those it answered included); the
    SDK's answers to those are left out."""
    from mcp.server.stdio import stdio_server

    stdin = anyio.wrap_file(cast("IO[str]", front.replay()))
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
        lowlevel = server._lowlevel_server
        await lowlevel.run(read_stream, _WithoutSecondAnswer(write_stream, front),
                           lowlevel.create_initialization_options())


class _WithoutSecondAnswer:
    """The SDK's write stream, less its answers to the requests the front already answered (a handshake, an early
    ``tools/list``, a request refused before the handshake): each left out once, matched by id and kind
    (mcp_front.answer_kind), so an answer to a later request that reuses the id still goes out. The SDK's
    result should equal the front's (tests/server/mcp/test_mcp_front.py); a difference is logged."""

    def __init__(self, inner: WriteStream[SessionMessage], front: Front) -> None:
        self._inner = inner
        self._front = front

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id in self._front.answered:
            ours = message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            left_out, early = self._front.leave_out(ours)
            if left_out:
                if "result" in ours and ours["result"] != early:
                    logger.warning("an answer the front gave early differs from the MCP SDK's: %s", ours)
                return
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WithoutSecondAnswer:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                        exc_tb: TracebackType | None) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m factdebate.server.mcp.server", description=__doc__)
    parser.add_argument("--config", "-c", help="verification settings YAML")
    parser.add_argument("--allow-mcp-tool", action="append", default=[], metavar="mcp:SERVER/TOOL")
    args = parser.parse_args(argv)
    run_stdio(args.config, args.allow_mcp_tool)


if __name__ == "__main__":
    main()
