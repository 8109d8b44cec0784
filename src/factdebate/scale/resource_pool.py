"""Built resources, cached per distinct settings (bounded LRU): what the service builds each request's run from.

Models and tools are shared *across* cache entries: two settings that differ only in, say, the number of
rounds use the same backend object (so an in-process model is loaded and locked once) and the same
retrieval tool (so an index is opened once)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from factdebate.llm import make_backend
from factdebate.llm.base import Backend
from factdebate.llm.in_flight import CallQueue
from factdebate.llm.openai_stream import StreamSetting
from factdebate.methods.base import method_class
from factdebate.methods.resources import Resources, Services
from factdebate.run.build import build_resources, make_tool
from factdebate.settings.model import Settings
from factdebate.tools.base import Tool
from factdebate.util.http_client import close_session

Builder = Callable[[Settings], Resources]


class ResourcePool:
    def __init__(self, size: int = 4, build: Builder | None = None, lite_copies: bool = False) -> None:
        self.size = size
        # Several service processes (serve --workers N): each searches its own copy of a Milvus Lite folder.
        self.lite_copies = lite_copies
        self._build = build or self._default_build
        self._entries: OrderedDict[str, Resources] = OrderedDict()
        self._backends: dict[tuple[str, float, str, int | None, StreamSetting, str | None], Backend] = {}
        self._tools: dict[tuple[str, str], Tool] = {}
        self._lock = threading.Lock()  # only for quick bookkeeping; the event loop takes it
        # Tools are built from worker threads (run_claim prepares them there) and may take a while to open
        # an index, so they get their own lock rather than stalling the loop on the one above.
        self._tool_lock = threading.Lock()
        # Long-lived services (memory stores, MCP sessions) are shared by every entry and closed with the app.
        self.services = Services()

    def get(self, settings: Settings) -> Resources:
        key = settings.model_dump_json()
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        resources = self._build(settings)
        resources.services = self.services  # whoever built them, every entry shares the app's services
        with self._lock:
            existing = self._entries.get(key)
            if existing is not None:  # built twice by a race: keep the first, drop ours
                return existing
            self._entries[key] = resources
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return resources

    def __len__(self) -> int:
        return len(self._entries)

    async def aclose(self) -> None:
        """What the pool's runs opened, closed (a server's shutdown): the long-lived services, then the running
        loop's shared HTTP session their model calls used (util/http_client.py), whoever still holds it."""
        await self.services.aclose()
        await close_session()

    def backend(self, spec: str, timeout: float, constrain: str = "auto",
                reasoning_tokens: int | None = None, stream: StreamSetting = "auto",
                base_url: str | None = None) -> Backend:
        """The pool's backend of ``spec`` on ``base_url`` (None: ``OPENAI_BASE_URL``), made once."""
        key = (spec, timeout, constrain, reasoning_tokens, stream, base_url)
        with self._lock:
            if key not in self._backends:
                self._backends[key] = make_backend(spec, timeout=timeout, constrain=constrain, base_url=base_url,
                                                   reasoning_tokens=reasoning_tokens, stream=stream)
            return self._backends[key]

    @staticmethod
    def model_queues() -> list[CallQueue]:
        """The call queues of the model servers the running event loop has called (llm/in_flight.py): each
        one's slots, the seconds a call asked now would wait, and its calls' busy seconds."""
        return CallQueue.on_this_loop()

    @staticmethod
    def models_down() -> list[str]:
        """The models whose server is down now, the pool's backends' included: each refused connections three
        times in a row and has not answered since (llm/breaker.py; what it learns is the process's)."""
        from factdebate.llm.breaker import down

        return down()

    def tool(self, kind: str, settings: Settings) -> Tool:
        # Where the evidence comes from (the caller's own passages, per request) is not the engine's business:
        # one engine serves every evidence mode, so an index is never opened twice.
        key = (kind, settings.retrieval.model_dump_json(exclude={"evidence"}))
        with self._tool_lock:
            if key not in self._tools:
                copied = None
                if kind == "rag" and self.lite_copies:
                    from factdebate.scale.lite_copy import copied_rag_tool

                    copied = copied_rag_tool(settings)
                self._tools[key] = copied or make_tool(kind, settings)
            return self._tools[key]

    @staticmethod
    def needs_builtin(settings: Settings, kinds: set[str] | None = None) -> bool:
        """Whether a run with ``settings`` (or a search with the tools ``kinds``) opens the built-in indexes."""
        from factdebate.scale.builtin_indexes import needs_builtin

        return needs_builtin(settings, kinds)

    def prepare_builtin(self, settings: Settings, follow: Callable[[str, int, int], None],
                        full_text_ready: Callable[[], None]) -> list[str]:
        """The built-in indexes ``settings``' method searches, built if missing (the full-text index first,
        ``full_text_ready`` called once it is there, then the vectors; ``follow(stage, done, total)`` told each
        build's progress), then the pool's searches over them opened, rather than at the first call (stage
        ``opening the search``). Returns the tools opened (``search``, ``rag``), none when the method searches no
        built-in index."""
        from factdebate.scale.builtin_indexes import prepare_builtin

        kinds = prepare_builtin(settings, follow, full_text_ready)
        if kinds:
            follow("opening the search", 0, 0)
        for kind in kinds:
            self.tool(kind, settings)
        return kinds

    def _default_build(self, settings: Settings) -> Resources:
        # Every role the settings or the method name shares the pool's backend for its model.
        roles = {"debater", "judge", "scorer", *settings.llm.roles, *method_class(settings.method).roles}
        # The server the command line's build calls (run/build.py): the first of llm.base_urls, else
        # OPENAI_BASE_URL; the same settings then reach the same model from the service as from the CLI.
        endpoint = settings.llm.base_urls[0] if settings.llm.base_urls else None
        backends = {role: self.backend(settings.llm_for(role), settings.llm.timeout, settings.llm.constrain,
                                       settings.llm.reasoning_tokens, settings.llm.stream, endpoint)
                    for role in roles}
        resources: Resources | None = None

        def tool(kind: str) -> Tool:
            # The scholarly pipeline writes summaries with this request's debater, so it is not shared.
            if kind == "search" and settings.medical.search != "default" and resources is not None:
                return make_tool(kind, settings, resources.debater)
            return self.tool(kind, settings)

        resources = build_resources(settings, backends=backends, tool_factory=tool, services=self.services)
        return resources
