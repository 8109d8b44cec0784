"""MERMAID's evidence memory for one evaluation or batch: the paper builds its memory over one sequence of
claims, so a run gets a memory of its own, in its folder, filled in the run's order.

It is ``evidence_memory.sqlite`` in the run's folder, reopened on a resume; ``memory_from`` seeds it with a
copy of another (recorded in run.json with a SHA-256), and ``memory_path`` names a shared file instead. The
claims go one at a time in order, each recalling only what those before it stored."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from factdebate.memory.seed import copy_memory, origin
from factdebate.memory.store import EvidenceMemory
from factdebate.methods.mermaid.memory import checked_memory
from factdebate.methods.mermaid.settings import MermaidSettings, memory_from, memory_settings, run_owned
from factdebate.util.errors import ConfigError

if TYPE_CHECKING:
    from factdebate.methods.resources import RunScope
    from factdebate.methods.settings_protocol import RunSettings

IN_ORDER = ("its evidence memory is on, and each claim recalls what the claims before it stored (--memory "
            "readonly or off lets them run at once)")


def check_memory_choice(cfg: MermaidSettings) -> None:
    """The memory settings that contradict each other, as usage errors."""
    if cfg.memory_from and cfg.memory == "off":
        raise ConfigError("--memory-from seeds the evidence memory, which --memory off turns off: drop one")
    if cfg.memory_from and cfg.memory_path:
        raise ConfigError("give --memory-from PATH (the run starts from a copy of PATH) or --memory-path PATH (the "
                          "run reads and writes PATH itself), not both")


def start(settings: RunSettings, cfg: MermaidSettings, run: RunScope) -> dict[str, Any]:
    """The memory the run will use, prepared and checked before its first claim; what run.json says of it."""
    if cfg.memory == "off":
        return {}
    chosen = memory_settings(settings, cfg, run)
    quick = chosen.model_copy(update={"semantic": False})  # no encoder is needed to check a file
    if not run_owned(cfg, run):
        checked_memory(quick)
        return {"memory": {"scope": "shared", "path": str(chosen.resolved_path()), "mode": cfg.memory}}
    target = chosen.resolved_path()
    source = memory_from(cfg)
    if source is not None:
        seeded: dict[str, Any] | None = copy_memory(source, target, busy_timeout_s=chosen.busy_timeout_s)
    elif cfg.memory == "readonly" and not target.exists():
        raise ConfigError("--memory readonly in an evaluation or a batch reads a memory made before: name it with "
                          "--memory-from PATH (the run reads a copy) or --memory-path PATH")
    else:
        seeded = origin(EvidenceMemory(target, busy_timeout_s=chosen.busy_timeout_s)) if target.exists() else None
    checked_memory(quick)  # creates the run's memory when it is new
    return {"memory": {"scope": "run", "file": target.name, "mode": cfg.memory, "from": seeded}}
