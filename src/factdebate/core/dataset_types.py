"""What an evaluation sample and a dataset are, and their label sets: plain data here in the lowest layer, so
that a method names them without importing :mod:`factdebate.eval.datasets` (which exports them too)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from factdebate.core.claim_context import THIRD_LABEL_ANSWER
from factdebate.core.types import THREE_LABELS, Label

AnswerFormat = Literal["label", "yesno", "choice"]
FACT_LABELS = tuple(label.value for label in THREE_LABELS)
FOUR_LABELS = (*FACT_LABELS, Label.CONFLICTING.value)  # AVeriTeC's
BINARY_LABELS = (Label.SUPPORTS.value, Label.REFUTES.value)
IDENTITY = {label: label for label in FACT_LABELS}  # a four-label dataset adds its fourth (loaders.py)
NEI = Label.NOT_ENOUGH_INFO.value


@dataclass(frozen=True)
class Sample:
    id: str
    claim: str  # the text the method checks (for ``choice``, the question)
    gold: str  # in the dataset's own label set
    options: dict[str, str] = field(default_factory=dict)  # ``choice`` only: letter -> option text
    meta: dict[str, Any] = field(default_factory=dict)
    # The gold evidence as pages a search must find (eval/datasets/gold_evidence.py): alternative sets, every page of
    # one set needed. Read only by ``eval-retrieval``; no prompt sees it, so records_sha256 leaves it out.
    gold_pages: tuple[tuple[str, ...], ...] = ()


@dataclass
class Dataset:
    """``labels``: the dataset's label set; ``label_map`` turns a verdict's label into it (else wrong)."""

    kind: str
    labels: tuple[str, ...]
    samples: list[Sample]
    answer_format: AnswerFormat = "label"
    label_map: dict[str, str] = field(default_factory=lambda: dict(IDENTITY))
    max_claim_chars: int = 2000  # longest claim the dataset needs (summarisation claims carry the article)
    spec: str = ""
    notes: str = ""
    skipped: dict[str, int] = field(default_factory=dict)  # records the loader could not use, by reason
    # "response": each sample is an LLM response checked claim by claim (factdebate.response_level)
    unit: Literal["claim", "response"] = "claim"
    # What evidence each sample carries in ``meta["evidence"]`` (for ``--evidence given|both``); "": none
    evidence: str = ""
    # What ``Sample.gold_pages`` names: "title" (Wikipedia page titles), "id" (document ids); "": no gold pages
    gold_page_kind: Literal["", "title", "id"] = ""
    # Where a dataset fetched by name came from: repo, revision, commit, split, file -> sha256 (provenance)
    origin: dict[str, Any] = field(default_factory=dict)

    def load_report(self) -> str:
        """One line: what was loaded and what was skipped, with the reasons."""
        line = f"loaded {len(self.samples)} sample(s) from {self.spec or self.kind}"
        total = sum(self.skipped.values())
        if total:
            reasons = ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items(), key=lambda kv: -kv[1]))
            line += f"; skipped {total} record(s): {reasons}"
        return line

    def two_labels(self) -> bool:
        """Whether the task is SUPPORTS or REFUTES only (the binary fact-checking and hallucination tasks)."""
        return self.answer_format == "label" and set(self.labels) == set(BINARY_LABELS)

    def four_labels(self) -> bool:
        """Whether the task has AVeriTeC's four labels (core/claim_context.py's ``four_labels``)."""
        return self.answer_format == "label" and Label.CONFLICTING.value in self.labels

    def answer_map(self) -> dict[str, str]:
        """``label_map`` as the run applies it: on a two-label task NOT ENOUGH INFO is REFUTES where the map
        does not say otherwise."""
        if not self.two_labels() or self.label_map.get(NEI) in self.labels:
            return self.label_map
        return {**self.label_map, NEI: THIRD_LABEL_ANSWER}

    def predicted(self, verdict_label: str | None) -> str | None:
        if verdict_label is None:
            return None
        return self.label_map.get(verdict_label, verdict_label)
