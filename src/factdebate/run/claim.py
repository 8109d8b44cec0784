"""One claim, start to finish: checked input, the method's tools built before any model call, the
method run inside a recorder, and the verdict stamped with usage and the public settings."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from factdebate.core.claim_context import given_evidence
from factdebate.core.events import RunFinished, RunStarted
from factdebate.core.runtime import EventSink, RunRecorder, charged, recording, trace_file
from factdebate.core.types import Document, Verdict
from factdebate.llm.base import Backend
from factdebate.llm.near_chance import with_model_warnings
from factdebate.methods.base import Method
from factdebate.methods.resources import Resources
from factdebate.run.build import build_resources, tools_needed
from factdebate.settings.model import Settings
from factdebate.tools.retrieval_record import recording_retrieval, retrieval_deviations
from factdebate.util.errors import InputError
from factdebate.util.scrub import redact_settings


def public_config(settings: Settings) -> dict[str, Any]:
    """The settings as a record shows them: URLs without credentials, MCP servers without secrets."""
    return redact_settings(settings.model_dump(mode="json"))


def prepare(settings: Settings, resources: Resources) -> None:
    """Everything the method needs before any LLM call: its checks, then every tool it names (the search tool
    first: its index takes seconds, the vectors minutes)."""
    from factdebate.corpus.progress import raise_if_stopped

    Method.named(settings.method).check(settings)
    for kind in sorted(tools_needed(settings), key=lambda kind: (kind == "rag", kind)):
        resources.tool(kind)
        # Ctrl-C while an index was built in this worker thread, where it cannot raise: the claim is not run.
        raise_if_stopped()


async def _with_inline_evidence(claim: str, tools: set[str], settings: Settings, resources: Resources) -> str:
    """For a method that searches nothing, the ``k`` given passages closest to the claim, in the claim."""
    from factdebate.tools.given import current_evidence, evidence_block, top_k

    evidence = current_evidence()
    if settings.retrieval.evidence == "retrieved":
        return claim
    if evidence is None and settings.retrieval.evidence == "given":
        raise InputError("evidence 'given': no evidence came with this claim; use it with eval on a dataset that "
                         "provides evidence (factdebate datasets), or pass the passages: verify(claim, evidence=[...])")
    if tools or not evidence:
        return claim
    chosen = await top_k(claim, evidence, settings.retrieval.k, resources.encoder)
    return claim + evidence_block(chosen, settings.retrieval.max_doc_chars)


async def run_claim(claim: str, settings: Settings, resources: Resources, *,
                    sinks: list[EventSink] | None = None, given: Sequence[Document] | None = None) -> Verdict:
    """Verify one claim with already-built resources (what batch runs and the service call). ``given``: the
    passages that came with the claim (:func:`~factdebate.core.claim_context.given_evidence`); None: those
    already given, if any."""
    if given is not None:
        with given_evidence(given):
            return await run_claim(claim, settings, resources, sinks=sinks)
    claim = settings.checked_claim(claim)
    method = Method.named(settings.method)
    if type(method).check is Method.check and resources.built(method.tools(settings)):
        prepare(settings, resources)  # only looks up built tools: no worker thread's hand-over (the guard's claims)
    else:
        await asyncio.to_thread(prepare, settings, resources)  # may build an index: off the event loop
    recorder = RunRecorder(sinks, run_id=uuid.uuid4().hex[:12])
    # charged: a failure carries the calls made before it (an evaluation's error record counts them).
    with recording(recorder), charged(recorder), recording_retrieval() as retrieval:
        recorder.emit(RunStarted(claim=claim, method=settings.method, most_rounds=method.most_rounds(settings)))
        verdict = await method.run(await _with_inline_evidence(claim, method.tools(settings), settings, resources),
                                   resources)
        verdict.claim = claim
        verdict.usage = recorder.total()
        verdict.usage_by_role = recorder.usage_by_role
        verdict.usage_by_model = recorder.usage_by_model
        # The embedded model's or a script's label is no finding: said with a code a program reads.
        verdict.warnings = with_model_warnings(verdict.warnings, verdict.usage_by_model)
        verdict.parse_counts = recorder.parse_counts
        verdict.config = public_config(settings)
        # How this claim's searches went is the verdict's own (the full-text index while the vectors are built),
        # first, where a folded list of deviations still names it.
        verdict.deviations = [*retrieval_deviations(retrieval), *method.paper_deviations(settings)]
        verdict.tools_heterogeneous = method.tools_heterogeneous(settings)
        recorder.emit(RunFinished(label=verdict.label, decided_by=verdict.decided_by,
                                  usage=verdict.usage.model_dump()))
    return verdict


@asynccontextmanager
async def session(settings: Settings, backends: dict[str, Backend] | None, on_event: EventSink | None,
                  trace: str | Path | None) -> AsyncIterator[tuple[Resources, list[EventSink]]]:
    """The resources of one API call, open, with its event sinks (the caller's and a JSONL trace file)."""
    resources = build_resources(settings, backends=backends)
    with trace_file(trace) as traced:
        async with resources:
            yield resources, [*([on_event] if on_event else []), *traced]
