"""MERMAID's toolset: factdebate's own MCP tool servers plus every server ``mcp_servers`` names (narrowed to its
``tools``), as one set of tools.

The servers get a minimal environment plus what they need (data directory, retrieval settings, model caches,
engine keys); the operator's leakage controls are their floors, and a claim's date is added to each call of
a tool that takes ``search_before``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from factdebate.core.types import Document
from factdebate.llm.json_reply import loads
from factdebate.methods.mermaid.start import StartPolicy, StartRecord, ToolboxUnavailable, ToolServerError
from factdebate.tools.mcp_client import MCPToolset
from factdebate.tools.mcp_config import MCPServerConfig
from factdebate.tools.toolset import ToolResult, ToolSchema, Toolset
from factdebate.util.child_python import python_command, python_env
from factdebate.util.errors import ConfigError
from factdebate.util.paths import data_dir

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings

log = logging.getLogger("factdebate.methods.mermaid.method")
SHIPPED = ("wikipedia", "search", "scholar")
_PASSED_PREFIXES = ("FACTDEBATE_", "HF_", "TRANSFORMERS_", "SENTENCE_TRANSFORMERS_", "XDG_")
_PASSED_KEYS = ("TAVILY_API_KEY", "OPENALEX_API_KEY", "OPENALEX_MAILTO", "NCBI_API_KEY", "PYTHONPATH",
                "OMP_NUM_THREADS", "LANG", "LC_ALL")
# Arguments the executor fills in itself: the model never sets leakage controls (an agent must not lift a
# cut-off), and result counts follow retrieval.k.
MANAGED_ARGS = frozenset({"search_before", "exclude_domains", "exclude_fact_checkers", "k"})


def server_env(settings: RunSettings) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items()
           if name.startswith(_PASSED_PREFIXES) or name in _PASSED_KEYS}
    retrieval = settings.retrieval
    env["FACTDEBATE_DATA_DIR"] = str(data_dir())
    env["FACTDEBATE_RETRIEVAL__CORPUS"] = retrieval.corpus
    env["FACTDEBATE_RETRIEVAL__ENCODER"] = retrieval.encoder
    env["FACTDEBATE_RETRIEVAL__WIKIPEDIA_LANG"] = retrieval.wikipedia_lang
    if retrieval.milvus_uri:
        env["FACTDEBATE_MILVUS_URI"] = retrieval.milvus_uri
    if retrieval.builtin_docs:
        env["FACTDEBATE_RETRIEVAL__BUILTIN_DOCS"] = str(retrieval.builtin_docs)
    env.pop("FACTDEBATE_CONFIG", None)  # the server's settings are exactly the ones passed here
    return env


def search_engines(settings: RunSettings) -> str:
    """The search server's engines: Tavily beside the local index where the run searches Tavily, else local."""
    return "local,tavily" if settings.retrieval.search == "tavily" else "local"


def shipped_config(name: str, settings: RunSettings, *, online: bool = False) -> MCPServerConfig:
    """How to start one of factdebate's tool servers with this run's settings."""
    if name not in SHIPPED:
        raise ConfigError(f"unknown tool server '{name}': use {', '.join(SHIPPED)}")
    retrieval = settings.retrieval
    command, *args = python_command("-m", "factdebate.toolservers", name)  # never the current folder's package
    if name == "wikipedia":
        args.append("--online" if online else "--offline")
    if name == "search":  # the engine the settings resolved, not the server's own look at the environment
        args += ["--engines", search_engines(settings)]
    if retrieval.search_before:
        args += ["--search-before", retrieval.search_before]
    if retrieval.exclude_domains:
        args += ["--exclude-domains", ",".join(retrieval.exclude_domains)]
    if retrieval.exclude_fact_checkers:
        args.append("--exclude-fact-checkers")
    # Starting may build the builtin index (seconds for BM25, minutes for the vectors on a first run).
    return MCPServerConfig(command=command, args=args, env=python_env(server_env(settings)), connect_timeout=900,
                           timeout=120)


@dataclass
class Routed:
    toolset: Toolset
    name: str  # the tool's name on its server
    schema: ToolSchema  # as the executor sees it (name possibly qualified by the server)


class Toolbox:
    """Toolsets opened together, once per batch or server; each tool under its own name, or ``server.tool``
    where two share one. Starts and restarts follow ``policy`` (start.py)."""

    def __init__(self, toolsets: list[Toolset], policy: StartPolicy | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.toolsets = toolsets
        self.routes: dict[str, Routed] = {}
        self.starts = StartRecord(policy, clock)
        self._stack: contextlib.AsyncExitStack | None = None
        self._lock = asyncio.Lock()
        # Restarts of servers that died after a good start, per toolset: their records, locks and how
        # many times each was started again (so concurrent calls that saw one death restart it once).
        self._restarts: dict[int, StartRecord] = {}
        self._restart_locks: dict[int, asyncio.Lock] = {}
        self._generations: dict[int, int] = {}

    async def aopen(self) -> None:
        """The first start, when first asked for; a failure is recorded, not raised (else every claim restarts)."""
        with contextlib.suppress(ToolboxUnavailable):
            await self.ready()

    async def ready(self) -> None:
        """Open, or :class:`ToolboxUnavailable` until the policy allows another start (one for all waiting)."""
        if self._stack is not None:
            return
        async with self._lock:
            if self._stack is not None:
                return
            if not self.starts.may_try():
                raise self.starts.error()
            self.starts.started()
            try:
                await self._start()
            except ToolServerError as exc:
                self.starts.failed(exc)
                raise self.starts.error() from exc
            self.starts.succeeded()

    async def _start(self) -> None:
        stack = contextlib.AsyncExitStack()
        listed = []
        try:
            for toolset in self.toolsets:
                try:
                    await stack.enter_async_context(toolset)
                    listed.append((toolset, await toolset.list_tools()))
                except Exception as exc:
                    raise ToolServerError(toolset.name, exc) from exc
            if not any(tools for _, tools in listed):  # the executor would have nothing to gather evidence with
                names = "', '".join(t.name for t in self.toolsets) or "none"
                raise ToolServerError(names, ValueError(f"tool server '{names}' offers no tools: MERMAID's "
                                                        "executor would have nothing to gather evidence with"))
        except BaseException:
            await stack.aclose()
            raise
        self._stack, self.routes = stack, {}
        counts: dict[str, int] = {}
        for _, tools in listed:
            for tool in tools:
                counts[tool.name] = counts.get(tool.name, 0) + 1
        for toolset, tools in listed:
            for tool in tools:
                shown = tool.name if counts[tool.name] == 1 else f"{toolset.name}.{tool.name}"
                self.routes[shown] = Routed(toolset, tool.name,
                                            ToolSchema(shown, tool.description, tool.parameters))

    async def _restart(self, toolset: Toolset, generation: int, fault: str) -> str | None:
        """Start a server that died or hangs again, once for concurrent callers: ``None`` once open, else why."""
        key = id(toolset)
        async with self._restart_locks.setdefault(key, asyncio.Lock()):
            if self._generations.get(key, 0) != generation:
                return None  # another call started it again meanwhile
            record = self._restarts.setdefault(key, StartRecord(self.starts.policy, self.starts.clock))
            if not record.may_try():
                return str(record.error())
            log.warning("MERMAID's tools: server '%s' is gone (%s); starting it again", toolset.name, fault)
            record.started()
            try:
                with contextlib.suppress(Exception):
                    await toolset.__aexit__(None, None, None)
                await toolset.__aenter__()
            except Exception as exc:
                record.failed(ToolServerError(toolset.name, exc))
                return str(record.error())
            record.succeeded()
            self._generations[key] = generation + 1
            return None

    async def aclose(self) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.aclose()

    @property
    def schemas(self) -> list[ToolSchema]:
        return [route.schema for route in self.routes.values()]

    async def call(self, name: str, arguments: dict[str, Any], *, search_before: str | None = None,
                   k: int | None = None) -> ToolResult:
        """The model's arguments without the managed ones, plus this run's ``k`` and cut-off date."""
        route = self.routes.get(name)
        if route is None:
            return ToolResult(f"unknown tool '{name}'; the tools are: {', '.join(self.routes)}", is_error=True)
        properties = route.schema.parameters.get("properties", {})
        args = {key: value for key, value in arguments.items() if key not in MANAGED_ARGS}
        if k is not None and "k" in properties:
            args["k"] = k
        if search_before and "search_before" in properties:
            args["search_before"] = search_before
        toolset = route.toolset
        generation = self._generations.get(id(toolset), 0)
        result = await toolset.call_tool(route.name, args)
        if result.fault is None:
            return result
        problem = await self._restart(toolset, generation, result.fault)
        if problem is not None:
            return ToolResult(f"{result.text} ({problem})", is_error=True, fault=result.fault,
                              timed_out=result.timed_out)
        # A call that met a dead server is tried once on the new one; one that hung it is not (it may hang
        # the new one too, and each try costs the whole timeout).
        return result if result.timed_out else await toolset.call_tool(route.name, args)


def build_toolbox(settings: RunSettings, servers: list[str], *, wikipedia_online: bool = False,
                  extra: dict[str, Toolset] | None = None) -> Toolbox:
    """The shipped ``servers`` plus every configured MCP server (one of the same name replaces a shipped one),
    each offering only the tools its ``tools`` names; one that names none is not started."""
    configured = {name: config for name, config in settings.mcp_servers.items() if config.tools != []}
    toolsets: list[Toolset] = []
    for name in servers:
        if name not in configured:
            toolsets.append(MCPToolset(name, shipped_config(name, settings, online=wikipedia_online)))
    toolsets += [MCPToolset(name, config) for name, config in configured.items()]
    toolsets += list((extra or {}).values())
    return Toolbox(toolsets)


# Types alone ('{"query": "string"}') were copied as values: 14 of 15 actions of a small served model
# searched for "string" (and found String theory). The input is shown as an example object whose values are
# about the claim (a copied example then still searches the claim), then what each argument is for.
_EXAMPLES: dict[str, Any] = {"section": "History", "focus": "the claim's point", "k": 5, "count": 5}


def input_hint(schema: ToolSchema, claim: str = "", entity: str = "") -> str:
    """A tool's arguments as the prompt shows them: an example input, then each with its type and use."""
    properties = schema.parameters.get("properties", {})
    required = set(schema.parameters.get("required", []))
    guesses = {**_EXAMPLES, "query": " ".join(claim.split())[:100] or "the claim's key words",
               "title": entity or "the article's title"}
    example: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in properties.items():
        if key in MANAGED_ARGS or not isinstance(value, dict):
            continue
        examples = value.get("examples")
        if isinstance(examples, list) and examples:
            example[key] = examples[0]
        elif key in required or key in guesses:
            example[key] = guesses.get(key, value.get("type", "text"))
        note = f"{key}: {value.get('type', 'any')}{'' if key in required else ', optional'}"
        if description := " ".join(str(value.get("description") or "").split())[:160]:
            note += f", {description.rstrip('.')}"
        notes.append(note)
    return json.dumps(example) + (f" ({'; '.join(notes)})" if notes else "")


def model_input_schema(schema: ToolSchema) -> dict[str, Any]:
    """A tool's required, unmanaged arguments by type only: what the executor's reply is held to."""
    properties = schema.parameters.get("properties", {})
    required = [k for k in schema.parameters.get("required", []) if k not in MANAGED_ARGS and k in properties]
    props = {key: {"type": properties[key].get("type", "string")}
             if properties[key].get("type") in ("string", "integer", "number", "boolean") else {"type": "string"}
             for key in required}
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def coerce_input(schema: ToolSchema, value: Any) -> dict[str, Any]:
    """A bare string input (the paper's format) goes to the first required, else first, string argument."""
    if isinstance(value, dict):
        return value
    properties = schema.parameters.get("properties", {})
    strings = [k for k in schema.parameters.get("required", []) if properties.get(k, {}).get("type") == "string"]
    strings += [k for k, v in properties.items() if v.get("type") == "string" and k not in MANAGED_ARGS]
    if value is None or not strings:
        return {}
    return {strings[0]: str(value)}


def result_documents(result: ToolResult, tool: str, query: str) -> list[Document]:
    """What the executor is shown of a result: its passages, else its text; none for an error."""
    if result.is_error:
        return []
    passages = result_passages(result, tool)
    if passages is not None:
        return passages
    text = result.text.strip()
    return [_doc(tool, text, f"mcp:{tool}")] if text else []


def result_passages(result: ToolResult, tool: str) -> list[Document] | None:
    """The retrieved passages a result holds (search results, a page's summary, text or facts), the only
    evidence the memory may keep; ``None`` when it has none."""
    if result.is_error:
        return []
    if result.documents:
        return result.documents
    data = result.data if isinstance(result.data, dict) else _json(result.text)
    if not isinstance(data, dict):
        return None
    docs: list[Document] = []
    for key in ("results", "related"):
        for item in data.get(key) or []:
            if isinstance(item, dict) and str(item.get("text") or "").strip():
                docs.append(_doc(str(item.get("title") or tool), str(item["text"]),
                                 str(item.get("source") or ""), float(item.get("score") or 0.0)))
    title, source = str(data.get("title") or ""), str(data.get("source") or "")
    for key in ("summary", "text"):
        if isinstance(data.get(key), str) and data[key].strip():
            docs.append(_doc(title or tool, data[key], source))
    if isinstance(data.get("facts"), list) and data["facts"]:
        docs.append(_doc(title or tool, " ".join(str(f) for f in data["facts"]), source))
    return docs if docs or any(key in data for key in ("results", "related")) else None


def _doc(title: str, text: str, source: str, score: float = 0.0) -> Document:
    import hashlib

    digest = hashlib.sha256(f"{source}|{text}".encode()).hexdigest()[:12]
    return Document(id=f"{source or title}#{digest}", title=title, text=text, source=source, score=score)


def _json(text: str) -> Any:
    try:
        return loads(text)
    except ValueError:
        return None
