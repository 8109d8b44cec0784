"""MERMAID's settings (``methods.mermaid.*``, flags ``--mermaid-<name>``); each ``memory*`` field names the
``MemorySettings`` field it fills. A claim's memory file: ``memory_path``, else the run's own
(run_memory.py), else the data directory's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field
from pydantic.json_schema import JsonDict

from factdebate.core.fields import offered
from factdebate.memory.settings import NAMESPACE_PATTERN, MemorySettings, default_namespace
from factdebate.methods.base import MethodSettings

if TYPE_CHECKING:
    from factdebate.methods.resources import RunScope
    from factdebate.methods.settings_protocol import RunSettings

RUN_MEMORY = "evidence_memory.sqlite"  # a run's own memory, in its folder

ServerName = Literal["wikipedia", "search", "scholar"]


def _memory(field: str, *, operator_only: bool = True, main: bool = False, reaches: str | None = None) -> JsonDict:
    """A setting that fills ``field`` of the run's MemorySettings; operator only, since a caller could reach
    what other callers' verdicts recall."""
    return offered(operator_only=operator_only, group="memory", main=main, reaches=reaches, memory=field)


class MermaidSettings(MethodSettings):
    max_steps: int = Field(
        title="Executor steps", default=5, ge=1, le=20, json_schema_extra=offered(group="rounds", main=True),
        description="T_max: executor steps before a forced answer.")
    decomposer: bool = Field(
        title="Decompose the claim", default=True, json_schema_extra=offered(group="agents", main=True),
        description="Triplets and a topic first (off: the paper's 'w/o decomposer' ablation, the executor alone).")
    repeat_stop: bool = Field(
        title="Stop on a repeated action", default=False, json_schema_extra=offered(group="rounds"),
        description="An action identical to an earlier one is not run again and the answer is asked for at once "
                    "(fewer tool calls; off, the paper's way: every action runs until an answer or T_max).")
    repeat_skip: bool = Field(
        title="Skip a repeated action", default=True, json_schema_extra=offered(group="rounds"),
        description="An action identical to an earlier one (same tool, same arguments) is not run again: the "
                    "executor is told it already has that observation and goes on (off, the paper's way: every "
                    "action runs).")
    labels: Literal["binary", "three-way"] = Field(
        title="Label set", default="binary", json_schema_extra=offered(group="labels", main=True),
        description="binary: True/False (the paper); three-way adds NOT ENOUGH INFO.")
    servers: list[ServerName] = Field(
        title="Tool servers", default_factory=lambda: list[ServerName](["wikipedia", "search"]),
        description="factdebate's MCP tool servers to start (any server under mcp_servers joins too).",
        json_schema_extra=offered(operator_only=True, group="evidence"))
    wikipedia_online: bool = Field(
        title="Live Wikipedia", default=False, json_schema_extra=offered(operator_only=True, group="evidence"),
        description="Wikipedia tools on the live MediaWiki API instead of the indexed corpus.")
    memory: Literal["on", "off", "readonly"] = Field(
        title="Evidence memory", default="on", json_schema_extra=_memory("mode", main=True),
        description="Recall and store evidence (on), recall only (readonly), or neither (off).")
    memory_path: str | None = Field(
        title="Memory file", default=None, json_schema_extra=_memory("path", reaches="path"),
        description="A memory database shared by every run and claim that names it, read and written as it stands "
                    "(default: an evaluation or batch keeps a memory of its own in its folder; single claims and "
                    "the service use evidence_memory.sqlite in the data directory).")
    memory_from: str | None = Field(
        title="Start memory from", default=None,
        json_schema_extra=offered(operator_only=True, group="memory", reaches="path"),
        description="An evaluation's or batch's memory starts as a copy of this memory file (never written; its "
                    "path and a SHA-256 of its records go into run.json). Default: the run starts empty.")
    memory_namespace: str | None = Field(title="Memory namespace", default=None, pattern=NAMESPACE_PATTERN,
                                         json_schema_extra=_memory("namespace"),
                                         description="Where records are kept apart (default: the corpus name; the "
                                                     "service adds each API key's id).")
    memory_semantic: bool = Field(
        title="Semantic recall", default=False,
        json_schema_extra=_memory("semantic", operator_only=False, main=True),
        description="Also recall records whose entity is close in meaning to a claim's (MiniLM, cosine from 0.45), "
                    "not only those under its exact (normalised) entity keys, which is the paper's keyword recall.")
    memory_ttl_days: float | None = Field(
        title="Memory lifetime", default=None, gt=0, le=36_500, json_schema_extra=_memory("ttl_days"),
        description="Stored evidence expires after this many days (default: never).")
    memory_busy_timeout_s: float = Field(
        title="Memory lock wait", default=30.0, gt=0, le=600, json_schema_extra=_memory("busy_timeout_s"),
        description="Seconds to wait for a memory file another process holds locked before giving up on it.")
    observation_chars: int = Field(
        title="Observation length", default=1200, ge=200, le=8000, json_schema_extra=offered(group="length"),
        description="Characters of each tool observation shown to the executor.")


# MermaidSettings field -> the MemorySettings field it fills, read off the fields' metadata.
MEMORY_FIELDS: dict[str, str] = {
    name: str(info.json_schema_extra["memory"]) for name, info in MermaidSettings.model_fields.items()
    if isinstance(info.json_schema_extra, dict) and "memory" in info.json_schema_extra}


def memory_settings(settings: RunSettings, cfg: MermaidSettings | None = None,
                    run: RunScope | None = None) -> MemorySettings:
    """The memory MERMAID uses with ``settings`` in ``run`` (the ``memory`` commands read the same one)."""
    cfg = cfg or settings.methods.get("mermaid") or MermaidSettings()
    chosen: dict[str, Any] = {}
    for name, target in MEMORY_FIELDS.items():
        value = getattr(cfg, name)
        if value is not None and value != "":  # unset: the memory's own default
            chosen[target] = value
    chosen.setdefault("namespace", default_namespace(settings.retrieval.corpus))
    if run_owned(cfg, run):
        assert run is not None
        chosen["path"] = run.file(RUN_MEMORY)
    return MemorySettings.model_validate(chosen)


def run_owned(cfg: MermaidSettings, run: RunScope | None) -> bool:
    """Whether the memory is the run's own: in a run, with no shared file named."""
    return run is not None and cfg.memory != "off" and not cfg.memory_path


def memory_from(cfg: MermaidSettings) -> Path | None:
    return Path(cfg.memory_from).expanduser() if cfg.memory_from else None
