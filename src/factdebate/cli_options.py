"""Command-line flags derived from the option table: ``verify`` and ``eval`` get the same flags, one per
shared option and one per field of every method's settings model, so a new method's settings become flags
without touching the CLI."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any

import typer

from factdebate.options import Option, all_options


def _cli_type(option: Option) -> tuple[Any, str]:
    """A type Typer parses, and a note for the help text. Lists are comma-separated; choices are checked
    by the settings model (so the error names the setting)."""
    annotation = option.annotation
    origin = typing.get_origin(annotation)
    if origin is list:
        return str, "comma-separated"
    if origin is typing.Literal:
        return str, "one of " + ", ".join(str(a) for a in typing.get_args(annotation))
    if annotation in (int, float, bool, str):
        return annotation, ""
    return str, ""


def _parameter(option: Option) -> inspect.Parameter:
    kind, note = _cli_type(option)
    flag = "--" + option.name.replace("_", "-")
    decls = [f"{flag}/--no-{flag[2:]}"] if kind is bool else [flag]
    if option.name == "k":
        decls.append("-k")
    help_text = option.help + (f" ({note})" if note else "")
    if option.method:
        help_text += f" [{option.method}]"
    panel = "Method options" if option.method else "Shared options"
    info = typer.Option(*decls, help=help_text, rich_help_panel=panel)
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=Annotated[kind | None, info])  # type: ignore[valid-type]


def convert(option: Option, value: Any) -> Any:
    if value is not None and typing.get_origin(option.annotation) is list and isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def with_option_flags(skip: set[str]) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Decorator for a command whose last parameter is ``options: dict``: the command gets one flag per
    option (except ``skip``, which the command declares itself) and receives the given ones in ``options``."""
    table = {name: opt for name, opt in all_options().items() if name not in skip}

    def wrap(func: Callable[..., None]) -> Callable[..., None]:
        own = [p for p in inspect.signature(func, eval_str=True).parameters.values() if p.name != "options"]

        @functools.wraps(func)
        def command(**kwargs: Any) -> None:
            options = {name: convert(table[name], kwargs.pop(name)) for name in list(kwargs) if name in table}
            func(**kwargs, options={k: v for k, v in options.items() if v is not None})

        parameters = [*own, *(_parameter(opt) for opt in table.values())]
        command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in parameters}
        del command.__wrapped__  # type: ignore[attr-defined]  # Typer must read the new signature
        return command

    return wrap
