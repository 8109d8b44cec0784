"""The paper's medical setting (flexibility experiment).

- :class:`ScholarPipeline`: the search agent's tool becomes keyword extraction → the top 3 abstracts from
  OpenAlex or PubMed → a short summary of each (the paper used a DistilBART summariser; none ships offline,
  so the debater model writes the summaries).
- :func:`run_choice`: multiple-choice questions (MedQA, A–E). Every method returns a verdict on a claim, so
  each option becomes the claim "the correct answer is (X) ..." and is checked on its own; exactly one
  SUPPORTS verdict picks that option, otherwise one judge call chooses among the options from the
  verdicts' reasons. Yes/no/maybe questions (PubMedQA) need no decomposition: see the pubmedqa loader.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from typing import Any

from factdebate.api import run_claim
from factdebate.config import Settings
from factdebate.eval.datasets import Sample
from factdebate.llm.base import GenParams, Message
from factdebate.llm.model import LLM
from factdebate.resources import Resources
from factdebate.parsing import parse_choice
from factdebate.prompts import render
from factdebate.runtime import EventSink, RunRecorder, emit, recording
from factdebate.scoring.ask import ask_parsed
from factdebate.tools.base import Tool
from factdebate.types import Document, Label, Usage, Verdict


def parse_keywords(text: str) -> str | None:
    """Keywords as one search string, from a comma/semicolon/line separated reply."""
    first = next((ln for ln in text.strip().splitlines() if ln.strip()), "")
    first = re.sub(r"^\s*keywords?\s*:\s*", "", first, flags=re.I)
    words = [w.strip(" .\"'-*") for w in re.split(r"[,;]", first)]
    words = [w for w in words if w]
    return " ".join(words[:8]) if words else None


class ScholarPipeline:
    """A Tool: keywords from the query, ``abstracts`` papers from the inner scholarly tool, one summary per
    paper. A reply without usable keywords falls back to the query itself (traced); a failed summary
    falls back to the abstract's opening."""

    def __init__(self, inner: Tool, llm: LLM, *, abstracts: int = 3, summarize: bool = True,
                 summary_chars: int = 600) -> None:
        self.inner = inner
        self.llm = llm
        self.abstracts = abstracts
        self.summarize = summarize
        self.summary_chars = summary_chars
        self.name = f"{inner.name}+summary" if summarize else inner.name

    async def search(self, query: str, k: int) -> list[Document]:
        keywords, raw = await ask_parsed(self.llm, render("medical_keywords", query=query), parse_keywords,
                                         "no comma-separated keywords were found", agent="scholar", round=0,
                                         max_tokens=48)
        if keywords is None:
            emit("parse_failure", what="keywords", agent="scholar", reply=raw[:200])
        documents = await self.inner.search(keywords or query, self.abstracts)
        if not self.summarize:
            return documents
        return list(await asyncio.gather(*(self._summary(query, d) for d in documents)))

    async def _summary(self, query: str, document: Document) -> Document:
        prompt = render("medical_summary", query=query, title=document.title, abstract=document.text)
        messages: list[Message] = [{"role": "user", "content": prompt.text}]
        reply = await self.llm.complete(messages, GenParams(temperature=0.0, max_tokens=160), agent="scholar",
                                        prompt=prompt.name)
        text = " ".join(reply.text.split()) or document.text[: self.summary_chars]
        return document.model_copy(update={"text": text[: self.summary_chars]})


def option_claim(sample: Sample, letter: str) -> str:
    listed = " ".join(f"({key}) {text}" for key, text in sample.options.items())
    return (f"For the question below, the correct answer is ({letter}) {sample.options[letter]}.\n"
            f"Question: {sample.claim}\nOptions: {listed}")


async def run_choice(sample: Sample, settings: Settings, resources: Resources,
                     sinks: list[EventSink] | None = None) -> dict[str, Any]:
    """One verdict per option, then the choice. Returns the record fields: ``label`` (the letter or None),
    ``decided_by``, ``option_verdicts``, ``usage`` summed over every call, including the final pick."""
    started = time.perf_counter()
    letters = list(sample.options)
    verdicts: list[Verdict] = list(await asyncio.gather(
        *(run_claim(option_claim(sample, letter), settings, resources, sinks=sinks) for letter in letters)))
    usage = Usage()
    for verdict in verdicts:
        usage.add(verdict.usage)
    supported = [letter for letter, v in zip(letters, verdicts, strict=True) if v.label is Label.SUPPORTS]
    pick_text = ""
    if len(supported) == 1:
        label: str | None = supported[0]
        decided_by = "single-supported"
    else:
        recorder = RunRecorder(sinks, run_id=uuid.uuid4().hex[:12])
        with recording(recorder):
            prompt = render("medical_choice", question=sample.claim, options=sample.options,
                            verdicts=[{"letter": letter, "label": v.label.value if v.label else "no verdict",
                                       "reasons": " ".join(v.reasons.split())[:600]}
                                      for letter, v in zip(letters, verdicts, strict=True)])
            label, pick_text = await ask_parsed(resources.judge, prompt, lambda t: parse_choice(t, letters),
                                                f"the reply must end with one letter among {', '.join(letters)}",
                                                agent="chooser", round=0, max_tokens=256)
        usage.add(recorder.total())
        decided_by = "judge" if label is not None else "unparsed"
    usage.seconds = time.perf_counter() - started  # wall time: the options ran concurrently
    return {"label": label, "decided_by": decided_by, "usage": usage.model_dump(), "choice_reasons": pick_text,
            "option_verdicts": {letter: v.model_dump(mode="json", exclude={"config"})
                                for letter, v in zip(letters, verdicts, strict=True)}}
