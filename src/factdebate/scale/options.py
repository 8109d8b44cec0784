"""The executor flags that ``verify`` and ``eval`` share, and how they land in ``settings.scale``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from factdebate.core.errors import ConfigError

if TYPE_CHECKING:
    from factdebate.settings.model import Settings

ExecutorFlag = Annotated[str | None, typer.Option(
    "--executor", help="Where batch claims run: local (this process) or ray (a pool of Ray workers).",
    rich_help_panel="Scale-out")]
RayAddressFlag = Annotated[str | None, typer.Option(
    "--ray-address", help="Ray cluster to join: auto, or ray://host:port (default: start a local instance).",
    rich_help_panel="Scale-out")]
WorkersFlag = Annotated[int | None, typer.Option(
    "--workers", min=1, help="Ray workers (actors), each with its own models and tools.", rich_help_panel="Scale-out")]


def with_scale(settings: Settings, executor: str | None, ray_address: str | None, workers: int | None) -> Settings:
    """``settings`` with the flags that were given applied (the settings file and environment otherwise)."""
    update: dict[str, Any] = {}
    if ray_address is not None and executor is None:
        executor = "ray"  # an address only means something to the Ray executor
    if executor is not None:
        if executor not in ("local", "ray"):
            raise ConfigError(f"--executor must be local or ray, not '{executor}'")
        update["executor"] = executor
    if ray_address is not None:
        update["ray_address"] = ray_address
    if workers is not None:
        update["workers"] = workers
    if not update:
        return settings
    scale = settings.scale.model_copy(update=update)
    if scale.ray_address and scale.executor != "ray":
        raise ConfigError("--ray-address needs --executor ray")
    return settings.model_copy(update={"scale": scale})
