"""The public Python API: ``verify``/``averify`` (one claim), ``verify_many``/``averify_many`` (a batch, with
progress and resume), ``check_response``/``acheck_response`` (a long answer, claim by claim),
``guard``/``aguard`` (a chat reply within a deadline), ``aguard_stream`` (a reply checked while it streams).
Nothing inside the package imports this module; the CLI, the service and the harness use the run layer
directly.

Every function takes the same keywords: the shared options (:class:`~factdebate.settings.keywords.SharedOptions`,
typed, so a misspelt one fails a type check), passages as ``evidence`` and where evidence comes from as
``evidence_mode``, the method's own options as ``method_options`` (flat names, as ``factdebate methods`` lists
them: ``{"dpd_max_rounds": 2}``, typed per method in :mod:`factdebate.settings.method_keywords`), and
``config_file``, ``trace``, ``on_event`` and ``backends``. The guard's keywords are declared once, in
:class:`GuardKeywords`."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import typing
import warnings
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, Unpack

from pydantic import ValidationError

from factdebate.core.errors import EventLoopError
from factdebate.core.runtime import EventSink
from factdebate.core.types import Document, ResponseVerdict, Verdict
from factdebate.guard_engine.call import CheckCall, LocalHost, Reply
from factdebate.guard_engine.local import conversation_of, local_host
from factdebate.guard_engine.stream_policy import StreamOut, check_stream
from factdebate.guard_engine.types import (
    EvidenceMode,
    GuardEvidence,
    GuardOptions,
    GuardResult,
    OnUnchecked,
    Policy,
    Reviser,
    Tier,
)
from factdebate.llm.base import Backend
from factdebate.run.claim import run_claim, session
from factdebate.settings.keywords import SharedOptions
from factdebate.settings.load import settings_from
from factdebate.settings.method_keywords import MethodOptions
from factdebate.settings.options import not_read_by
from factdebate.util.errors import ConfigError, InputError

if TYPE_CHECKING:  # the batch's parts are imported when a batch runs
    from factdebate.run.batch import ClaimItem

__all__ = ["BatchProgress", "EvidenceMode", "GuardKeywords", "Passage", "acheck_response", "aguard", "aguard_stream",
           "averify", "averify_many", "check_response", "guard", "verify", "verify_many"]

# One passage given with the claim or the answer: its text, {"title": ..., "text": ..., "url": ...}, or a
# Document (a search result) or GuardEvidence already made. A value may be None ("url": None, a passage
# without an address), as a reader writes it: a field that must be text then says so when it is read.
Passage = str | Mapping[str, str | None] | Document | GuardEvidence
_MODES: tuple[str, ...] = typing.get_args(EvidenceMode)
_Item = TypeVar("_Item", covariant=True)


class Passages(Protocol[_Item]):
    """A list or tuple of passages, never one string nor one dict. A ``str`` is itself a sequence of strings
    and a dict iterates over its keys, so with ``Sequence[str]`` or ``Iterable`` the mistakes
    ``evidence="a passage"`` and ``evidence={"text": ...}`` passed a type check and failed (or read the keys)
    at run time. What a checker can tell apart: a list's ``in`` takes any object, a string's only a string; a
    list is indexed by position, a dict by key."""

    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[_Item]: ...
    def __contains__(self, value: object, /) -> bool: ...
    def __getitem__(self, index: int, /) -> _Item: ...


def _trace_path(trace: str | Path | None) -> None:
    """A trace file that cannot be written is the caller's mistake, said in one line before anything runs (it
    surfaced as Python's ``FileNotFoundError`` or ``IsADirectoryError`` once the run had started)."""
    if trace is not None:
        from factdebate.core.pathcheck import output_file

        output_file(trace, "trace file", "trace.jsonl")


def _not_in_a_running_loop(name: str) -> None:
    """The blocking calls run ``asyncio.run``, which cannot start where a loop already runs (a notebook):
    say so with the async call to use, before a coroutine is made."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise EventLoopError(name)


def _flat(options: Mapping[str, Any], method_options: Mapping[str, object] | None) -> dict[str, Any]:
    merged = dict(options)
    for name, value in (method_options or {}).items():
        if name in merged:
            raise ConfigError(f"option '{name}' is given twice: as a keyword and in method_options")
        merged[name] = value
    return merged


def _warn_unread(options: Mapping[str, Any], method: str) -> None:
    """An option the chosen method never reads is most likely a mistake (``method="cot", rounds=2``)."""
    for option in not_read_by([k for k, v in options.items() if v is not None], method):
        warnings.warn(f"option '{option.name}' is {option.method}'s: method {method} ignores it", UserWarning,
                      stacklevel=2)


def _evidence(name: str, evidence: object, mode: EvidenceMode | None
              ) -> tuple[list[GuardEvidence] | None, EvidenceMode | None]:
    """``evidence`` and ``evidence_mode`` as each public function takes them -> (the passages, none when
    empty; the mode)."""
    if mode is not None and mode not in _MODES:
        raise ConfigError(f"evidence_mode={mode!r}: it is one of {', '.join(_MODES)}")
    if isinstance(evidence, str):
        if evidence in _MODES:
            raise ConfigError(f"evidence= takes the passages; where evidence comes from is evidence_mode={evidence!r}")
        raise ConfigError(f"evidence= takes a list of passages, not one string: evidence=[{evidence[:40]!r}"
                          f"{'...' if len(evidence) > 40 else ''}]")
    if evidence is None:
        return None, mode
    if isinstance(evidence, Mapping):
        raise ConfigError("evidence= takes a list of passages: put the one passage in a list, evidence=[{...}]")
    if not isinstance(evidence, Sequence):
        raise ConfigError(f"evidence= takes a list or tuple of passages, not a {type(evidence).__name__}")
    items = [_passage(item, number) for number, item in enumerate(evidence, start=1)]
    return items or None, mode


def _passage(item: object, number: int) -> GuardEvidence:
    if isinstance(item, GuardEvidence):
        return item
    if isinstance(item, Document):
        return GuardEvidence(title=item.title, text=item.text, url=item.source or None)
    if not isinstance(item, str | Mapping):
        raise ConfigError(f"evidence item {number} ({type(item).__name__}) is not a passage: a passage is its text "
                          'or {"title": ..., "text": ..., "url": ...}')
    try:
        return GuardEvidence.model_validate({"text": item} if isinstance(item, str) else dict(item))
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise InputError(f"evidence item {number}: {where}: {error['msg']} (a passage is its text or "
                         '{"title": ..., "text": ..., "url": ...})') from None


async def _verify(claim: str, given: list[Document] | None, flat: dict[str, Any], config_file: str | Path | None,
                  trace: str | Path | None, on_event: EventSink | None,
                  backends: dict[str, Backend] | None) -> Verdict:
    from factdebate.tools.given import given_evidence

    settings = settings_from(flat, config_file)
    _warn_unread(flat, settings.method)
    _trace_path(trace)
    async with session(settings, backends, on_event, trace) as (resources, sinks):
        with given_evidence(given):
            return await run_claim(claim, settings, resources, sinks=sinks)


def _claim_settings(evidence: list[GuardEvidence] | None, mode: EvidenceMode | None,
                    flat: dict[str, Any]) -> list[Document] | None:
    """The documents the agents are given, and ``flat``'s evidence mode set: ``both`` when passages come
    without a mode (as for check_response, the guard and the service)."""
    from factdebate.guard_engine.evidence import passages

    if mode is not None:
        flat["evidence"] = mode
    if evidence is None:
        return None
    flat.setdefault("evidence", "both")
    return passages(evidence)


async def averify(claim: str, *, evidence: Passages[Passage] | None = None,
                  evidence_mode: EvidenceMode | None = None, config_file: str | Path | None = None,
                  trace: str | Path | None = None, on_event: EventSink | None = None,
                  backends: dict[str, Backend] | None = None, method_options: MethodOptions | None = None,
                  **options: Unpack[SharedOptions]) -> Verdict:
    """Check one claim and return its :class:`~factdebate.core.types.Verdict`.

    ``evidence``: passages that come with the claim (each its text or ``{"title", "text", "url"}``; long ones
    are split), read by the agents before retrieval (``evidence_mode="both"``, the default when passages are
    given) or instead of it (``"given"``); ``"retrieved"`` ignores them. ``on_event`` receives every trace
    event as a dict while the run goes on; ``trace`` appends them to a JSONL file.

    Example::

        import factdebate as fd

        async def main() -> None:
            verdict = await fd.averify("Paris is the capital of France.", llm="openai:gpt-4o-mini", rounds=2,
                                       on_event=lambda event: print(event["event"]))
            print(verdict.label, verdict.decided_by)
    """
    flat = _flat(options, method_options)
    items, mode = _evidence("averify", evidence, evidence_mode)
    given = _claim_settings(items, mode, flat)
    return await _verify(claim, given, flat, config_file, trace, on_event, backends)


def verify(claim: str, *, evidence: Passages[Passage] | None = None, evidence_mode: EvidenceMode | None = None,
           config_file: str | Path | None = None, trace: str | Path | None = None,
           on_event: EventSink | None = None, backends: dict[str, Backend] | None = None,
           method_options: MethodOptions | None = None, **options: Unpack[SharedOptions]) -> Verdict:
    """Check one claim and return its :class:`~factdebate.core.types.Verdict` (:func:`averify` in an event
    loop of its own: call ``averify`` from async code).

    Example::

        import factdebate as fd

        verdict = fd.verify("The Eiffel Tower is in Rome.")  # Tool-MAD on the embedded model, offline
        print(verdict.label, verdict.decided_by, verdict.usage.llm_calls)
        fd.verify("The Eiffel Tower is in Rome.", method="dpd", llm="openai:gpt-4o-mini", k=5,
                  method_options={"dpd_max_rounds": 2},
                  evidence=[{"title": "Guide", "text": "The Eiffel Tower is in Paris."}])
    """
    _not_in_a_running_loop("verify")
    flat = _flat(options, method_options)
    items, mode = _evidence("verify", evidence, evidence_mode)
    given = _claim_settings(items, mode, flat)
    return asyncio.run(_verify(claim, given, flat, config_file, trace, on_event, backends))


@dataclass(frozen=True)
class BatchProgress:
    """Where a batch stands after one more claim is finished: ``done`` of ``total`` (claims a results file held
    already count as done from the start), and the verdict just made (its ``error`` set when its check failed)."""

    done: int
    total: int
    verdict: Verdict


def _batch_claims(claims: object) -> list[str]:
    """The claims of a batch, each a string."""
    if isinstance(claims, str | Mapping) or not isinstance(claims, Sequence):
        raise ConfigError("verify_many takes a list or tuple of claims, e.g. verify_many([\"The Eiffel Tower is in "
                          "Rome.\", ...]); for one claim, use verify")
    wrong = next((n for n, claim in enumerate(claims, start=1) if not isinstance(claim, str)), None)
    if wrong is not None:
        raise ConfigError(f"claim {wrong} of the batch is not a string ({type(claims[wrong - 1]).__name__})")
    return list(claims)


def _verdict_of(record: Mapping[str, Any], method: str) -> Verdict:
    """A results record read back as the verdict it holds; a claim whose check failed is a verdict without a
    label, its ``error`` saying why (``decided_by`` "error")."""
    if record.get("error"):
        return Verdict(claim=str(record.get("claim", "")), method=method, label=None, decided_by="error",
                       error=str(record["error"]), config=dict(record.get("config") or {}))
    return Verdict.model_validate({k: v for k, v in record.items() if k in Verdict.model_fields})


@contextlib.contextmanager
def _results_file(results: str | Path | None) -> Iterator[Path]:
    """The results file a batch writes: the caller's (kept: a later call with it resumes), or a temporary one."""
    if results is not None:
        from factdebate.core.pathcheck import output_file

        yield output_file(results, "results file", "results.jsonl")
        return
    with tempfile.TemporaryDirectory(prefix="factdebate-batch-") as folder:
        yield Path(folder) / "results.jsonl"


def _batch_items(claims: list[str]) -> tuple[list[str], list[ClaimItem]]:
    """Each claim's id (the one a results file knows it by), and the items to run: a claim given twice once."""
    from factdebate.run.batch import ClaimItem, claim_id

    ids = [claim_id(claim) for claim in claims]
    first: dict[str, str] = {}
    for i, claim in zip(ids, claims, strict=True):
        first.setdefault(i, claim)
    return ids, [ClaimItem(i, claim, {}) for i, claim in first.items()]


async def _verify_many(claims: list[str], results: str | Path | None, flat: dict[str, Any],
                       config_file: str | Path | None, trace: str | Path | None, on_event: EventSink | None,
                       backends: dict[str, Backend] | None, progress: bool,
                       on_progress: Callable[[BatchProgress], None] | None) -> list[Verdict]:
    from factdebate.core.runtime import trace_file
    from factdebate.methods.resources import RunScope
    from factdebate.run.batch import run_batch
    from factdebate.run.build import build_resources
    from factdebate.run.results_file import finished_ids, latest_records

    settings = settings_from(flat, config_file)
    _warn_unread(flat, settings.method)
    _trace_path(trace)
    ids, items = _batch_items(claims)
    with _results_file(results) as path:
        done = len({item.id for item in items} & finished_ids(path)) if path.exists() else 0

        def finished(record: dict[str, Any]) -> None:
            nonlocal done
            done += 1
            if on_progress is not None:
                on_progress(BatchProgress(done, len(items), _verdict_of(record, settings.method)))

        resources = build_resources(settings, backends=backends, run=RunScope.of_results(path))
        with trace_file(trace) as traced:
            async with resources:
                await run_batch(items, path, settings, resources, sinks=[*([on_event] if on_event else []), *traced],
                                progress=progress, on_result=finished)
        records = latest_records(path)
    by_id = {item.id: _verdict_of(records[item.id], settings.method) for item in items}
    return [by_id[i] for i in ids]


async def averify_many(claims: Passages[str], *, results: str | Path | None = None,
                       on_progress: Callable[[BatchProgress], None] | None = None, progress: bool = False,
                       evidence_mode: EvidenceMode | None = None, config_file: str | Path | None = None,
                       trace: str | Path | None = None, on_event: EventSink | None = None,
                       backends: dict[str, Backend] | None = None, method_options: MethodOptions | None = None,
                       **options: Unpack[SharedOptions]) -> list[Verdict]:
    """Check several claims, a few at a time (``concurrency``), and return their verdicts in the claims' order.

    ``results``: a JSONL file of one record per claim, written as each claim is finished; a later call with the
    same file and settings checks only the claims it does not hold yet (and retries those whose check failed),
    as ``factdebate verify --input ... --output ...`` does. ``on_progress`` is called after each claim with a
    :class:`BatchProgress`; ``progress=True`` draws a bar on stderr instead. A claim whose check failed is a
    verdict with ``label`` None and ``error`` set; the batch goes on.

    Example::

        import factdebate as fd

        async def main() -> None:
            verdicts = await fd.averify_many(["The Eiffel Tower is in Rome.", "Honey never spoils."],
                                             method="cot", results="results.jsonl")
            for verdict in verdicts:
                print(verdict.claim, verdict.label, verdict.error)
    """
    wanted = _batch_claims(claims)
    flat = _flat(options, method_options)
    _, mode = _evidence("averify_many", None, evidence_mode)
    if mode is not None:
        flat["evidence"] = mode
    return await _verify_many(wanted, results, flat, config_file, trace, on_event, backends, progress, on_progress)


def verify_many(claims: Passages[str], *, results: str | Path | None = None,
                on_progress: Callable[[BatchProgress], None] | None = None, progress: bool = False,
                evidence_mode: EvidenceMode | None = None, config_file: str | Path | None = None,
                trace: str | Path | None = None, on_event: EventSink | None = None,
                backends: dict[str, Backend] | None = None, method_options: MethodOptions | None = None,
                **options: Unpack[SharedOptions]) -> list[Verdict]:
    """:func:`averify_many` in an event loop of its own.

    Example::

        import factdebate as fd

        def show(step: fd.BatchProgress) -> None:
            print(f"{step.done}/{step.total}", step.verdict.claim, step.verdict.label)

        verdicts = fd.verify_many(["The Eiffel Tower is in Rome.", "Honey never spoils."], method="cot",
                                  results="results.jsonl", on_progress=show)  # run it again: nothing is redone
    """
    _not_in_a_running_loop("verify_many")
    return asyncio.run(averify_many(claims, results=results, on_progress=on_progress, progress=progress,
                                    evidence_mode=evidence_mode, config_file=config_file, trace=trace,
                                    on_event=on_event, backends=backends, method_options=method_options, **options))


async def acheck_response(response: str, *, question: str | None = None, evidence: Passages[Passage] | None = None,
                          evidence_mode: EvidenceMode | None = None, config_file: str | Path | None = None,
                          trace: str | Path | None = None, on_event: EventSink | None = None,
                          backends: dict[str, Backend] | None = None,
                          method_options: MethodOptions | None = None,
                          **options: Unpack[SharedOptions]) -> ResponseVerdict:
    """Check a long answer claim by claim with the full method: a :class:`~factdebate.core.types.ResponseVerdict`,
    false as soon as one claim is false.

    ``evidence``: passages the answer rests on, read by the agents before (``evidence_mode="both"``, the
    default) or instead of (``"given"``) retrieval. A check within a deadline, with a policy, is
    :func:`aguard`'s (the same keywords, a ``GuardResult``).

    Example::

        import factdebate as fd

        async def main() -> None:
            verdict = await fd.acheck_response("Paris is in France. It has 90 million inhabitants.",
                                               question="Tell me about Paris.")
            for claim in verdict.claims:
                print(claim.claim, claim.label)
    """
    items, mode = _evidence("acheck_response", evidence, evidence_mode)
    return await _acheck_response(response, question, items, mode, _flat(options, method_options), config_file,
                                  trace, on_event, backends)


async def _acheck_response(response: str, question: str | None, items: list[GuardEvidence] | None,
                           mode: EvidenceMode | None, flat: dict[str, Any],
                           config_file: str | Path | None, trace: str | Path | None, on_event: EventSink | None,
                           backends: dict[str, Backend] | None) -> ResponseVerdict:
    from factdebate.tools.given import given_evidence

    given = _claim_settings(items, mode, flat)  # sets flat's evidence mode: before the settings
    settings = settings_from(flat, config_file)
    text, asked = settings.response.checked_answer(response, question)  # checked before anything is built
    _trace_path(trace)
    host = LocalHost(settings, lambda s: session(s, backends, on_event, trace))
    with given_evidence(given):
        return await CheckCall((), GuardOptions(), asked).check_response(text, host)  # guard_engine/call.py


def check_response(response: str, *, question: str | None = None, evidence: Passages[Passage] | None = None,
                   evidence_mode: EvidenceMode | None = None, config_file: str | Path | None = None,
                   trace: str | Path | None = None, on_event: EventSink | None = None,
                   backends: dict[str, Backend] | None = None, method_options: MethodOptions | None = None,
                   **options: Unpack[SharedOptions]) -> ResponseVerdict:
    """:func:`acheck_response` in an event loop of its own.

    Example::

        import factdebate as fd

        verdict = fd.check_response("The Eiffel Tower is in Paris. It was finished in 1789.", method="cot")
        print(verdict.label, [(c.claim, c.label) for c in verdict.claims])
    """
    _not_in_a_running_loop("check_response")
    items, mode = _evidence("check_response", evidence, evidence_mode)
    return asyncio.run(_acheck_response(response, question, items, mode, _flat(options, method_options),
                                        config_file, trace, on_event, backends))


class GuardKeywords(SharedOptions, total=False):
    """The keywords of :func:`aguard`, :func:`aguard_stream` and :func:`guard`: the shared options and these.
    ``None`` takes the operator's default of each guard option."""

    question: str | None  # the question the reply answers (else a conversation's last user message)
    policy: Policy | None  # flag (guard.policy's default), annotate, hold, rewrite or block
    tier: Tier | None  # where each claim starts: fast, standard or deep
    deadline_s: float | None  # seconds for the whole check
    evidence: Passages[Passage] | None  # passages the reply rests on, as for verify
    evidence_mode: EvidenceMode | None  # read before retrieval ("both", the default) or instead of it ("given")
    conversation_id: str | None
    on_unchecked: OnUnchecked | None
    reviser: Reviser | None  # rewrites the answer for policy="rewrite"
    config_file: str | Path | None
    trace: str | Path | None
    on_event: EventSink | None
    backends: dict[str, Backend] | None
    method_options: MethodOptions | None


_GUARD_CHOSEN = ("policy", "tier", "deadline_s", "conversation_id", "on_unchecked")


def _guard_host(name: str, options: Mapping[str, Any]) -> tuple[GuardOptions, LocalHost, str | None]:
    """The guard's options, its host and the question, from the keywords; an option of the wrong kind
    (``policy="nope"``) is a ``ConfigError`` in one line, as a setting's is, not pydantic's own error."""
    from factdebate.settings.model import validation_problems

    rest = dict(options)
    items, mode = _evidence(name, rest.pop("evidence", None), rest.pop("evidence_mode", None))
    chosen = {key: rest.pop(key, None) for key in _GUARD_CHOSEN} | {"evidence": items, "evidence_mode": mode}
    question = rest.pop("question", None)
    config_file, trace, on_event, backends, reviser, method_options = (
        rest.pop(key, None) for key in ("config_file", "trace", "on_event", "backends", "reviser", "method_options"))
    flat = {**{k: v for k, v in chosen.items() if v is not None}, **_flat(rest, method_options)}
    _trace_path(trace)
    try:
        guard_options, host = local_host(flat, config_file, trace, on_event, backends, reviser)
    except ValidationError as exc:
        raise ConfigError(f"invalid guard option: {validation_problems(exc)}") from None
    return guard_options, host, question


async def aguard(reply: str | list[dict[str, Any]], **options: Unpack[GuardKeywords]) -> GuardResult:
    """Check a chat reply within a deadline and apply a policy (annotate, flag, hold, rewrite or block).

    ``reply``: its text, or the conversation (OpenAI-style messages: the last assistant message is checked,
    ``role: "tool"`` messages are evidence, the last user message is the question). The keywords:
    :class:`GuardKeywords`.

    Example::

        import factdebate as fd

        async def main() -> None:
            result = await fd.aguard([{"role": "user", "content": "Where is the Eiffel Tower?"},
                                      {"role": "assistant", "content": "It is in Rome."}],
                                     tier="fast", deadline_s=10, policy="flag")
            print(result.action_taken, [(c.claim, c.status, c.label) for c in result.claims])
    """
    guard_options, host, question = _guard_host("aguard", options)
    messages, one = conversation_of(reply) if isinstance(reply, list) else ([], Reply(reply))
    [result] = await CheckCall(messages, guard_options, question).check_replies([one], host)  # guard_engine/call.py
    return result


async def aguard_stream(deltas: AsyncIterable[str], *, messages: list[dict[str, Any]] | None = None,
                        **options: Unpack[GuardKeywords]) -> AsyncIterator[StreamOut]:
    """Check a chat reply while it streams, under a policy, with :func:`aguard`'s keywords: ``deltas`` is the
    reply's text as it arrives, ``messages`` the conversation before it (its ``role: "tool"`` messages are
    evidence, its last user message the question). Yields :class:`~factdebate.guard_engine.stream_policy.StreamOut`
    items: ``kind="text"`` is what the reader may see now (under ``hold`` each part once its claims are
    decided, under ``block``/``rewrite`` nothing until the check is done), ``"claim"`` a claim's verdict as it
    is decided, and ``"result"`` (last) the :class:`GuardResult`. Closing the generator early stops the check.

    Example::

        from collections.abc import AsyncIterator

        import factdebate as fd

        async def main(deltas: AsyncIterator[str]) -> None:  # text pieces, e.g. from an LLM stream
            async for out in fd.aguard_stream(deltas, policy="hold", tier="fast", deadline_s=10,
                                              messages=[{"role": "user", "content": "Where is the Eiffel Tower?"}]):
                if out.kind == "text":
                    print(out.text, end="")
                elif out.result is not None:  # the last item: the whole check's result
                    print(out.result.action_taken, [(c.claim, c.label) for c in out.result.claims])
    """
    guard_options, host, question = _guard_host("aguard_stream", options)
    async for out in check_stream(CheckCall(messages or [], guard_options, question), deltas, host):
        yield out


def guard(reply: str | list[dict[str, Any]], **options: Unpack[GuardKeywords]) -> GuardResult:
    """:func:`aguard` in an event loop of its own.

    Example::

        import factdebate as fd

        result = fd.guard("The Eiffel Tower is in Rome.", tier="fast", deadline_s=10, policy="flag",
                          evidence=[{"title": "Guide", "text": "The Eiffel Tower is in Paris."}])
        for claim in result.claims:
            print(claim.claim, claim.label, claim.status, claim.span, claim.correction)
        print(result.text)  # the reply as the policy leaves it
    """
    _not_in_a_running_loop("guard")
    return asyncio.run(aguard(reply, **options))
