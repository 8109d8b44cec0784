"""Command line. Thin: parses flags into settings and calls the library. Results go to stdout; progress,
logs and errors to stderr."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from factdebate.cli import exits
from factdebate.cli.docs import register_docs
from factdebate.cli.help import HelpGroup
from factdebate.cli.index import register_index
from factdebate.cli.interrupts import terminate_as_interrupt
from factdebate.cli.interrupts import was_interrupted as _was_interrupted
from factdebate.cli.options import (
    ConfigFlag,
    DeviationsFlag,
    JsonFlag,
    TraceFlag,
    TraceTextFlag,
    warn_unread,
    with_option_flags,
    with_trace_text,
)
from factdebate.cli.setup import register_setup
from factdebate.scale.options import ExecutorFlag, RayAddressFlag, WorkersFlag
from factdebate.util.errors import FactDebateError, InputError
from factdebate.util.scrub import redact_text, scrub_secrets

app = typer.Typer(cls=HelpGroup, add_completion=False, no_args_is_help=True,
                  help="Check claims by letting LLM agents debate with evidence they retrieve themselves.")
err = Console(stderr=True, soft_wrap=True)  # messages stay greppable: no hard wraps

Opt = typer.Option


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"factdebate {version('factdebate')}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, Opt("--version", callback=_print_version, is_eager=True,
                                       help="Print the version and exit.")] = False) -> None:
    pass


@app.command()
@with_option_flags(skip=set(), scopes=())
def verify(
    claim: Annotated[str | None, typer.Argument(help="The claim to check.")] = None,
    input: Annotated[Path | None, Opt("--input", "-i", help="JSONL of claims for a batch run.")] = None,
    output: Annotated[Path | None, Opt("--output", "-o", help="JSONL results (batch; resumable).")] = None,
    as_json: JsonFlag = False,
    trace: TraceFlag = None,
    trace_text: TraceTextFlag = False,
    config: ConfigFlag = None,
    executor: ExecutorFlag = None,
    ray_address: RayAddressFlag = None,
    workers: WorkersFlag = None,
    deviations: DeviationsFlag = False,
    brief: Annotated[bool, Opt("--brief", "-b", help="Print only the verdict, its reasons and cost: not the "
                               "debate turn by turn (about 100 lines on a terminal before the verdict).")] = False,
    *,
    options: dict[str, Any],
) -> None:
    """Verify one claim, or a JSONL batch with --input/--output."""
    from factdebate.cli.render import thresholds, view_of
    from factdebate.run.build import build_resources
    from factdebate.scale.options import with_scale
    from factdebate.settings.load import settings_from

    settings = with_scale(settings_from(options, config), executor, ray_address, workers)
    warn_unread(options, settings.method, "verify", scopes=())
    text = with_trace_text(trace, trace_text)  # checked before anything heavy loads
    if input is not None:
        if claim is not None:
            raise InputError("give either a claim or --input, not both")
        if output is None:
            raise InputError("--input needs --output (the results file, which also makes the run resumable)")
        if trace_text and settings.scale.executor == "ray":  # its workers' calls would come without their text
            raise InputError("--trace-text records the text of model calls run in this process: leave out "
                             "--executor ray (or drop --trace-text)")
        with text:
            _batch(input, output, settings, trace)
        return
    if output is not None:  # without --input it would be ignored: the user expects a file that never comes
        raise InputError(f"--output {output} is the results file of a batch: give --input FILE too, or, for one "
                         f"claim, drop --output and redirect the verdict: --json > {output}")
    if claim is None:
        raise InputError("give a claim to check, e.g. factdebate verify \"The Eiffel Tower is in Rome.\"")
    if executor == "ray" or ray_address:  # (a config file's scale.executor only concerns batches)
        raise InputError("--executor ray runs batches: give --input FILE --output FILE")
    settings.checked_claim(claim)  # fail before loading anything heavy
    from factdebate.run.foreground import prepare_in_foreground

    prepare_in_foreground(settings)  # a dead model server: one line in seconds, before any build
    resources = build_resources(settings)
    live = None
    if not as_json and not brief:
        from factdebate.cli.render import LiveDebate

        live = LiveDebate(Console(), claim.strip(), thresholds=thresholds(settings.model_dump(mode="json")),
                          view=view_of(settings.method))
    with text:
        verdict = asyncio.run(_verify_one(claim, settings, resources, trace, live))
    if as_json:
        sys.stdout.write(verdict.model_dump_json() + "\n")
    else:
        from factdebate.cli import render

        # the near-chance note right under the label, not last after the paper's differences, where it is missed
        render.render_verdict(verdict, Console(), rounds=not brief and (live is None or live.printed == 0),
                              note=render.settings_note(settings), all_deviations=deviations)
    _vectors_note()


def _vectors_note() -> None:
    """Say that the vectors built in the background are unfinished (the next run takes them up), and stop them."""
    from factdebate.corpus import vectors_later

    if (line := vectors_later.note()) is not None:
        err.print(line, markup=False)
    vectors_later.stop()


async def _verify_one(claim: str, settings: Any, resources: Any, trace: Path | None,
                      live: Callable[[dict[str, Any]], None] | None) -> Any:
    from factdebate.core.runtime import trace_file
    from factdebate.run.claim import run_claim

    with trace_file(trace) as sinks, err.status("starting…") as status:
        sinks += [live] if live else []
        sinks.append(lambda event: status.update(line) if (line := _describe(event)) else None)
        async with resources:
            return await run_claim(claim, settings, resources, sinks=sinks)


def _describe(event: dict[str, Any]) -> str | None:
    """The spinner's line for an event, in words, not raw kinds (`llm_threads`); None keeps the line it has."""
    kind = event.get("event")
    where = f"round {event.get('round')}: {event.get('agent', '')}".strip()
    if kind == "llm_call":
        return f"{where} {event.get('role')} called the model ({event.get('prompt')})"
    if kind == "tool_call":
        return f"{where} searched [{event.get('query')}]"
    if kind == "answer":
        return f"{where} answered {event.get('label') or 'UNPARSED'}"
    if kind == "step":
        return f"{where} step {event.get('index')}: {event.get('tool') or 'no action'}"
    if kind == "judgement":
        return f"{where} decided {event.get('vote') or 'nothing'}"
    if kind == "score":
        return f"{where} scored"
    from pydantic import ValidationError

    from factdebate.core.events import summary

    try:
        return summary(event)  # a kind's own line ("loading the embedded model (…): once per process…")
    except ValidationError:
        return None


def _batch(input: Path, output: Path, settings: Any, trace: Path | None) -> None:
    from factdebate.core.runtime import trace_file
    from factdebate.methods.resources import RunScope
    from factdebate.run.batch import check_batch_resume, claims_from_bytes, in_order_note, read_claim_bytes, run_batch
    from factdebate.run.build import build_resources

    if output.exists() and input.resolve() == output.resolve():
        raise InputError(f"--output {output} is the input file: results go to their own file, e.g. "
                         f"{output.with_suffix('.results.jsonl')}")
    if output.is_dir():
        raise InputError(f"--output {output} is a directory: give a file name, e.g. {output / 'results.jsonl'}")
    raw = read_claim_bytes(input)
    items = claims_from_bytes(raw, input)
    scope = RunScope.of_results(output)  # the batch's own state (MERMAID's memory) sits beside its results
    if note := in_order_note(settings, settings.concurrency if "concurrency" in settings.model_fields_set else None):
        err.print(escape(note))
    from factdebate.run.provenance import write_batch_provenance

    write_batch_provenance(output, settings, input, [item.id for item in items],  # what a rerun needs
                           digest=hashlib.sha256(raw).hexdigest())  # of what was read: a pipe is read once

    async def run_and_close(sinks: list[Any]) -> Any:
        if settings.scale.executor == "ray":
            from factdebate.scale.pool import RayPool

            check_batch_resume(output, settings)  # before starting any worker
            async with RayPool(settings, trace=bool(sinks), run=scope) as pool:
                return await run_batch(items, output, settings, None, sinks=sinks, executor=pool)
        check_batch_resume(output, settings)  # before the batch's state is started
        resources = build_resources(settings, run=scope)
        async with resources:  # services the batch opened close once, at the end
            return await run_batch(items, output, settings, resources, sinks=sinks)

    from factdebate.run.foreground import prepare_in_foreground

    prepare_in_foreground(settings)
    with trace_file(trace) as sinks:
        stats = asyncio.run(run_and_close(sinks))
    err.print(f"{stats.done - stats.errors} verified, {stats.skipped} already done, {stats.errors} errors -> {output}")
    from factdebate.cli.render import print_embedded_note

    print_embedded_note(settings, err, "these verdicts test the pipeline, not the claims")  # stdout is unused
    if stats.errors:
        raise typer.Exit(exits.SOME_FAILED)


register_index(app)  # in its own module: sources, executors and their flags
register_setup(app)  # the model and data packages a wheel needs for the offline default
register_docs(app)  # the README and docs/, shipped in the package: what messages cite


@app.command()
def methods() -> None:
    """List the verification methods, with the flags of their own settings."""
    from factdebate.methods.base import descriptions
    from factdebate.settings.options import all_options

    options = all_options().values()
    listed = descriptions()
    width = max(map(len, listed))  # the longest name (halueval-fewshot) sets the column, not a guess
    for name, description in listed.items():
        typer.echo(f"{name:{width}}  {description}")
        flags = [f"--{o.name.replace('_', '-')}" for o in options if o.method == name]
        if flags:
            typer.echo(f"{'':{width}}  options: {' '.join(flags)}")


@app.command()
def schema(response: Annotated[bool, Opt("--response", help="The schema of check-response's verdict.")] = False,
           events: Annotated[bool, Opt("--events", help="The schema of one trace line: every event kind, each "
                                                        "method's own included.")] = False) -> None:
    """Print the JSON Schema of a verdict (the records of results files and the service's answers), or of a
    trace line."""
    import json

    from factdebate.core.types import ResponseVerdict, Verdict

    if response and events:
        raise InputError("give --response or --events, not both")
    if events:
        from factdebate.core.events import event_json_schema
        from factdebate.methods.base import Method

        Method.registered()  # the registered methods' own event kinds
        typer.echo(json.dumps(event_json_schema(), indent=1))
        return
    typer.echo(json.dumps((ResponseVerdict if response else Verdict).model_json_schema(), indent=1))


@app.command()
def doctor(config: Annotated[Path | None, Opt("--config", "-c")] = None) -> None:
    """Say what is installed and configured: models, corpus indexes, API keys."""
    from factdebate.cli.doctor import run_checks
    from factdebate.settings.load import settings_from

    settings = settings_from({}, config)
    ok = True
    for check in run_checks(settings):
        Console(soft_wrap=True, highlight=False).print(check.line(), markup=True)
        ok = ok and check.status != "fail"
    if not ok:
        raise typer.Exit(1)


# Commands contributed by other packages register here (one import line each).
from factdebate.cli.extensions import register as _register  # noqa: E402

_register(app)


def _usage_error(exc: Exception) -> int | None:
    """For click's or Typer's bundled click's usage error: print it in one line with a hint, and return the exit
    code; None for any other exception."""
    import click

    kinds: tuple[type[Exception], ...] = (click.ClickException,)
    try:
        from typer.exceptions import TyperException

        kinds += (TyperException,)
    except ImportError:  # older Typer: it uses click itself
        pass
    if not isinstance(exc, kinds):
        return None
    if type(exc).__name__ == "NoArgsIsHelpError":
        exc.show()  # type: ignore[attr-defined]
        return exits.USAGE
    ctx = getattr(exc, "ctx", None)
    err.print(f"[bold red]error:[/] {escape(exc.format_message())}")  # type: ignore[attr-defined]
    if ctx is not None:
        err.print(f"Try '{ctx.command_path} --help' for help.", markup=False)
    code = getattr(exc, "exit_code", exits.USAGE)
    return code if isinstance(code, int) else exits.USAGE


def _command_for(argv: list[str]) -> Any:
    """The command line as click runs it: only NAME's command for ``factdebate NAME ...``, else the group."""
    from typer.main import get_command, get_command_name

    name = argv[0] if argv and not argv[0].startswith("-") else None
    commands = [c for c in app.registered_commands
                if name is not None and (c.name or get_command_name(c.callback.__name__ if c.callback else "")) == name]
    groups = [g for g in app.registered_groups
              if name is not None and (g.name or (g.typer_instance.info.name if g.typer_instance else None)) == name]
    if len(commands) + len(groups) != 1:
        return get_command(app)
    one = typer.Typer(cls=HelpGroup, add_completion=False, no_args_is_help=True, help=app.info.help)
    one.registered_callback = app.registered_callback
    one.registered_commands, one.registered_groups = commands, groups
    return get_command(one)


def run(argv: list[str] | None = None) -> int:
    """Run the command line and return its exit code (see :mod:`factdebate.cli.exits`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        code = _command_for(args).main(args=args, prog_name="factdebate", standalone_mode=False)
        if code == exits.INTERRUPTED or _was_interrupted():  # Typer returns Ctrl-C as 130, saying nothing
            err.print("interrupted")
            return exits.INTERRUPTED
        return code if isinstance(code, int) else exits.OK
    except FactDebateError as exc:
        err.print(f"[bold red]error:[/] {escape(scrub_secrets(str(exc)))}")  # a key a server quoted: not shown
        return exits.code_for(exc)
    except KeyboardInterrupt:
        err.print("interrupted")
        return exits.INTERRUPTED
    except typer.Exit as exc:
        if _was_interrupted():
            err.print("interrupted")
            return exits.INTERRUPTED
        return int(exc.exit_code)
    except Exception as exc:  # usage errors arrive here in non-standalone mode
        code = _usage_error(exc)
        if code is not None:
            return code
        if os.environ.get("FACTDEBATE_DEBUG"):
            raise
        err.print(f"[bold red]internal error:[/] {escape(scrub_secrets(redact_text(f'{type(exc).__name__}: {exc}')))}\n"
                  "This is a bug: run again with FACTDEBATE_DEBUG=1 to see the traceback, and report it.")
        return exits.SOME_FAILED


def main() -> None:
    terminate_as_interrupt()
    sys.exit(run())


if __name__ == "__main__":
    main()
