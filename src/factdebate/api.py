"""The public Python API: ``verify``/``averify`` (one claim), ``check_response``/``acheck_response`` (a long
answer, claim by claim), ``guard``/``aguard`` (a chat reply within a deadline) and ``session``. Nothing inside
the package imports this module; the CLI, the service and the harness use the run layer directly.

Every function takes the same keywords: the shared options (:class:`~factdebate.settings.keywords.Options`,
typed, so a misspelt one fails a type check), the method's own options as ``method_options`` (flat names, as
``factdebate methods`` lists them: ``{"dpd_max_rounds": 2}``), and ``config_file``, ``trace``, ``on_event``
and ``backends``. A method's option passed as a plain keyword (``dpd_max_rounds=2``) still runs, as it did
before ``method_options`` existed, but a type checker rejects it."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar, Unpack, overload

from factdebate.core.errors import ConfigError, EventLoopError
from factdebate.core.runtime import EventSink
from factdebate.core.types import Document, ResponseVerdict, Verdict
from factdebate.guard.public import aguard as _aguard
from factdebate.guard.types import GuardEvidence, GuardResult, OnUnchecked, Policy, Reviser, Tier
from factdebate.llm.base import Backend
from factdebate.run.claim import run_claim, session
from factdebate.run.response import acheck_response as _acheck_response
from factdebate.settings.keywords import Options, OptionValue, SharedOptions
from factdebate.settings.load import settings_from
from factdebate.settings.options import not_read_by

__all__ = ["acheck_response", "aguard", "averify", "check_response", "guard", "session", "verify"]

# A passage given with the claim or the answer: its text, or {"text": ..., "title": ..., "url"/"source": ...}.
Passage = str | Mapping[str, str]
EvidenceMode = Literal["given", "both", "retrieved"]
_Item = TypeVar("_Item", covariant=True)


class Passages(Protocol[_Item]):
    """A list or tuple of passages, never one string. A ``str`` is itself a sequence of strings, so with
    ``Sequence[str]`` the mistake ``evidence="a passage"`` passed a type check and failed at run time. The
    difference a checker can see: a list's ``in`` takes any object, a string's only a string."""

    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[_Item]: ...
    def __contains__(self, value: object, /) -> bool: ...


def _not_in_a_running_loop(name: str) -> None:
    """The blocking calls run ``asyncio.run``, which cannot start where a loop already runs (a notebook):
    say so with the async call to use, before a coroutine is made."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise EventLoopError(name)


def _flat(options: Mapping[str, Any], method_options: Mapping[str, OptionValue] | None) -> dict[str, Any]:
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


async def averify(claim: str, *, config_file: str | Path | None = None, trace: str | Path | None = None,
                  on_event: EventSink | None = None, backends: dict[str, Backend] | None = None,
                  given_evidence: Passages[Passage | Document] | None = None,
                  method_options: Mapping[str, OptionValue] | None = None, **options: Unpack[Options]) -> Verdict:
    """Check one claim and return its :class:`~factdebate.core.types.Verdict`.

    ``given_evidence``: passages that come with the claim, read by the agents instead of retrieval
    (``evidence="given"``, the default when it is passed) or before it (``"both"``). ``on_event`` receives
    every trace event as a dict while the run goes on; ``trace`` appends them to a JSONL file.

    Example::

        import factdebate as fd

        async def main() -> None:
            verdict = await fd.averify("Paris is the capital of France.", llm="openai:gpt-4o-mini", rounds=2,
                                       on_event=lambda event: print(event["event"]))
            print(verdict.label, verdict.decided_by)
    """
    from factdebate.tools.given import documents_from
    from factdebate.tools.given import given_evidence as with_evidence

    flat = _flat(options, method_options)
    if given_evidence is not None:
        flat.setdefault("evidence", "given")
    settings = settings_from(flat, config_file)
    _warn_unread(flat, settings.method)
    given = None if given_evidence is None else documents_from(
        [dict(item) if isinstance(item, Mapping) else item for item in given_evidence])
    async with session(settings, backends, on_event, trace) as (resources, sinks):
        with with_evidence(given):
            return await run_claim(claim, settings, resources, sinks=sinks)


def verify(claim: str, *, config_file: str | Path | None = None, trace: str | Path | None = None,
           on_event: EventSink | None = None, backends: dict[str, Backend] | None = None,
           given_evidence: Passages[Passage | Document] | None = None,
           method_options: Mapping[str, OptionValue] | None = None, **options: Unpack[Options]) -> Verdict:
    """Check one claim and return its :class:`~factdebate.core.types.Verdict` (:func:`averify` in an event
    loop of its own: call ``averify`` from async code).

    Example::

        import factdebate as fd

        verdict = fd.verify("The Eiffel Tower is in Rome.")  # Tool-MAD on the embedded model, offline
        print(verdict.label, verdict.decided_by, verdict.usage.llm_calls)
        fd.verify("The Eiffel Tower is in Rome.", method="dpd", llm="openai:gpt-4o-mini", k=5,
                  method_options={"dpd_max_rounds": 2})
    """
    _not_in_a_running_loop("verify")
    return asyncio.run(averify(claim, config_file=config_file, trace=trace, on_event=on_event, backends=backends,
                               given_evidence=given_evidence, method_options=method_options, **options))


@overload
async def acheck_response(response: str, *, question: str | None = ..., evidence: Passages[Passage] | None = ...,
                          evidence_mode: EvidenceMode | None = ..., tier: None = ..., deadline_s: None = ...,
                          config_file: str | Path | None = ..., trace: str | Path | None = ...,
                          on_event: EventSink | None = ..., backends: dict[str, Backend] | None = ...,
                          method_options: Mapping[str, OptionValue] | None = ...,
                          **options: Unpack[SharedOptions]) -> ResponseVerdict: ...
@overload
async def acheck_response(response: str, *, question: str | None = ..., evidence: Passages[Passage] | None = ...,
                          evidence_mode: EvidenceMode | None = ..., tier: Tier, deadline_s: float | None = ...,
                          config_file: str | Path | None = ..., trace: str | Path | None = ...,
                          on_event: EventSink | None = ..., backends: dict[str, Backend] | None = ...,
                          method_options: Mapping[str, OptionValue] | None = ...,
                          **options: Unpack[SharedOptions]) -> GuardResult: ...
@overload
async def acheck_response(response: str, *, question: str | None = ..., evidence: Passages[Passage] | None = ...,
                          evidence_mode: EvidenceMode | None = ..., tier: Tier | None = ..., deadline_s: float,
                          config_file: str | Path | None = ..., trace: str | Path | None = ...,
                          on_event: EventSink | None = ..., backends: dict[str, Backend] | None = ...,
                          method_options: Mapping[str, OptionValue] | None = ...,
                          **options: Unpack[SharedOptions]) -> GuardResult: ...
async def acheck_response(response: str, *, question: str | None = None, evidence: Passages[Passage] | None = None,
                          evidence_mode: EvidenceMode | None = None, tier: Tier | None = None,
                          deadline_s: float | None = None, config_file: str | Path | None = None,
                          trace: str | Path | None = None, on_event: EventSink | None = None,
                          backends: dict[str, Backend] | None = None,
                          method_options: Mapping[str, OptionValue] | None = None,
                          **options: Unpack[SharedOptions]) -> ResponseVerdict | GuardResult:
    """Check a long answer claim by claim: a :class:`~factdebate.core.types.ResponseVerdict`, false as soon
    as one claim is false.

    ``evidence``: passages the answer rests on, read by the agents before (``evidence_mode="both"``, the
    default) or instead of (``"given"``) retrieval. With ``tier`` (``fast``, ``standard``, ``deep``) or
    ``deadline_s`` the answer is checked as the guard checks a chat reply, and a
    :class:`~factdebate.guard.types.GuardResult` comes back (each claim's span, tier, evidence and correction;
    claims not decided in time are ``unchecked``).

    Example::

        import factdebate as fd

        async def main() -> None:
            verdict = await fd.acheck_response("Paris is in France. It has 90 million inhabitants.",
                                               question="Tell me about Paris.")
            for claim in verdict.claims:
                print(claim.claim, claim.label)
    """
    flat = _flat(options, method_options)
    common: dict[str, Any] = {"config_file": config_file, "trace": trace, "on_event": on_event, "backends": backends}
    if isinstance(evidence, str):  # the retrieval.evidence setting, which this keyword used to be
        flat["evidence"], evidence = evidence, None
    items = None if evidence is None else [{"text": e} if isinstance(e, str) else dict(e) for e in evidence]
    if tier is not None or deadline_s is not None:
        return await _aguard(response, question=question, tier=tier, deadline_s=deadline_s, evidence=items,
                             evidence_mode=evidence_mode, **common, **flat)
    if items is None:
        if evidence_mode is not None:
            flat["evidence"] = evidence_mode
        return await _acheck_response(response, question=question, **common, **flat)
    from factdebate.guard.evidence import passages
    from factdebate.tools.given import given_evidence

    flat["evidence"] = evidence_mode or "both"
    with given_evidence(passages([GuardEvidence.model_validate(item) for item in items])):
        return await _acheck_response(response, question=question, **common, **flat)


@overload
def check_response(response: str, *, question: str | None = ..., evidence: Passages[Passage] | None = ...,
                   evidence_mode: EvidenceMode | None = ..., tier: None = ..., deadline_s: None = ...,
                   config_file: str | Path | None = ..., trace: str | Path | None = ...,
                   on_event: EventSink | None = ..., backends: dict[str, Backend] | None = ...,
                   method_options: Mapping[str, OptionValue] | None = ...,
                   **options: Unpack[SharedOptions]) -> ResponseVerdict: ...
@overload
def check_response(response: str, *, question: str | None = ..., evidence: Passages[Passage] | None = ...,
                   evidence_mode: EvidenceMode | None = ..., tier: Tier, deadline_s: float | None = ...,
                   config_file: str | Path | None = ..., trace: str | Path | None = ...,
                   on_event: EventSink | None = ..., backends: dict[str, Backend] | None = ...,
                   method_options: Mapping[str, OptionValue] | None = ...,
                   **options: Unpack[SharedOptions]) -> GuardResult: ...
@overload
def check_response(response: str, *, question: str | None = ..., evidence: Passages[Passage] | None = ...,
                   evidence_mode: EvidenceMode | None = ..., tier: Tier | None = ..., deadline_s: float,
                   config_file: str | Path | None = ..., trace: str | Path | None = ...,
                   on_event: EventSink | None = ..., backends: dict[str, Backend] | None = ...,
                   method_options: Mapping[str, OptionValue] | None = ...,
                   **options: Unpack[SharedOptions]) -> GuardResult: ...
def check_response(response: str, *, question: str | None = None, evidence: Passages[Passage] | None = None,
                   evidence_mode: EvidenceMode | None = None, tier: Tier | None = None,
                   deadline_s: float | None = None, config_file: str | Path | None = None,
                   trace: str | Path | None = None, on_event: EventSink | None = None,
                   backends: dict[str, Backend] | None = None, method_options: Mapping[str, OptionValue] | None = None,
                   **options: Unpack[SharedOptions]) -> ResponseVerdict | GuardResult:
    """:func:`acheck_response` in an event loop of its own: a ``ResponseVerdict``, or with ``tier`` or
    ``deadline_s`` a ``GuardResult``.

    Example::

        import factdebate as fd

        verdict = fd.check_response("The Eiffel Tower is in Paris. It was finished in 1789.", method="cot")
        print(verdict.label, [(c.claim, c.label) for c in verdict.claims])
        result = fd.check_response("The Eiffel Tower is in Rome.", tier="fast", deadline_s=10,
                                   evidence=[{"title": "Guide", "text": "The Eiffel Tower is in Paris."}])
        print(result.text)
    """
    keywords: dict[str, Any] = {
        "question": question, "evidence": evidence, "evidence_mode": evidence_mode, "tier": tier,
        "deadline_s": deadline_s, "config_file": config_file, "trace": trace, "on_event": on_event,
        "backends": backends, "method_options": method_options}
    _not_in_a_running_loop("check_response")
    return asyncio.run(acheck_response(response, **keywords, **options))


async def aguard(reply: str | list[dict[str, Any]], *, question: str | None = None, policy: Policy | None = None,
                 tier: Tier | None = None, deadline_s: float | None = None,
                 evidence: Passages[GuardEvidence | Mapping[str, str]] | None = None,
                 evidence_mode: EvidenceMode | None = None, conversation_id: str | None = None,
                 on_unchecked: OnUnchecked | None = None, reviser: Reviser | None = None,
                 config_file: str | Path | None = None, trace: str | Path | None = None,
                 on_event: EventSink | None = None, backends: dict[str, Backend] | None = None,
                 method_options: Mapping[str, OptionValue] | None = None,
                 **options: Unpack[SharedOptions]) -> GuardResult:
    """Check a chat reply within a deadline and apply a policy (annotate, flag, hold, rewrite or block).

    ``reply``: its text, or the conversation (OpenAI-style messages: the last assistant message is checked,
    ``role: "tool"`` messages are evidence, the last user message is the question). ``None`` takes the
    operator's default of each guard option; ``reviser`` rewrites the answer for ``policy="rewrite"``.

    Example::

        import factdebate as fd

        async def main() -> None:
            result = await fd.aguard([{"role": "user", "content": "Where is the Eiffel Tower?"},
                                      {"role": "assistant", "content": "It is in Rome."}],
                                     tier="fast", deadline_s=10, policy="flag")
            print(result.action_taken, [(c.claim, c.status, c.label) for c in result.claims])
    """
    chosen = {"policy": policy, "tier": tier, "deadline_s": deadline_s, "evidence_mode": evidence_mode,
              "conversation_id": conversation_id, "on_unchecked": on_unchecked,
              "evidence": None if evidence is None else [e if isinstance(e, GuardEvidence) else dict(e)
                                                         for e in evidence]}
    return await _aguard(reply, question=question, reviser=reviser, config_file=config_file, trace=trace,
                         on_event=on_event, backends=backends, **{k: v for k, v in chosen.items() if v is not None},
                         **_flat(options, method_options))


def guard(reply: str | list[dict[str, Any]], *, question: str | None = None, policy: Policy | None = None,
          tier: Tier | None = None, deadline_s: float | None = None,
          evidence: Passages[GuardEvidence | Mapping[str, str]] | None = None,
          evidence_mode: EvidenceMode | None = None, conversation_id: str | None = None,
          on_unchecked: OnUnchecked | None = None, reviser: Reviser | None = None,
          config_file: str | Path | None = None, trace: str | Path | None = None,
          on_event: EventSink | None = None, backends: dict[str, Backend] | None = None,
          method_options: Mapping[str, OptionValue] | None = None, **options: Unpack[SharedOptions]) -> GuardResult:
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
    return asyncio.run(aguard(reply, question=question, policy=policy, tier=tier, deadline_s=deadline_s,
                              evidence=evidence, evidence_mode=evidence_mode, conversation_id=conversation_id,
                              on_unchecked=on_unchecked, reviser=reviser, config_file=config_file, trace=trace,
                              on_event=on_event, backends=backends, method_options=method_options, **options))
