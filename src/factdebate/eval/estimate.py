"""``--dry-run``: how many samples, LLM calls and tokens a run would cost, before spending anything.

Call counts come from each method's ``call_bounds``; tokens are guessed from prompt sizes, or measured from
finished samples in the run directory."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import mean

from factdebate.eval.report.summary import RESULTS, latest_records
from factdebate.eval.runner import Plan
from factdebate.methods.base import Method
from factdebate.settings.model import Settings

PROMPT_OVERHEAD_CHARS = 900  # instructions and the other side's previous answer, roughly
COMPLETION_TOKENS = 150  # a few sentences and a verdict


@dataclass
class Estimate:
    samples: int
    todo: int
    calls_min: int
    calls_max: int
    tokens_per_call: float
    measured: int  # finished samples the figures were measured on (0: protocol estimate)
    calls_measured: float | None = None
    tokens_measured: float | None = None

    def lines(self) -> list[str]:
        lines = [f"samples: {self.samples} ({self.todo} still to run)"]
        if self.measured and self.calls_measured is not None and self.tokens_measured is not None:
            lines.append(f"measured on {self.measured} finished samples: {self.calls_measured:.1f} LLM calls and "
                         f"{self.tokens_measured:,.0f} tokens per sample")
            lines.append(f"estimate for the rest: {self.calls_measured * self.todo:,.0f} LLM calls, "
                         f"{self.tokens_measured * self.todo:,.0f} tokens")
            return lines
        lines.append(f"LLM calls per sample: {self.calls_min} to {self.calls_max} (re-asks included)")
        lines.append(f"estimate for the rest: {self.calls_min * self.todo:,} to {self.calls_max * self.todo:,} "
                     f"LLM calls, about {self.tokens_per_call * self.calls_min * self.todo:,.0f} to "
                     f"{self.tokens_per_call * self.calls_max * self.todo:,.0f} tokens (rough: 4 characters per "
                     "token)")
        return lines


def call_bounds(settings: Settings) -> tuple[int, int]:
    return Method.named(settings.method).call_bounds(settings)


def _response_bounds(plan: Plan, settings: Settings, low: int, high: int) -> tuple[int, int]:
    """Calls for a sample whose given or extracted claims (up to ``response.max_claims``) are checked."""
    most = settings.response.max_claims
    extraction = (1, 2 + 2 * settings.response.drop_subjective)
    bounds = []
    for sample in plan.samples:
        given = sample.meta.get("claims") if settings.response.claims == "given" else None
        if given:
            bounds.append((len(given) * low, len(given) * high))
        else:
            bounds.append((low + extraction[0], most * high + extraction[1]))
    if not bounds:
        return low, high
    return min(b[0] for b in bounds), max(b[1] for b in bounds)


def estimate(plan: Plan, done: set[str]) -> Estimate:
    method = Method.named(plan.settings.method)
    # What a sample costs under the method's own task modes for this dataset (DPD's summarization and
    # dialogue modes extract the claims of a text and debate each one, without search).
    settings = method.sample_settings(plan.settings, plan.dataset)
    low, high = call_bounds(settings)
    options = 1
    if plan.dataset.answer_format == "choice":
        options = max((len(s.options) for s in plan.samples), default=1)
        low, high = low * options, high * options + 1
    if method.sample_unit(settings, plan.dataset) == "response":  # every claim of a response is one run of the method
        low, high = _response_bounds(plan, settings, low, high)
    claims = [len(s.claim) for s in plan.samples] or [0]
    retrieval = settings.retrieval
    evidence = retrieval.k * retrieval.max_doc_chars if method.tools(settings) else 0
    per_call = (PROMPT_OVERHEAD_CHARS + mean(claims) + evidence) / 4 + COMPLETION_TOKENS
    todo = sum(s.id not in done for s in plan.samples)
    result = Estimate(len(plan.samples), todo, low, high, per_call, 0)
    records = [r for r in latest_records(plan.output / RESULTS).values()
               if not r.get("error") and isinstance(r.get("usage"), dict)]
    if records:
        result.measured = len(records)
        result.calls_measured = mean(r["usage"].get("llm_calls", 0) for r in records)
        result.tokens_measured = mean(r["usage"].get("prompt_tokens", 0) + r["usage"].get("completion_tokens", 0)
                                      for r in records)
    return result
