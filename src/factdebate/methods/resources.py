"""What every method gets: a model per role, tools, the text encoder, settings, and long-lived services with
an async lifecycle; everything heavy is built on first use."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from factdebate.embeddings import TextEncoder
from factdebate.llm.model import LLM
from factdebate.tools.base import Tool

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings

T = TypeVar("T")


class Services:
    """Named long-lived objects, built once, opened (``aopen()``) when first asked for, closed in reverse."""

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}
        self._lock = asyncio.Lock()

    async def get(self, name: str, factory: Callable[[], T]) -> T:
        async with self._lock:
            if name not in self._items:
                item = factory()
                opener = getattr(item, "aopen", None)
                if opener is not None:
                    await opener()
                self._items[name] = item
            return self._items[name]

    def __contains__(self, name: str) -> bool:
        return name in self._items

    async def aclose(self) -> None:
        items, self._items = list(self._items.values()), {}
        for item in reversed(items):
            closer = getattr(item, "aclose", None)
            if closer is not None:
                result = closer()
                if inspect.isawaitable(result):
                    await result


@dataclass(frozen=True)
class RunScope:
    """The run a claim belongs to and where a method may keep its state: files ``<prefix><name>`` in
    ``folder``, beside the run's results."""

    folder: Path
    prefix: str = ""

    @classmethod
    def of_results(cls, results: Path) -> RunScope:
        """A batch's scope: files beside its results file, named after it."""
        return cls(results.parent, f"{results.stem}.")

    def file(self, name: str) -> Path:
        return self.folder / f"{self.prefix}{name}"


@dataclass
class Resources:
    settings: RunSettings
    llm_factory: Callable[[str], LLM]
    encoder_factory: Callable[[], TextEncoder]
    tool_factory: Callable[[str], Tool]
    services: Services = field(default_factory=Services)
    # The evaluation or batch these resources serve (None: single claims, the service), and what the method
    # said about its state for that run when it was started (Method.start_run; None: not started yet).
    run: RunScope | None = None
    run_state: dict[str, Any] | None = None
    _llms: dict[str, LLM] = field(default_factory=dict)
    _tools: dict[str, Tool] = field(default_factory=dict)
    _encoder: TextEncoder | None = None
    # Concurrent claims of a batch prepare their tools in worker threads: build each tool once. Re-entrant:
    # a tool's factory may ask for a model (the scholarly pipeline writes with the debater's).
    _lock: threading.RLock = field(default_factory=threading.RLock)
    # What aclose() ends besides the services: the model clients these resources built (an HTTP client left
    # open past its event loop printed "Event loop is closed" tracebacks at exit)
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    def llm(self, role: str) -> LLM:
        """The model bound to ``role`` (``llm.roles``, else the debater's); usage is counted per role."""
        with self._lock:
            if role not in self._llms:
                self._llms[role] = self.llm_factory(role)
            return self._llms[role]

    @property
    def debater(self) -> LLM:
        return self.llm("debater")

    @property
    def judge(self) -> LLM:
        return self.llm("judge")

    @property
    def scorer(self) -> LLM:
        return self.llm("scorer")

    def tool(self, kind: str) -> Tool:
        """``rag`` or ``search`` (the configured search engine)."""
        with self._lock:
            if kind not in self._tools:
                self._tools[kind] = self.tool_factory(kind)
            return self._tools[kind]

    def built(self, kinds: Iterable[str]) -> bool:
        """Whether every tool of ``kinds`` is built already (asking for it again only looks it up)."""
        return all(kind in self._tools for kind in kinds)

    @property
    def encoder(self) -> TextEncoder:
        if self._encoder is None:
            self._encoder = self.encoder_factory()
        return self._encoder

    async def service(self, name: str, factory: Callable[[], T]) -> T:
        return await self.services.get(name, factory)

    async def aclose(self) -> None:
        closers, self.closers = self.closers, []
        for close in closers:
            await close()
        await self.services.aclose()

    async def __aenter__(self) -> Resources:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()
