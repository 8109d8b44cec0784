"""``factdebate check-response``: a long answer in (argument, file or stdin), one verdict per claim out."""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from factdebate.cli import exits
from factdebate.cli.fail_on import exit_code, findings, parse_fail_on, summary
from factdebate.cli.options import (
    ConfigFlag,
    JsonFlag,
    TraceFlag,
    TraceTextFlag,
    warn_unread,
    with_option_flags,
    with_trace_text,
)
from factdebate.cli.response_progress import ResponseProgress
from factdebate.core.types import Label, ResponseVerdict
from factdebate.response_level.aggregate import RULES, coverage_line
from factdebate.util.errors import FactDebateError, InputError
from factdebate.util.input_files import STDIN, read_bounded
from factdebate.util.scrub import scrub_secrets

if TYPE_CHECKING:  # the command's imports stay lazy: `--help` reads none of the run layer
    from factdebate.core.runtime import EventSink
    from factdebate.methods.resources import Resources
    from factdebate.settings.model import Settings

Opt = typer.Option
RESPONSE_LIMIT = "response.max_response_chars"
T = TypeVar("T")


def read_response(text: str | None, file: Path | None, max_chars: int) -> str:
    """The text from the argument, ``--file``, or stdin (``-`` or piped input), read within bounds."""
    if text is not None and file is not None:
        raise InputError("give the response as an argument or with --file, not both")
    limit = 4 * max_chars + 64 * 1024
    if file is not None:
        raw = read_bounded(file, what="--file", limit=limit, setting=RESPONSE_LIMIT)
        if not raw:
            raise InputError(f"--file {file} is empty (a pipe gives nothing when no program writes to it): give "
                             "the text to check")
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError(f"--file {file} is not UTF-8 text") from None
    if text == "-" or (text is None and not sys.stdin.isatty()):
        return _read_stdin(limit)
    if text is None:
        raise InputError('give the response to check: factdebate check-response "TEXT", --file FILE, or pipe it in')
    return text


def _read_stdin(limit: int) -> str:
    try:
        sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a test's or a host's text stream: read it bounded
        shown = sys.stdin.read(limit + 1)
        if len(shown) > limit:
            raise InputError(f"standard input holds more than {limit} characters (set {RESPONSE_LIMIT} to change "
                             "it)") from None
        return shown
    if sys.stdin.isatty():
        raise InputError("standard input is a terminal: pipe the response in, or give it as an argument or with "
                         "--file")
    raw = read_bounded(STDIN, what="standard input", limit=limit, setting=RESPONSE_LIMIT)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("standard input is not UTF-8 text") from None


def render_response(verdict: ResponseVerdict, console: Console) -> None:
    from factdebate.cli.render import models_part, print_script_notes

    table = Table(title="Claims", show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("claim")
    table.add_column("verdict")
    table.add_column("decided by")
    for check in verdict.claims:
        shown = check.label.value if check.label else ("ERROR" if check.error else "UNPARSED")
        how = scrub_secrets(check.error) if check.error else (check.verdict.decided_by if check.verdict else "")
        table.add_row(str(check.index + 1), escape(check.claim), shown, escape(how))
    extraction = verdict.extraction
    if not extraction.parsed:
        console.print(f"[bold red]claims could not be extracted[/] (re-asked {extraction.parse_retries}x); "
                      f"last reply: {escape(extraction.raw[:300])}")
    if extraction.subjective_removed is False:
        console.print("[yellow]the subjective-content filter's reply was unreadable: claims were taken from "
                      "the whole response[/]")
    if verdict.claims:
        console.print(table)
    for sentence in verdict.unchecked:  # what the verdict says nothing about, and why
        why = sentence.reason + (f" (only part was checked: {sentence.note})" if sentence.partly else
                                 f" (the extractor's claim: {sentence.note})" if sentence.note else "")
        console.print(f"[dim]not checked: {escape(why)}:[/] {escape(sentence.text)}")
    if (covered := coverage_line(verdict)) is not None:  # how much of the response the claims checked
        console.print(escape(covered))
    label = verdict.label.value if verdict.label else "UNPARSED"
    meaning = {True: "factual", False: "not factual", None: "undecided"}[verdict.factual]
    how = f"{verdict.decided_by}: {RULES[verdict.decided_by]}" if verdict.decided_by in RULES else verdict.decided_by
    if verdict.decided_by == "all-true" and verdict.unchecked:  # never "every claim" over unchecked sentences
        how = (f"all-true: every claim checked is supported, but {len(verdict.unchecked)} of "
               f"{verdict.sentences or len(verdict.unchecked)} sentences were not checked")
    console.print(f"Response: [bold]{label}[/] ({meaning}; {how}); "
                  f"{verdict.usage.llm_calls} LLM calls, {verdict.usage.tool_calls} tool calls, "
                  f"{verdict.usage.seconds:.1f} s{escape(models_part(verdict.usage_by_model))}")
    print_script_notes(verdict.warnings, console)


def register_check_response(app: typer.Typer) -> None:
    @app.command("check-response")
    @with_option_flags(skip=set(), scopes=("response",))
    def check_response(
        text: Annotated[str | None, typer.Argument(help="The response to check ('-': read stdin).")] = None,
        file: Annotated[Path | None, Opt("--file", "-f", help="Read the response from this file.")] = None,
        question: Annotated[str | None, Opt("--question", "-q", help="The question it answers.")] = None,
        fail_on: Annotated[str | None, Opt(
            "--fail-on", metavar="KINDS",
            help="Exit 1 when the response holds a refuted claim, 4 when it holds one of the other kinds named and "
                 "none refuted, 3 when the check itself failed (kinds, comma-separated: refuted, unchecked, "
                 "not-enough-info): for a re-run loop or a CI step.")] = None,
        feedback: Annotated[Path | None, Opt(
            "--feedback", metavar="FILE",
            help="Write the refuted claims to FILE, each with a correction and quotes from its evidence, as a note "
                 "to hand back to the agent; an empty file when none is refuted.")] = None,
        deadline: Annotated[float | None, Opt(
            "--deadline", metavar="SECONDS",
            help="Stop the check SECONDS after the command started: one line on stderr says what it had decided, "
                 "and it exits 3 under --fail-on (1 otherwise) with no verdict.")] = None,
        as_json: JsonFlag = False,
        trace: TraceFlag = None,
        trace_text: TraceTextFlag = False,
        config: ConfigFlag = None,
        *,
        options: dict[str, Any],
    ) -> None:
        """Split a long answer into atomic claims, check each with --method, and call the answer false if
        any claim is false."""
        from factdebate.cli import feedback as notes
        from factdebate.core.runtime import trace_file
        from factdebate.settings.load import settings_from

        # What stderr says as the check goes, and where --deadline is counted from: the command's start.
        err = Console(stderr=True, soft_wrap=True)
        progress = ResponseProgress(lambda line: err.print(line, markup=False, highlight=False))
        kinds = parse_fail_on(fail_on)  # a misspelt kind stops here, before anything is read or run
        _check_deadline(deadline)
        settings = settings_from(options, config)
        response = read_response(text, file, settings.response.max_response_chars)
        if feedback is not None:
            notes.clear(feedback)  # a check that fails must not leave the last run's note to be fed again
        warn_unread(options, settings.method, "check-response", scopes=("response",))
        transcript = with_trace_text(trace, trace_text)
        _, asked = settings.response.checked_answer(response, question)
        with trace_file(trace) as traced, transcript:
            verdict, note = _checked(settings, response, asked, feedback is not None, kinds, err,
                                     [progress, *traced], _Deadline(deadline, progress))
        if feedback is not None and note:
            notes.write(feedback, note)
        _report(verdict, settings, as_json, kinds, err)


def _check_deadline(deadline: float | None) -> None:
    if deadline is not None and not (math.isfinite(deadline) and deadline > 0):
        raise InputError(f"--deadline {deadline:g}: give the seconds the check may take, a number above 0")


class _Deadline:
    """``--deadline``: the check's work cut off that many seconds after the command started (None: never)."""

    def __init__(self, seconds: float | None, progress: ResponseProgress) -> None:
        self.seconds, self.progress = seconds, progress

    async def within(self, work: Awaitable[T]) -> T:
        """``work``, while the progress lines tick; past the deadline, cancelled (an in-process model stops at
        its next token) and :class:`~factdebate.cli.response_progress.DeadlinePassed` raised."""
        ticker = asyncio.create_task(self.progress.tick())
        try:
            return await (work if self.seconds is None else self._cut_at_deadline(work, self.seconds))
        finally:
            ticker.cancel()

    async def _cut_at_deadline(self, work: Awaitable[T], seconds: float) -> T:
        task = asyncio.current_task()
        assert task is not None  # run by asyncio.run

        def expire() -> None:
            # Said before the cancellation reaches the claims, so that none reads as a check that failed.
            self.progress.stopped = True
            task.cancel()

        timer = asyncio.get_running_loop().call_later(max(0.0, seconds - self.progress.elapsed()), expire)
        try:
            return await work
        except asyncio.CancelledError:
            if not self.progress.stopped or task.uncancel() > 0:  # another's cancellation (Ctrl-C) goes on
                raise
            raise self.progress.cut_short(seconds) from None
        finally:
            timer.cancel()


def _checked(settings: Settings, response: str, question: str | None, with_feedback: bool, kinds: frozenset[str],
             err: Console, traced: list[EventSink], deadline: _Deadline) -> tuple[ResponseVerdict, str | None]:
    """The response's verdict and, ``with_feedback``, the note of corrections for its refuted claims."""
    from factdebate.cli import feedback as notes
    from factdebate.guard_engine.call import CheckCall, LocalHost
    from factdebate.guard_engine.types import GuardOptions
    from factdebate.run.build import build_resources
    from factdebate.run.foreground import prepare_in_foreground
    from factdebate.run.model_servers import ModelServerDown

    try:
        prepare_in_foreground(settings)  # a dead model server: one line in seconds, before any build
    except ModelServerDown as exc:
        if not kinds:
            raise
        err.print(f"[bold red]error:[/] {escape(str(exc))}")
        raise typer.Exit(exits.CHECK_FAILED) from None
    resources = build_resources(settings)

    @asynccontextmanager
    async def opened(_: Settings) -> AsyncIterator[tuple[Resources, list[EventSink]]]:
        yield resources, []  # opened by go(): the corrections after the check use the same models

    async def go() -> tuple[ResponseVerdict, str | None]:
        # The one call every door of check-response makes (guard_engine/call.py), with this process as its host.
        async with resources:
            with err.status("extracting claims…") as status:
                sinks: list[EventSink] = [lambda event: status.update(_progress(event)), *traced]
                verdict = await CheckCall((), GuardOptions(), question).check_response(
                    response, LocalHost(settings, opened), sinks=sinks)
                if not with_feedback:
                    return verdict, None
                status.update("writing corrections for the refuted claims…")
                refuted = sum(check.label == Label.REFUTES for check in verdict.claims)
                if refuted:
                    deadline.progress.step = "writing corrections"
                    deadline.progress.say(f"writing corrections for {refuted} refuted claim(s)")
                fixes = await notes.counted_fixes(verdict, resources.llm("debater"))
                return verdict, notes.note(fixes)

    try:
        return asyncio.run(deadline.within(go()))
    except FactDebateError as exc:
        if not kinds or exits.code_for(exc) == exits.USAGE:
            raise
        err.print(f"[bold red]error:[/] {escape(str(exc))}")
        raise typer.Exit(exits.CHECK_FAILED) from None


def _report(verdict: ResponseVerdict, settings: Settings, as_json: bool, kinds: frozenset[str], err: Console) -> None:
    """The verdict on stdout (JSON or a table), and the exit code (``--fail-on``'s, else verify's)."""
    if as_json:
        sys.stdout.write(verdict.model_dump_json() + "\n")
    else:
        from factdebate.cli.render import print_embedded_note

        render_response(verdict, Console())
        print_embedded_note(settings, Console(soft_wrap=True),
                            "this response's verdict tests the pipeline, not the response")
    if kinds:
        found = findings(verdict)
        err.print(escape(summary(found, kinds)))
        if (code := exit_code(found, kinds)) != exits.OK:
            raise typer.Exit(code)
        return
    if any(check.error for check in verdict.claims):
        raise typer.Exit(exits.SOME_FAILED)


def _progress(event: dict[str, Any]) -> str:
    kind = event.get("event")
    if kind == "claims_extracted":
        return f"{len(event.get('claims', []))} claim(s) to check"
    if kind == "run_started":
        return f"checking: {str(event.get('claim', ''))[:70]}"
    if kind == "verdict":
        return f"claim decided: {event.get('label') or 'UNPARSED'}"
    return str(kind)
