"""The executor flags that ``verify`` and ``eval`` share, and how they land in ``settings.scale``.

Each is drawn from the ``ScaleSettings`` field that names a ``flag``, with its description and bounds, and
validated with the rest of ``settings.scale`` (:func:`with_scale`)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from annotated_types import Ge, Le
from pydantic import ValidationError

from factdebate.core.fields import exposure
from factdebate.settings.model import ScaleSettings, Settings
from factdebate.settings.options import default_text
from factdebate.util.errors import ConfigError


def _flag(name: str, kind: type) -> Any:
    info = ScaleSettings.model_fields[name]
    least = next((m.ge for m in info.metadata if isinstance(m, Ge) and isinstance(m.ge, int | float)), None)
    most = next((m.le for m in info.metadata if isinstance(m, Le) and isinstance(m.le, int | float)), None)
    default = default_text(name, info)
    shown = f" \\[default: {default}]" if default and "default" not in (info.description or "") else ""
    return Annotated[kind | None, typer.Option(exposure(info)["flag"], help=f"{info.description}{shown}", min=least,
                                               max=most, rich_help_panel="Scale-out")]


# Choices are checked by with_scale (so the message names the flag); the types are what Typer parses.
ExecutorFlag = _flag("executor", str)
RayAddressFlag = _flag("ray_address", str)
WorkersFlag = _flag("workers", int)
# index builds only
WorkerGpusFlag = _flag("worker_gpus", float)
ShardDocsFlag = _flag("shard_docs", int)
LexicalPartsFlag = _flag("lexical_parts", int)


def with_scale(settings: Settings, executor: str | None, ray_address: str | None, workers: int | None,
               **index_flags: Any) -> Settings:
    """``settings`` with the flags that were given applied (the settings file and environment otherwise);
    ``index_flags`` are an index build's (``worker_gpus``, ``shard_docs``, ``lexical_parts``)."""
    update: dict[str, Any] = {name: value for name, value in index_flags.items() if value is not None}
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
    try:  # validated: model_copy alone took --workers 100000 as it stood
        checked = ScaleSettings.model_validate({**settings.scale.model_dump(), **update})
    except ValidationError as exc:
        raise ConfigError(_problem(exc)) from None
    scale = settings.scale.model_copy(update={name: getattr(checked, name) for name in update})
    if scale.ray_address and scale.executor != "ray":
        raise ConfigError("--ray-address needs --executor ray")
    return settings.model_copy(update={"scale": scale})


def _problem(exc: ValidationError) -> str:
    """The first refused value, named by its flag: ``--workers: Input should be less than or equal to 1024``."""
    problem = exc.errors()[0]
    name = str(problem["loc"][0]) if problem["loc"] else ""
    info = ScaleSettings.model_fields.get(name)
    flag = exposure(info).get("flag") if info is not None else None
    return f"{flag or 'scale.' + name}: {str(problem['msg']).replace('Value error, ', '')}"
