"""What every method gets (models per role, tools, encoder, settings) and the registry of methods."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from factdebate.config import Settings
from factdebate.errors import ConfigError
from factdebate.llm.model import LLM
from factdebate.scoring.relevance import TextEncoder
from factdebate.tools.base import Tool
from factdebate.types import Verdict


@dataclass
class Resources:
    """Everything a method may use. Tools are built lazily by ``tool_factory`` so a method that needs no
    retrieval never opens an index."""

    settings: Settings
    debater: LLM
    judge: LLM
    scorer: LLM
    encoder_factory: Callable[[], TextEncoder]
    tool_factory: Callable[[str], Tool]
    _tools: dict[str, Tool] = field(default_factory=dict)
    _encoder: TextEncoder | None = None
    # Concurrent claims of a batch prepare their tools in worker threads: build each tool once.
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def tool(self, kind: str) -> Tool:
        """``rag`` or ``search`` (the configured search engine)."""
        with self._lock:
            if kind not in self._tools:
                self._tools[kind] = self.tool_factory(kind)
            return self._tools[kind]

    @property
    def encoder(self) -> TextEncoder:
        if self._encoder is None:
            self._encoder = self.encoder_factory()
        return self._encoder


class Method(Protocol):
    name: str

    async def run(self, claim: str, resources: Resources) -> Verdict: ...


METHODS: dict[str, Callable[[], Method]] = {}
DESCRIPTIONS: dict[str, str] = {}


def register(name: str, description: str) -> Callable[[type], type]:
    def wrap(cls: type) -> type:
        METHODS[name] = cls
        DESCRIPTIONS[name] = description
        return cls

    return wrap


def get_method(name: str) -> Method:
    if name not in METHODS:
        known = ", ".join(sorted(METHODS))
        raise ConfigError(f"unknown method '{name}'; available: {known}")
    return METHODS[name]()
