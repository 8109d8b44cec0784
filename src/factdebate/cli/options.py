"""Command-line flags derived from the option table: ``verify`` and ``eval`` get the same flags, one per
shared option and one per field of every method's settings model, so a new method's settings become flags
without touching the CLI. Each flag's help is its field's title and description, as in the web form."""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from factdebate.core.errors import InputError
from factdebate.core.pathcheck import output_flag
from factdebate.settings.options import Option, all_options, convert

# Flags that several commands declare alike.
ConfigFlag = Annotated[Path | None, typer.Option("--config", "-c", help="YAML settings file.")]
# The trace is opened once the run starts: its path is checked while the flags are parsed.
TraceFlag = Annotated[Path | None, typer.Option(help="Append JSONL trace events to this file.",
                                                callback=output_flag("--trace", "trace.jsonl"))]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the verdict as one JSON object.")]
TraceTextFlag = Annotated[bool, typer.Option(
    "--trace-text", help="With --trace: every llm_call line also carries the call's prompt messages and the "
                         "model's reply, each text cut after 12000 characters (docs/trace.md).")]


def with_trace_text(trace: Path | None, wanted: bool) -> contextlib.AbstractContextManager[None]:
    """What ``--trace-text`` turns on around a run: the text of its model calls (llm/transcript.py). The text
    goes to the trace, so the flag without ``--trace`` is a mistake, not a no-op."""
    if not wanted:
        return contextlib.nullcontext()
    if trace is None:
        raise InputError("--trace-text adds the text of model calls to the trace: give --trace FILE too")
    from factdebate.llm.transcript import transcribing

    return transcribing()


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
    if option.short:
        decls.append(option.short)
    help_text = (f"{option.title}: " if option.title else "") + option.help + (f" ({note})" if note else "")
    if option.method:
        help_text += f" [{option.method}]"
    panel = "Method options" if option.method else "Shared options"
    # An older name of another option still works, but --help lists each setting once.
    info = typer.Option(*decls, help=help_text, rich_help_panel=panel, hidden=option.alias_of is not None)
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=Annotated[kind | None, info])


class OptionCommand:
    """A command whose flags are read from the option table each time the CLI is built (Typer reads
    ``__signature__`` then), so a method registered after import still gets its flags. The wrapped
    function's last parameter is ``options: dict``; it receives the options that were given."""

    def __init__(self, func: Callable[..., None], skip: set[str]) -> None:
        self.func, self.skip = func, skip
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__
        self.own = [p for p in inspect.signature(func, eval_str=True).parameters.values() if p.name != "options"]

    def table(self) -> dict[str, Option]:
        return {name: opt for name, opt in all_options().items() if name not in self.skip}

    @property
    def __signature__(self) -> inspect.Signature:
        return inspect.Signature([*self.own, *(_parameter(opt) for opt in self.table().values())])

    @property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        return {p.name: p.annotation for p in self.__signature__.parameters.values()}

    def __call__(self, **kwargs: Any) -> None:
        table = self.table()
        options = {name: convert(table[name], kwargs.pop(name)) for name in list(kwargs) if name in table}
        self.func(**kwargs, options={k: v for k, v in options.items() if v is not None})


def with_option_flags(skip: set[str]) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Decorator: the command gets one flag per option, except ``skip`` (which it declares itself)."""

    def wrap(func: Callable[..., None]) -> Callable[..., None]:
        return OptionCommand(func, skip)

    return wrap
