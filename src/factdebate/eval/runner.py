"""``factdebate eval``: one method on one dataset, concurrently, resumably.

A run directory holds ``run.json`` (what was asked), ``results.jsonl`` (a line per finished sample, flushed)
and ``summary.json`` / ``summary.md``; re-running skips finished samples and retries errored ones."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from factdebate.core.claim_context import THIRD_LABEL_ANSWER, claim_date, claim_position, four_labels, two_labels
from factdebate.core.deviations import Deviation
from factdebate.core.runfiles import read_run_json
from factdebate.core.runtime import EventSink, spent_before
from factdebate.eval.datasets import Dataset, Sample, select
from factdebate.eval.datasets.loader import load_dataset
from factdebate.eval.datasets.medical_setup import with_medical
from factdebate.eval.progress import Progress
from factdebate.eval.provenance import run_provenance
from factdebate.eval.report.summary import RESULTS, RUN, latest_records, summarize
from factdebate.guard_engine.response_check import RUNNER
from factdebate.llm.calls import evaluating
from factdebate.methods.base import Method
from factdebate.methods.resources import Resources, RunScope
from factdebate.run.build import build_resources, start_run, tools_needed
from factdebate.run.claim import public_config, run_claim
from factdebate.run.provenance import keep_history
from factdebate.run.results_file import ResultWriter, finished_ids
from factdebate.run.resume import settings_changes
from factdebate.settings.model import Settings
from factdebate.tools.given import documents_from, given_evidence
from factdebate.util.errors import ConfigError, FactDebateError, InputError
from factdebate.util.textsafe import dumps_record

RUN_WHAT = "the record of an eval run (run.json)"


@dataclass
class Plan:
    name: str
    settings: Settings
    dataset: Dataset
    samples: list[Sample]
    output: Path
    seed: int
    limit: int | None
    options: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)  # what the method keeps for this run (Method.start_run)
    split: str | None = None  # the dataset's split, where the caller knows it (reproduce's paper data)
    order: str = "shuffled"  # "file": the samples in the dataset file's order (no shuffle)
    provenance: dict[str, Any] | None = None  # computed once, on first use (eval/provenance.py)
    # The run's own departures from the paper besides the method's (reproduce: a sample set that could not
    # be had), listed after the method's in run.json and the summary.
    deviations: list[Deviation] = field(default_factory=list)

    def info(self) -> dict[str, Any]:
        if self.provenance is None:
            self.provenance = run_provenance(self.settings, self.dataset, self.samples, self.split)
        method = Method.named(self.settings.method)
        # Deviations and tool heterogeneity of the settings the samples run with (DPD's HaluEval modes
        # debate the dataset's own evidence and search nothing).
        effective = method.sample_settings(self.settings, self.dataset)
        with two_labels(self.dataset.two_labels()):  # as the samples run: a two-label task is declared there
            deviations = with_medical(self.dataset.kind, effective, method.tools(effective),
                                      [*method.paper_deviations(effective), *self.deviations])
        return {"name": self.name, "method": self.settings.method, "dataset": self.dataset.spec,
                "dataset_kind": self.dataset.kind, "labels": list(self.dataset.labels),
                "answer_format": self.dataset.answer_format, "label_map": self.dataset.answer_map(),
                "unit": self.dataset.unit,
                "evidence": {"used": self.settings.retrieval.evidence, "provided": self.dataset.evidence or None},
                "seed": self.seed, "limit": self.limit, "order": self.order,
                "samples": len(self.samples), "options": self.options,
                "dataset_loaded": len(self.dataset.samples), "dataset_skipped": dict(self.dataset.skipped),
                "settings": public_config(self.settings),
                "deviations": [d.model_dump() for d in deviations],
                "tools_heterogeneous": method.tools_heterogeneous(effective),
                **({"run_state": self.state} if self.state else {}),
                "provenance": self.provenance}


class EvalWriter(ResultWriter):
    """batch.ResultWriter with the fsync in a worker thread, coalesced across records: inline, it cost a
    quarter of the throughput at concurrency 32 (benchmarks/eval_throughput.py)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._dirty = False
        self._syncing: asyncio.Task[None] | None = None

    async def write(self, record: dict[str, Any]) -> None:
        async with self._lock:
            self._fh.write(dumps_record(record) + "\n")
            self._fh.flush()
            self._dirty = True
        if self._syncing is None or self._syncing.done():
            self._syncing = asyncio.create_task(self._sync())

    async def _sync(self) -> None:
        while self._dirty:
            self._dirty = False
            await asyncio.to_thread(os.fsync, self._fh.fileno())

    async def aclose(self) -> None:
        if self._syncing is not None:
            await self._syncing
        os.fsync(self._fh.fileno())
        self.close()


def make_plan(settings: Settings, dataset_spec: str | Dataset, output: Path, *, limit: int | None, seed: int,
              name: str | None = None, options: dict[str, Any] | None = None, strict: bool = False,
              samples: list[Sample] | None = None, split: str | None = None, order: str = "shuffled") -> Plan:
    """``dataset_spec``: a spec, or a loaded dataset. ``samples``: exactly these instead of the seeded
    shuffle. ``order``: ``file`` keeps the file's order."""
    if order not in ("shuffled", "file"):
        raise InputError(f"order must be 'shuffled' or 'file' (got {order!r})")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1 (got {limit}); leave it out to run every sample")
    if seed < 0:  # the shuffle takes it, but the summary's bootstrap (numpy) refuses it after every sample ran
        raise InputError(f"--seed must be 0 or more (got {seed})")
    dataset = dataset_spec if isinstance(dataset_spec, Dataset) else load_dataset(dataset_spec, strict=strict)
    if dataset.max_claim_chars > settings.max_claim_chars:
        # Summarisation claims carry their article; raise the claim limit rather than reject every sample.
        settings = settings.model_copy(update={"max_claim_chars": dataset.max_claim_chars})
    if settings.retrieval.evidence != "retrieved" and not dataset.evidence:
        raise InputError(f"--evidence {settings.retrieval.evidence}: dataset '{dataset.spec}' provides no evidence "
                         "of its own; use --evidence retrieved")
    chosen = select(dataset.samples, limit, seed, shuffle=order == "shuffled") if samples is None else samples
    return Plan(name or output.name, settings, dataset, chosen, output, seed, limit, dict(options or {}), split=split,
                order=order)


def check_resume(plan: Plan) -> None:
    """A directory keeps one experiment: resuming with another method, dataset, seed or settings is refused
    with the differences listed."""
    latest_records(plan.output / RESULTS)
    before = read_run_json(plan.output, RUN, what=RUN_WHAT)
    if before is None:
        return
    now = plan.info()
    diffs = [f"{key}: {before.get(key)!r} -> {now[key]!r}" for key in ("method", "dataset", "seed")
             if before.get(key) != now[key]]
    if before.get("order", "shuffled") != now["order"]:  # runs written before the option were shuffled
        diffs.append(f"order: {before.get('order', 'shuffled')!r} -> {now['order']!r}")
    sections = Method.named(plan.settings.method).settings_sections()
    diffs += settings_changes(before.get("settings", {}), now["settings"], sections)
    if diffs:
        raise InputError(f"{plan.output} already holds a different run ({'; '.join(diffs[:6])}); "
                         "use another --output directory or delete this one")


def eval_resources(settings: Settings, run: RunScope | None = None) -> Resources:
    """The standard resources; ``medical.search`` (the scholarly search agent) is honoured by make_tool."""
    return build_resources(settings, run=run)


async def evaluate(sample: Sample, plan: Plan, resources: Resources,
                   sinks: list[EventSink] | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"id": sample.id, "gold": sample.gold, "group": sample.meta.get("group")}
    # The sample's own evidence, served by the given-evidence tool (tools/given.py) while it is checked.
    mode = plan.settings.retrieval.evidence
    given = None if mode == "retrieved" else documents_from(sample.meta.get("evidence") or [], prefix=sample.id)
    # evaluating(): every llm_call of the trace names its sample.
    with given_evidence(given), two_labels(plan.dataset.two_labels()), four_labels(plan.dataset.four_labels()), \
            evaluating(sample.id):
        record = await _evaluate(sample, plan, resources, sinks, record)
    return outside_two_labels(record, plan.dataset)


def outside_two_labels(record: dict[str, Any], dataset: Dataset) -> dict[str, Any]:
    """A two-label dataset never gets a third label: one that still reaches a record is REFUTES, kept as
    ``outside_labels`` and counted."""
    if not dataset.two_labels():
        return record
    predicted = record.get("predicted")
    if predicted is not None and predicted not in dataset.labels:
        record["outside_labels"], record["predicted"] = predicted, _in_two(predicted)
        record["correct"] = record["predicted"] == record.get("gold")
    for claim in record.get("claim_results") or []:  # a response's annotated claims (claim-level metrics)
        if isinstance(claim, dict) and claim.get("predicted") not in (None, *dataset.labels):
            claim["outside_labels"], claim["predicted"] = claim["predicted"], _in_two(claim["predicted"])
    return record


def _in_two(label: str) -> str | None:
    return THIRD_LABEL_ANSWER if label == "NOT ENOUGH INFO" else None


async def _evaluate(sample: Sample, plan: Plan, resources: Resources, sinks: list[EventSink] | None,
                    record: dict[str, Any]) -> dict[str, Any]:
    predicted: str | None = None
    try:
        own = await Method.named(plan.settings.method).run_sample(sample, plan.dataset, plan.settings, resources, sinks,
                                                                     RUNNER)
        if own is not None:  # the method's own task mode (DPD on HaluEval)
            fields, predicted = own
            record.update(fields)
        elif plan.dataset.answer_format == "choice":
            from factdebate.eval.datasets.medical import run_choice

            fields = await run_choice(sample, plan.settings, resources, sinks)
            record.update(claim=sample.claim, method=plan.settings.method, **fields)
            predicted = fields["label"]
        elif plan.dataset.unit == "response":
            from factdebate.eval.response_eval import run_response_sample

            fields, predicted = await run_response_sample(sample, plan.dataset, plan.settings, resources, sinks)
            record.update(fields)
        else:
            with claim_date(sample.meta.get("claim_date")):  # a dataset's claim date cuts search results
                verdict = await run_claim(sample.claim, plan.settings, resources, sinks=sinks)
            # The settings and their deviations are in run.json once; each record keeps the rest of the verdict.
            record.update(verdict.model_dump(mode="json", exclude={"config", "deviations"}))
            predicted = plan.dataset.predicted(verdict.label.value if verdict.label else None)
    except FactDebateError as exc:
        record.update(claim=sample.claim, error=str(exc), **spent_fields(exc))
    except Exception as exc:  # one failing sample must not stop the run; it is recorded and counted wrong
        record.update(claim=sample.claim, error=f"{type(exc).__name__}: {exc}", **spent_fields(exc))
    record["predicted"] = predicted if not record.get("error") else None
    record["correct"] = record["predicted"] == sample.gold
    return record


def spent_fields(exc: BaseException) -> dict[str, Any]:
    """An errored record's ``usage`` and ``usage_by_model``: what it spent before it failed (core/runtime.py
    ``charged``); empty when it failed before any recorder."""
    spent = spent_before(exc)
    if spent is None:
        return {}
    usage, by_model = spent
    return {"usage": usage.model_dump(),
            "usage_by_model": {model: used.model_dump() for model, used in sorted(by_model.items())}}


class SampleExecutor(Protocol):
    """Evaluates samples somewhere else (a Ray worker pool, factdebate.scale); records come back here."""

    async def run_samples(self, samples: list[Sample], plan: Plan,
                          handle: Callable[[dict[str, Any], list[dict[str, Any]]], Awaitable[None]]) -> None: ...


def error_record(sample: Sample, error: str) -> dict[str, Any]:
    """The record of a sample that could not be evaluated (counted wrong, retried on a re-run)."""
    return {"id": sample.id, "gold": sample.gold, "group": sample.meta.get("group"), "claim": sample.claim,
            "error": error, "predicted": None, "correct": False}


async def execute(plan: Plan, resources: Resources | None = None, *, concurrency: int | None = None,
                  progress: bool = True, sinks: list[EventSink] | None = None,
                  on_record: Callable[[dict[str, Any]], None] | None = None,
                  executor: SampleExecutor | None = None) -> dict[str, Any]:
    """Run what is left of the plan and write the summary; ``on_record`` sees each new record. With
    ``executor``, samples run there and this process only writes."""
    check_resume(plan)
    method = Method.named(plan.settings.method)
    method.check(plan.settings)  # a usage error stops the run before any sample
    in_order = method.in_order(plan.settings)
    if in_order and executor is not None:
        raise ConfigError(f"{plan.settings.method} cannot spread its samples over workers: {in_order}")
    plan.output.mkdir(parents=True, exist_ok=True)
    scope = RunScope(plan.output)
    owned = resources is None and executor is None  # resources built here are closed here (MCP sessions...)
    if resources is None and executor is None:
        resources = eval_resources(plan.settings, scope)
    # The method's state for this run (MERMAID: its own memory), before any sample; workers open the same.
    plan.state = start_run(resources, scope) if resources is not None else method.start_run(plan.settings, scope)
    info = plan.info()
    earlier = read_run_json(plan.output, RUN, what=RUN_WHAT)
    if earlier is not None:  # resumed: keep what earlier processes ran with, where it differed
        before = earlier.get("provenance")
        plan.provenance = info["provenance"] = keep_history(before, info["provenance"])
    (plan.output / RUN).write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    results = plan.output / RESULTS
    done = finished_ids(results)
    todo = [s for s in plan.samples if s.id not in done]
    ids = [s.id for s in plan.samples]
    position = {sample_id: n for n, sample_id in enumerate(ids)}
    needed = sorted(tools_needed(plan.settings))
    # Build the tools first: a missing index or key fails before any model call (remote workers do it at start).
    if todo and needed and resources is not None:
        await asyncio.to_thread(lambda: [resources.tool(kind) for kind in needed])
    previous = latest_records(results)
    bar = Progress(len(plan.samples), [previous[i] for i in ids if i in previous and i in done],
                   enabled=progress, label=plan.name)
    writer = EvalWriter(results)
    queue: asyncio.Queue[Sample] = asyncio.Queue()
    for sample in todo:
        queue.put_nowait(sample)

    async def finish(record: dict[str, Any], events: list[dict[str, Any]]) -> None:
        for event in events:  # a remote worker's trace events, replayed here
            for sink in sinks or []:
                sink(event)
        await writer.write(record)
        bar.add(record)
        if on_record is not None:
            on_record(record)

    async def worker() -> None:
        assert resources is not None
        while not queue.empty():
            sample = queue.get_nowait()
            with claim_position(position[sample.id]):
                record = await evaluate(sample, plan, resources, sinks)
            await finish(record, [])

    try:
        with bar:
            if executor is not None:
                await executor.run_samples(todo, plan, finish)
            else:
                workers = 1 if in_order else max(1, min(concurrency or plan.settings.concurrency, len(todo) or 1))
                await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        await writer.aclose()
        if owned and resources is not None:
            await resources.aclose()
    # run.json keeps the provenance; the summary is about results (and stays comparable across machines).
    return summarize(plan.output, {k: v for k, v in plan.info().items() if k != "provenance"}, ids, complete=True)
