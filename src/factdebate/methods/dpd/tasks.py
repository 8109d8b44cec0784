"""DPD's task modes (Section 4.1): how a dataset's sample becomes the claims DPD debates, and which evidence
the teams get from the dataset itself.

- ``kbqa``: the response's claims, each debated with the gatherers' own search;
- ``qa``: question and answer as one claim, the sample's knowledge its evidence;
- ``summarization``: the summary's claims, each with the ``evidence_sentences`` closest article sentences;
- ``dialogue``: the reply's claims with subjective content removed, the history and knowledge as evidence.

The evidence reaches :meth:`DPD.run` through a context variable, so each claim is one ordinary ``run_claim``."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Literal

from factdebate.core.types import Document
from factdebate.corpus.chunking import split_sentences
from factdebate.methods.dpd.team import cosine_rows
from factdebate.util.context import bound
from factdebate.util.errors import InputError

if TYPE_CHECKING:  # the harness and the API import the methods package: no cycle at import time
    import numpy as np

    from factdebate.core.dataset_types import Dataset, Sample
    from factdebate.core.runtime import EventSink
    from factdebate.embeddings import TextEncoder
    from factdebate.methods.base import ClaimRunner
    from factdebate.methods.resources import Resources
    from factdebate.methods.settings_protocol import RunSettings, SettingsT

Provider = Callable[[str], Awaitable[list[Document]]]
TASKS = ("claim", "kbqa", "qa", "summarization", "dialogue")
# Whether a mode debates the sample's claim itself or extracts claims from a text and debates each.
TASK_UNITS: dict[str, Literal["claim", "response"]] = {
    "claim": "claim", "qa": "claim", "kbqa": "response", "summarization": "response", "dialogue": "response"}
# The mode each dataset picks by default. Response datasets (FacTool-QA responses) take the harness's
# response path, which with ``--method dpd`` is exactly KB-QA; claim datasets debate the claim as it is.
BY_DATASET = {"halueval-qa": "qa", "halueval-summarization": "summarization", "halueval-dialogue": "dialogue"}

# A ContextVar: the evaluation harness supplies a task's evidence around a whole sample, and the DPD
# debate that reads it is built by the method registry, which passes no task-specific argument.
_provider: ContextVar[Provider | None] = ContextVar("dpd_evidence", default=None)


def evidence_for_claims(provider: Provider) -> AbstractContextManager[Provider]:
    """Inside, every DPD debate asks ``provider(claim)`` for the evidence the task supplies."""
    return bound(_provider, provider)


async def supplied_evidence(claim: str) -> list[Document]:
    """The task's evidence for ``claim``; outside a task mode, the evidence that came with the claim
    (``--evidence given|both`` in an evaluation, ``verify(..., evidence=[...])``), if any."""
    from factdebate.tools.given import current_evidence

    provider = _provider.get()
    if provider is not None:
        return await provider(claim)
    return list(current_evidence() or [])


def fixed(documents: list[Document]) -> Provider:
    async def provide(claim: str) -> list[Document]:
        return documents

    return provide


def task_for(setting: str, dataset: Dataset) -> str | None:
    """The mode for this dataset: the setting, or with ``auto`` the dataset's own (None: standard path)."""
    if setting == "auto":
        return BY_DATASET.get(dataset.kind)
    return None if setting == "claim" else setting


def _field(sample: Sample, name: str, task: str) -> str:
    value = sample.meta.get(name)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"DPD's {task} mode needs the sample's {name}; sample {sample.id} has none "
                         "(use --dpd-task claim to debate the sample's claim as it is)")
    return value.strip()


def doc(id: str, title: str, text: str) -> Document:
    return Document(id=id, title=title, text=text, source="dataset")


def qa_evidence(sample: Sample) -> list[Document]:
    return [doc(f"{sample.id}:knowledge", "Knowledge given with the question", _field(sample, "knowledge", "qa"))]


def dialogue_context(sample: Sample) -> str:
    """What the claim extractor reads beside the reply: the dialogue history and knowledge (Section 4.1)."""
    parts = [f"Dialogue history:\n{_field(sample, 'history', 'dialogue')}"]
    knowledge = sample.meta.get("knowledge")
    if isinstance(knowledge, str) and knowledge.strip():
        parts.append(f"Knowledge:\n{knowledge.strip()}")
    return "\n\n".join(parts)


def dialogue_evidence(sample: Sample) -> list[Document]:
    documents = [doc(f"{sample.id}:history", "Dialogue history", _field(sample, "history", "dialogue"))]
    knowledge = sample.meta.get("knowledge")
    if isinstance(knowledge, str) and knowledge.strip():
        documents.append(doc(f"{sample.id}:knowledge", "External knowledge", knowledge.strip()))
    return documents


class SentenceEvidence:
    """The article's sentences, embedded once each; per claim the ``n`` closest are its evidence."""

    def __init__(self, sample_id: str, document: str, encoder: TextEncoder, n: int) -> None:
        self.sentences = split_sentences(" ".join(document.split()))
        self.sample_id, self.encoder, self.n = sample_id, encoder, n
        self._vectors: np.ndarray | None = None

    async def __call__(self, claim: str) -> list[Document]:
        if not self.sentences:
            return []
        import numpy as np  # here: every command imports the methods to list them (numpy is 80 ms)

        if self._vectors is None:
            self._vectors = np.asarray(await self.encoder.aencode(self.sentences))
        query = np.asarray(await self.encoder.aencode([claim]))[0]
        sims = cosine_rows(self._vectors, query)
        order = np.argsort(-sims, kind="stable")[: self.n]
        return [Document(id=f"{self.sample_id}:s{i + 1}", title=f"Article sentence {i + 1}", text=self.sentences[i],
                         source="dataset", score=float(sims[i])) for i in order]


def _without_search(settings: SettingsT, search: bool) -> SettingsT:
    """With the dataset's evidence, the gatherers search nothing else unless ``task_search`` says so."""
    retrieval = settings.retrieval.model_copy(update={"evidence": "retrieved"})
    settings = settings.model_copy(update={"retrieval": retrieval})
    if search:
        return settings
    methods = dict(settings.methods)
    methods["dpd"] = methods["dpd"].model_copy(update={"tools": []})
    return settings.model_copy(update={"methods": methods})


def task_settings(task: str, settings: SettingsT) -> SettingsT:
    """The settings a task mode's claims are debated with (KB-QA's as they are)."""
    methods = dict(settings.methods)  # the mode in force, not ``auto``: the paper deviations read it
    methods["dpd"] = methods["dpd"].model_copy(update={"task": task})
    settings = settings.model_copy(update={"methods": methods})
    if task == "kbqa":
        return settings
    settings = _without_search(settings, settings.methods["dpd"].task_search)
    if task == "dialogue":
        response = settings.response.model_copy(update={"drop_subjective": True})
        settings = settings.model_copy(update={"response": response})
    return settings


def with_settings(resources: Resources, settings: RunSettings) -> Resources:
    """The same models, tools and services under other settings (methods read ``resources.settings``)."""
    return resources if settings is resources.settings else dataclasses.replace(resources, settings=settings)


async def run_task(task: str, sample: Sample, dataset: Dataset, settings: SettingsT, resources: Resources,
                   sinks: list[EventSink] | None, runner: ClaimRunner[SettingsT]) -> tuple[dict[str, Any], str | None]:
    cfg = settings.methods["dpd"]
    claim_settings = task_settings(task, settings)
    if task in ("claim", "qa"):
        evidence = qa_evidence(sample) if task == "qa" else []
        with evidence_for_claims(fixed(evidence)):
            verdict = await runner.claim(sample.claim, claim_settings, with_settings(resources, claim_settings),
                                      sinks=sinks)
        fields = verdict.model_dump(mode="json", exclude={"config"})
        fields["dpd_task"] = task
        return fields, dataset.predicted(verdict.label.value if verdict.label else None)
    question: str | None = None
    context: str | None = None
    provider: Provider
    if task == "kbqa":
        text = str(sample.meta.get("response") or sample.claim)
        question = sample.meta.get("question") or sample.meta.get("prompt")
        provider = fixed([])  # the gatherers' own search is the evidence
    elif task == "summarization":
        text = _field(sample, "summary", task)
        provider = SentenceEvidence(sample.id, _field(sample, "document", task), resources.encoder,
                                    cfg.evidence_sentences)
    elif task == "dialogue":
        text = _field(sample, "response", task)
        provider = fixed(dialogue_evidence(sample))
        context = dialogue_context(sample)
    else:
        raise InputError(f"unknown DPD task '{task}'; use one of {', '.join(TASKS)}")
    with evidence_for_claims(provider):
        checked = await runner.response(text, claim_settings, with_settings(resources, claim_settings),
                                        question=question, sinks=sinks, context=context)
    fields = checked.model_dump(mode="json", exclude={"config"})
    fields.update(claim=sample.claim, dpd_task=task)
    return fields, dataset.predicted(checked.label.value if checked.label else None)
