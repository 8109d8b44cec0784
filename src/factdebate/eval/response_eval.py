"""Evaluating response-level samples: the response is checked claim by claim and scored against the
response's gold label; with the dataset's own claims (``response.claims: given``) each claim's verdict is
also scored against that claim's gold label, which gives claim-level metrics (FIRE's task) in the same run."""

from __future__ import annotations

from typing import Any

from factdebate.core.runtime import EventSink
from factdebate.eval.datasets import Dataset, Sample
from factdebate.eval.report.metrics import Outcome, compute
from factdebate.methods.resources import Resources
from factdebate.settings.model import Settings


async def run_response_sample(sample: Sample, dataset: Dataset, settings: Settings, resources: Resources,
                              sinks: list[EventSink] | None) -> tuple[dict[str, Any], str | None]:
    """(record fields, predicted label in the dataset's label set)."""
    from factdebate.guard_engine.response_check import run_response

    given = sample.meta.get("claims") if settings.response.claims == "given" else None
    verdict = await run_response(sample.claim, settings, resources, question=sample.meta.get("question"),
                                 given_claims=given or None,
                                 gold_labels=sample.meta.get("claim_golds") if given else None, sinks=sinks)
    fields = verdict.model_dump(mode="json", exclude={"config"})
    fields["claim"] = sample.claim
    fields["claim_results"] = [
        {"index": c.index, "gold": c.gold, "error": c.error,
         "predicted": dataset.predicted(c.label.value if c.label else None), "decided_by":
         c.verdict.decided_by if c.verdict else None, "usage": c.verdict.usage.model_dump() if c.verdict else None}
        for c in verdict.claims if c.gold is not None]
    return fields, dataset.predicted(verdict.label.value if verdict.label else None)


def claim_outcomes(records: list[dict[str, Any]]) -> list[Outcome]:
    """One outcome per claim with a gold label, over the given records (errors and unparsed count wrong)."""
    outcomes = []
    for record in records:
        for item in record.get("claim_results") or []:
            status = "error" if item.get("error") else ("ok" if item.get("predicted") is not None else "unparsed")
            outcomes.append(Outcome(id=f"{record['id']}#{item['index']}", gold=str(item["gold"]),
                                    predicted=item.get("predicted") if status == "ok" else None,
                                    status=status, usage=item.get("usage"),  # type: ignore[arg-type]
                                    decided_by=item.get("decided_by"), error=item.get("error")))
    return outcomes


def claim_level_metrics(records: list[dict[str, Any]], labels: tuple[str, ...], seed: int) -> dict[str, Any] | None:
    outcomes = claim_outcomes(records)
    return compute(outcomes, labels, seed=seed) if outcomes else None
