"""``factdebate memory ls|show|search|clear|export``: look into and tidy the evidence memory.

Without flags they look where MERMAID writes with the same settings: its memory file and namespace."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from factdebate.cli import exits
from factdebate.cli.options import ConfigFlag
from factdebate.core.pathcheck import input_flag, output_flag
from factdebate.util.errors import InputError

if TYPE_CHECKING:
    from factdebate.memory.settings import MemorySettings
    from factdebate.memory.store import EvidenceMemory, MemoryHit

Opt = typer.Option
PathOpt = Annotated[Path | None, Opt("--memory-path", help="Memory database (default: MERMAID's, "
                                                           "in the data directory).",
                                     callback=input_flag("--memory-path"))]
NamespaceOpt = Annotated[str | None, Opt("--namespace", "-n", help="Memory namespace (default: MERMAID's, "
                                                                   "the corpus name).")]

memory_app = typer.Typer(help="Inspect the evidence memory (MERMAID's cross-claim evidence store).",
                         no_args_is_help=True)


def _settings(path: Path | None, namespace: str | None, config: Path | None) -> MemorySettings:
    """MERMAID's memory with these settings (one default for the method and the commands), flags on top."""
    from factdebate.memory.settings import MemorySettings
    from factdebate.methods.mermaid.settings import memory_settings
    from factdebate.settings.load import settings_from

    chosen = memory_settings(settings_from({}, config))
    try:
        return MemorySettings.model_validate({**chosen.model_dump(), "path": path or chosen.path,
                                              "namespace": namespace or chosen.namespace})
    except ValueError as exc:
        raise InputError(f"bad namespace '{namespace}': letters, digits and _.:- only, at most 64") from exc


def _open(path: Path | None, namespace: str | None, config: Path | None,
          semantic: bool = False) -> EvidenceMemory:
    from factdebate.memory.store import EvidenceMemory, minilm_encoder

    settings = _settings(path, namespace, config)
    if path is not None and not path.exists():
        raise InputError(f"no evidence memory at {path}")
    return EvidenceMemory(settings.resolved_path(), namespace=settings.namespace,
                          busy_timeout_s=settings.busy_timeout_s, encode=minilm_encoder() if semantic else None)


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")


def _echo_hits(hits: list[MemoryHit], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps([h.model_dump() for h in hits], ensure_ascii=False, indent=2))
        return
    for h in hits:
        score = f" {h.match} {h.score:.2f}" if h.match != "exact" else ""
        typer.echo(f"[{h.id}] {h.stored_entity} · {h.tool} · {_when(h.stored)}{score}\n"
                   f"  source: {h.source}\n  {h.text[:300]}")


@memory_app.command("ls")
def ls(memory_path: PathOpt = None, namespace: NamespaceOpt = None, config: ConfigFlag = None,
       as_json: Annotated[bool, Opt("--json", help="JSON output.")] = False) -> None:
    """List the entities in a namespace with their record counts."""
    memory = _open(memory_path, namespace, config)
    typer.echo(f"namespace '{memory.namespace}' in {memory.path}", err=True)
    rows = memory.entities()
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not rows:
        typer.echo(f"namespace '{memory.namespace}' is empty", err=True)
    for row in rows:
        typer.echo(f"{row['entity']}\t{row['records']}\t{_when(row['stored'])}")


@memory_app.command("show")
def show(entity: str, memory_path: PathOpt = None, namespace: NamespaceOpt = None, config: ConfigFlag = None,
         as_json: Annotated[bool, Opt("--json", help="JSON output.")] = False) -> None:
    """Print the evidence stored under one entity."""
    hits = _open(memory_path, namespace, config).show(entity)
    if not hits and not as_json:
        typer.echo(f"nothing stored under '{entity}'", err=True)
    _echo_hits(hits, as_json)


@memory_app.command("search")
def search(text: str, memory_path: PathOpt = None, namespace: NamespaceOpt = None, config: ConfigFlag = None,
           k: Annotated[int, Opt("-k", min=1, max=100, help="Records to show.")] = 10,
           semantic: Annotated[bool, Opt("--semantic/--substring", help="Match by meaning (MiniLM) "
                                                                        "or by substring.")] = True,
           as_json: Annotated[bool, Opt("--json", help="JSON output.")] = False) -> None:
    """Find records by meaning (default) or by substring of entity or evidence."""
    memory = _open(memory_path, namespace, config, semantic=semantic)
    hits = memory.search(text, k)
    if semantic and (plain := memory.without_vectors()):
        typer.echo(f"{plain} record(s) here were stored without vectors (semantic recall was off, the default), "
                   "so they are matched by text rather than meaning", err=True)
    if not hits and not as_json:
        typer.echo(f"nothing matches '{text}'", err=True)
    _echo_hits(hits, as_json)


@memory_app.command("clear")
def clear(memory_path: PathOpt = None, namespace: NamespaceOpt = None, config: ConfigFlag = None,
          entity: Annotated[str | None, Opt(help="Only this entity's records.")] = None,
          expired: Annotated[bool, Opt("--expired", help="Only records past their TTL.")] = False,
          yes: Annotated[bool, Opt("--yes", "-y", help="Do not ask.")] = False) -> None:
    """Delete records of a namespace (all, one entity's, or the expired ones)."""
    memory = _open(memory_path, namespace, config)
    what = f"entity '{entity}'" if entity else "all records"
    if not (yes or expired):
        _confirm(f"delete {what} in namespace '{memory.namespace}' of {memory.path}?")
    removed = memory.clear(entity, expired_only=expired)
    typer.echo(f"removed {removed} record(s) from namespace '{memory.namespace}'", err=True)


def _confirm(question: str) -> None:
    """Ask on stderr: "no" exits 0, no answer exits 2 (a script forgot --yes), Ctrl-C 130."""
    try:
        agreed = typer.confirm(question, err=True)
    except typer.Abort as exc:  # end of input and Ctrl-C both arrive as Abort
        typer.echo("", err=True)  # end the prompt's line
        if isinstance(exc.__context__, KeyboardInterrupt):
            typer.echo("nothing cleared", err=True)  # cli/main.py's run() then says "interrupted"
            raise typer.Exit(exits.INTERRUPTED) from None
        raise InputError("nothing cleared: no answer (end of input); give --yes to clear without asking") from None
    if not agreed:
        typer.echo("cancelled: nothing cleared", err=True)
        raise typer.Exit(exits.OK)


@memory_app.command("export")
def export(memory_path: PathOpt = None, namespace: NamespaceOpt = None, config: ConfigFlag = None,
           output: Annotated[Path | None, Opt("--output", "-o", help="JSONL file (default: stdout).",
                                              callback=output_flag("--output", "memory.jsonl"))] = None) -> None:
    """Write every live record of a namespace as JSON lines."""
    records = _open(memory_path, namespace, config).export()
    out = output.open("w", encoding="utf-8") if output else sys.stdout
    try:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    finally:
        if output:
            out.close()


def register_memory(app: typer.Typer) -> None:
    app.add_typer(memory_app, name="memory")
