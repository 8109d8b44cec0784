"""Command-line flags derived from the option table: one per shared option and per field of every method's
settings model, helped by its title and description, in panels; a flag nothing reads is warned of
(:func:`warn_unread`)."""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from factdebate.core.fields import SCOPES
from factdebate.core.pathcheck import output_flag
from factdebate.settings.options import Option, all_options, default_text, not_read_by
from factdebate.util.errors import InputError

# The panels of --help (verify's lists about 90 flags): what most runs set, a method's own, what shapes the
# output, and what the person running the process tunes (parallelism, caches, servers).
COMMON_PANEL = "Common options"
RESPONSE_PANEL = "Checking a response"
OUTPUT_PANEL = "Output"
OPERATOR_PANEL = "Operator options"
SCALE_PANEL = "Scale-out"  # scale/options.py's flags
_LAST = [OUTPUT_PANEL, OPERATOR_PANEL, SCALE_PANEL]
_OPERATOR = {"cache", "milvus_uri", "llm_max_in_flight"}


def method_panel(method: str) -> str:
    return f"Options of --method {method}"


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


# Flags that several commands declare alike.
ConfigFlag = Annotated[Path | None, typer.Option("--config", "-c", help="YAML settings file (flags override it; "
                                                  "FACTDEBATE_* variables sit between).", rich_help_panel=COMMON_PANEL)]
# The trace is opened once the run starts: its path is checked while the flags are parsed.
TraceFlag = Annotated[Path | None, typer.Option(help="Append JSONL trace events to this file.",
                                                rich_help_panel=OUTPUT_PANEL,
                                                callback=output_flag("--trace", "trace.jsonl"))]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the verdict as one JSON object.",
                                        rich_help_panel=OUTPUT_PANEL)]
DeviationsFlag = Annotated[bool, typer.Option(
    "--deviations", help="List every way the run differs from the method's paper, each with the flags that restore "
                         "the paper's way (otherwise one line with their count when there are more than 3).",
    rich_help_panel=OUTPUT_PANEL)]
TraceTextFlag = Annotated[bool, typer.Option(
    "--trace-text", help="With --trace: every llm_call line also carries the call's prompt messages and the "
                         "model's reply, each text cut after 12000 characters "
                         "(factdebate docs trace#the-text-of-model-calls-transcript).",
    rich_help_panel=OUTPUT_PANEL)]


def with_trace_text(trace: Path | None, wanted: bool) -> contextlib.AbstractContextManager[object]:
    """What ``--trace-text`` turns on around a run (llm/transcript.py); without ``--trace`` it is a mistake."""
    if not wanted:
        return contextlib.nullcontext()
    if trace is None:
        raise InputError("--trace-text adds the text of model calls to the trace: give --trace FILE too")
    from factdebate.llm.transcript import transcribing

    return transcribing()


def _cli_type(option: Option) -> tuple[Any, str]:
    """A type Typer parses (lists comma-separated), and a note for the help text."""
    annotation = option.annotation
    origin = typing.get_origin(annotation)
    if origin is list:
        return str, "comma-separated"
    if origin is typing.Literal:
        return str, "one of " + ", ".join(str(a) for a in typing.get_args(annotation))
    if annotation in (int, float, bool, str):
        return annotation, ""
    return str, ""


def _help(option: Option) -> str:
    """The flag's help: title, description, value format and default, escaped for Rich markup."""
    _, note = _cli_type(option)
    title = option.title if option.title and not option.help.lower().startswith(option.title.lower()) else ""
    text = (f"{title}: " if title else "") + option.help + (f" ({note})" if note else "")
    default = default_text(option.name, option.field) if option.field is not None else None
    shown = default and "default" not in option.help.lower()  # some descriptions say it already, in words
    return escape(text + (f" [default: {default}]" if shown else ""))


def _panel(option: Option) -> str:
    if option.method:
        return method_panel(option.method)
    if option.only == "response":
        return RESPONSE_PANEL
    if option.group == "limits" or option.name in _OPERATOR:
        return OPERATOR_PANEL
    return COMMON_PANEL


def _parameter(option: Option, scopes: tuple[str, ...]) -> inspect.Parameter:
    kind, _ = _cli_type(option)
    flag = _flag(option.name)
    decls = [f"{flag}/--no-{flag[2:]}"] if kind is bool else [flag]
    if option.short:
        decls.append(option.short)
    # An older name of another option still works, but --help lists each setting once; one that only another
    # command reads is accepted (with a warning) but not offered.
    hidden = option.alias_of is not None or (option.only is not None and option.only not in scopes)
    info = typer.Option(*decls, help=_help(option), rich_help_panel=_panel(option), hidden=hidden)
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=Annotated[kind | None, info])


def _rank(parameter: inspect.Parameter, main: set[str], order: list[str]) -> tuple[int, int]:
    """Panels in the order a reader wants them (``order``, then ``_LAST``), the main settings first in each."""
    info = next((m for m in getattr(parameter.annotation, "__metadata__", ()) if hasattr(m, "rich_help_panel")),
                None)
    panel = getattr(info, "rich_help_panel", None)
    if panel is None:
        return 0, 0
    place = order.index(panel) + 1 if panel in order else 100 + _LAST.index(panel) if panel in _LAST else 99
    return place, 0 if parameter.name in main else 1


def _method_order() -> list[str]:
    """The default method, then the papers' methods, then the baselines (each group by name)."""
    from factdebate.methods.base import Method
    from factdebate.settings.model import Settings

    default = Settings.model_fields["method"].default
    methods = Method.registered()
    return sorted(methods, key=lambda name: (name != default, ".baselines." in methods[name].__module__, name))


class OptionCommand:
    """A command whose flags come from the option table; its last parameter, ``options``, gets those given."""

    def __init__(self, func: Callable[..., None], skip: set[str], scopes: tuple[str, ...]) -> None:
        self.func, self.skip, self.scopes = func, skip, scopes
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__
        self.own = [p for p in inspect.signature(func, eval_str=True).parameters.values() if p.name != "options"]
        self._signature: tuple[tuple[Any, ...], inspect.Signature] | None = None

    def table(self) -> dict[str, Option]:
        return {name: opt for name, opt in all_options().items() if name not in self.skip}

    @property
    def __signature__(self) -> inspect.Signature:
        # Made once per set of registered methods: Typer reads it (and __annotations__) several times per
        # command each time it builds the CLI, which was 0.1 CPU-seconds of every command's start.
        from factdebate.methods.base import Method

        methods = tuple(Method.registered().items())
        if self._signature is None or self._signature[0] != methods:
            self._signature = (methods, self._build_signature())
        return self._signature[1]

    def _build_signature(self) -> inspect.Signature:
        # Typer calls the command with keywords only, so every flag may be keyword-only and sorted into its
        # panel's place (the arguments keep their order among themselves: the sort is stable).
        own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in self.own]
        options = self.table()
        main = {name for name, option in options.items() if option.main}
        table = [_parameter(option, self.scopes) for option in options.values()]
        order = [COMMON_PANEL, RESPONSE_PANEL, *(method_panel(m) for m in _method_order())]
        return inspect.Signature(sorted([*own, *table], key=lambda parameter: _rank(parameter, main, order)))

    @property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        return {p.name: p.annotation for p in self.__signature__.parameters.values()}

    def __call__(self, **kwargs: Any) -> None:
        table = self.table()
        options = {name: table[name].converted(kwargs.pop(name)) for name in list(kwargs) if name in table}
        self.func(**kwargs, options={k: v for k, v in options.items() if v is not None})


def with_option_flags(skip: set[str], scopes: tuple[str, ...] = SCOPES) -> Callable[[Callable[..., None]],
                                                                                 Callable[..., None]]:
    """Decorator: the command gets one flag per option, except ``skip`` (which it declares itself).
    ``scopes``: which of the options that matter only somewhere (``response``, ``eval``) it reads; the others
    are hidden from its ``--help``."""

    def wrap(func: Callable[..., None]) -> Callable[..., None]:
        return OptionCommand(func, skip, scopes)

    return wrap


def warn_unread(options: dict[str, Any], method: str, command: str, scopes: tuple[str, ...] = SCOPES) -> None:
    """One line on stderr for the given flags that change nothing here; the run goes on."""
    ignored = [f"{_flag(o.name)} (a {o.method} option)" for o in not_read_by(list(options), method)]
    table = all_options()
    where = {"response": "check-response and eval", "eval": "eval"}
    ignored += [f"{_flag(name)} (read by {where[only]} only)" for name in options
                if name in table and (only := table[name].only) is not None and only not in scopes]
    if ignored:
        typer.echo(f"warning: {command} --method {method} ignores {', '.join(ignored)}", err=True)
