"""The paper's medical setting (flexibility experiment), whose search agent's tool is
:class:`factdebate.tools.scholar.ScholarPipeline` (keyword extraction → abstracts → summaries).

:func:`run_choice`: each option of a multiple-choice question (MedQA) is checked as the claim "the correct
answer is (X) ..."; exactly one SUPPORTS picks it, else one judge call chooses from the verdicts' reasons."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from factdebate.core.parsing import parse_choice
from factdebate.core.runtime import EventSink, RunRecorder, add_spend, charged, recording, spent_before
from factdebate.core.types import Label, ModelUsage, ReplyCounts, Usage, Verdict, add_model_usage, add_reply_counts
from factdebate.eval.datasets import Sample
from factdebate.llm.ask import ask
from factdebate.llm.base import GenParams
from factdebate.methods.resources import Resources
from factdebate.prompts import render
from factdebate.run.claim import run_claim
from factdebate.settings.model import Settings


def option_claim(sample: Sample, letter: str) -> str:
    listed = " ".join(f"({key}) {text}" for key, text in sample.options.items())
    return (f"For the question below, the correct answer is ({letter}) {sample.options[letter]}.\n"
            f"Question: {sample.claim}\nOptions: {listed}")


async def run_choice(sample: Sample, settings: Settings, resources: Resources,
                     sinks: list[EventSink] | None = None) -> dict[str, Any]:
    """One verdict per option, then the choice: the record's ``label``, ``decided_by``, verdicts and usage."""
    started = time.perf_counter()
    letters = list(sample.options)
    # Every option runs to its end even when one fails, so the failure carries all the options' spend.
    answers = await asyncio.gather(
        *(run_claim(option_claim(sample, letter), settings, resources, sinks=sinks) for letter in letters),
        return_exceptions=True)
    usage, counts, by_model = Usage(), dict[str, ReplyCounts](), dict[str, ModelUsage]()
    verdicts = [a for a in answers if isinstance(a, Verdict)]
    for verdict in verdicts:
        usage.add(verdict.usage)
        add_model_usage(by_model, verdict.usage_by_model)
        add_reply_counts(counts, verdict.parse_counts)
    failures = [a for a in answers if isinstance(a, BaseException)]
    if failures:
        for other in failures[1:]:
            if isinstance(other, Exception) and (spent := spent_before(other)) is not None:
                usage.add(spent[0])
                add_model_usage(by_model, spent[1])
        usage.seconds = time.perf_counter() - started
        add_spend(failures[0], usage, by_model)
        raise failures[0]
    supported = [letter for letter, v in zip(letters, verdicts, strict=True) if v.label is Label.SUPPORTS]
    pick_text = ""
    if len(supported) == 1:
        label: str | None = supported[0]
        decided_by = "single-supported"
    else:
        recorder = RunRecorder(sinks, run_id=uuid.uuid4().hex[:12])
        try:
            with recording(recorder), charged(recorder):
                prompt = render("medical_choice", question=sample.claim, options=sample.options,
                                verdicts=[{"letter": letter, "label": v.label.value if v.label else "no verdict",
                                           "reasons": " ".join(v.reasons.split())[:600]}
                                          for letter, v in zip(letters, verdicts, strict=True)])
                picked = await ask(resources.judge, prompt, lambda t: parse_choice(t, letters), what="choice",
                                   params=GenParams(temperature=0.0, max_tokens=256),
                                   problem=f"the reply must end with one letter among {', '.join(letters)}",
                                   agent="chooser")
        except Exception as exc:  # the options' spend beside the pick's
            add_spend(exc, usage, by_model)
            raise
        label, pick_text = picked.value, picked.raw
        usage.add(recorder.total())
        add_model_usage(by_model, recorder.usage_by_model)
        add_reply_counts(counts, recorder.parse_counts)
        decided_by = "judge" if label is not None else "unparsed"
    usage.seconds = time.perf_counter() - started  # wall time: the options ran concurrently
    return {"label": label, "decided_by": decided_by, "usage": usage.model_dump(),
            "usage_by_model": {model: used.model_dump() for model, used in sorted(by_model.items())},
            "choice_reasons": pick_text,
            "parse_counts": {what: count.model_dump() for what, count in counts.items()},
            "option_verdicts": {letter: v.model_dump(mode="json", exclude={"config"})
                                for letter, v in zip(letters, verdicts, strict=True)}}
