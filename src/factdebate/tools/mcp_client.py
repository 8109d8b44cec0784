"""An MCP server as a toolset, through the official ``mcp`` SDK (extra ``serve``).

One background task owns the connection (the SDK's transports must be left by the task that entered them);
calls from any task go through its session. Every failure comes back as an error observation, and
``ToolResult.fault`` says when the server itself is gone or hangs."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any, Self

from factdebate.tools.mcp_config import MCPServerConfig
from factdebate.tools.toolset import ToolResult, ToolSchema
from factdebate.util.errors import FactDebateError, MissingDependencyError

CONNECTION_CLOSED = -32000  # the MCP SDK's error code for a transport that ended (mcp.types.CONNECTION_CLOSED)
PING_SECONDS = 5.0  # after a timed-out call, how long a live server has to answer a ping


class MCPToolset:
    def __init__(self, name: str, config: MCPServerConfig) -> None:
        self.name = name
        self.config = config
        self._session: Any = None
        self._runner: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._failure: BaseException | None = None
        self._tools: list[ToolSchema] | None = None

    async def __aenter__(self) -> Self:
        if self._runner is not None:
            return self
        try:
            import mcp  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise MissingDependencyError("mcp", "serve") from exc
        self._ready, self._stop, self._failure = asyncio.Event(), asyncio.Event(), None
        self._runner = asyncio.create_task(self._run(), name=f"mcp:{self.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), self.config.connect_timeout)
        except TimeoutError:
            await self.__aexit__(None, None, None)
            raise FactDebateError(f"MCP server '{self.name}' did not start within "
                                  f"{self.config.connect_timeout:g} s") from None
        if self._failure is not None:
            failure = self._failure
            await self.__aexit__(None, None, None)
            cause = causes(failure)
            if self.config.url is None and "Connection closed" in cause:
                cause += " (the server process ended before the MCP handshake; its own messages went to stderr)"
            raise FactDebateError(f"MCP server '{self.name}' could not be opened: {cause}") from failure
        return self

    async def __aexit__(self, *exc: object) -> None:
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._stop.set()
        try:
            await asyncio.wait_for(runner, 10)
        except (TimeoutError, asyncio.CancelledError):
            runner.cancel()
            with contextlib.suppress(BaseException):
                await runner
        self._session = None

    async def _run(self) -> None:
        import mcp

        try:
            async with self._transport() as streams, mcp.ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                self._session = session
                self._ready.set()
                await self._stop.wait()
        except Exception as exc:  # reported to the opener, or to later calls
            self._failure = exc
        finally:
            self._session = None
            self._ready.set()

    def _transport(self) -> Any:
        import mcp

        if self.config.url is not None:
            from mcp.client.streamable_http import streamable_http_client

            return streamable_http_client(self.config.url)
        params = mcp.StdioServerParameters(command=self.config.command or "", args=self.config.args,
                                           env=self.config.env or None, cwd=self.config.cwd)
        # The process's own stderr, named now: mcp's default is whatever sys.stderr was when mcp was first
        # imported, which may be a capture stream closed since (a notebook cell's, a test's capsys).
        return mcp.stdio_client(params, errlog=sys.__stderr__ or sys.stderr)

    async def list_tools(self) -> list[ToolSchema]:
        if self._tools is None:
            session = self._open_session()
            listed = await asyncio.wait_for(session.list_tools(), self.config.timeout)
            self._tools = [ToolSchema(t.name, t.description or "", dict(t.input_schema)) for t in listed.tools
                           if self.offers(t.name)]
        return self._tools

    def offers(self, name: str) -> bool:
        """Whether the tool is offered: the config's ``tools`` narrows what the server lists."""
        return self.config.tools is None or name in self.config.tools

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        if not self.offers(name):
            return ToolResult(f"{self.name}/{name} is not offered", is_error=True)
        try:
            session = self._open_session()
        except FactDebateError as exc:
            return ToolResult(f"{self.name}/{name} failed: {exc}", is_error=True, fault=str(exc))
        try:
            result = await asyncio.wait_for(session.call_tool(name, arguments), self.config.timeout)
        except TimeoutError:
            text = f"{self.name}/{name} timed out after {self.config.timeout:g} s"
            return ToolResult(text, is_error=True, fault=await self._hangs(session), timed_out=True)
        except Exception as exc:  # transport or protocol failure: an observation, not a crash
            text = f"{self.name}/{name} failed: {exc}"
            return ToolResult(text, is_error=True, fault=_fault(exc))
        text = "\n".join(str(getattr(block, "text", "")) for block in result.content if hasattr(block, "text"))
        return ToolResult(text, is_error=bool(result.is_error), data=result.structured_content)

    async def _hangs(self, session: Any) -> str | None:
        """After a timed-out call: why the server is to be replaced (no ping answered), or ``None``."""
        wait = min(PING_SECONDS, self.config.timeout)
        try:
            await asyncio.wait_for(session.send_ping(), wait)
        except TimeoutError:
            return f"a call timed out after {self.config.timeout:g} s and a ping got no answer within {wait:g} s"
        except Exception as exc:
            return _fault(exc) or f"a ping failed: {exc}"
        return None

    def _open_session(self) -> Any:
        if self._session is None:
            reason = f": {self._failure}" if self._failure else ""
            raise FactDebateError(f"MCP server '{self.name}' is not open{reason}")
        return self._session


def _fault(exc: Exception) -> str | None:
    """Why a failed call means the server is gone, or ``None`` for an error a live server answered with."""
    error = getattr(exc, "error", None)
    code = getattr(error, "code", None)
    if code is None:  # not an answer over MCP: the transport itself failed
        return f"the connection failed: {causes(exc)}"
    return f"the connection closed: {exc}" if code == CONNECTION_CLOSED else None


def causes(exc: BaseException) -> str:
    """What went wrong, without the task groups the SDK wraps it in."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(causes(inner) for inner in exc.exceptions)
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
