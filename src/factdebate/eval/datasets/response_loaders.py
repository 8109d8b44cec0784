"""Response-level datasets: each sample is one LLM response with its response-level gold label and, where
the dataset has them, its atomic claims with their own gold labels.

Claims get FIRE's binary labels, as the MERMAID paper does (the evidence-less classes dropped); a response is
false when one of its claims is (or by the dataset's own response label)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from factdebate.eval.datasets import BINARY_LABELS, Dataset, Sample, file_format
from factdebate.eval.datasets.loaders import read_records, read_text
from factdebate.util.errors import InputError

S, R = BINARY_LABELS
Labelled = tuple[str, list[tuple[str, str | None]]]  # a response's gold label, its claims with theirs
FIRE_BINARY = {"true": S, "false": R, "supported": S, "partially supported": S, "refuted": R}


def _binary(value: Any) -> str | None:
    """FIRE's binary label of a claim (None: no such label, e.g. not supported / not enough evidence)."""
    if isinstance(value, bool):
        return S if value else R
    return FIRE_BINARY.get(str(value).strip().lower()) if value is not None else None


def _dataset(kind: str, path: Path, samples: list[Sample], skipped: Counter[str]) -> Dataset:
    if not samples:
        raise InputError(f"{path}: no response with a usable label — is it the right format ({kind})?")
    return Dataset(kind=kind, labels=BINARY_LABELS, samples=samples, unit="response",
                   skipped=dict(skipped),
                   notes="response-level: false if any claim is false; claims carry FIRE's binary labels")


def _sample(sample_id: str, response: Any, question: Any, gold: str, claims: Sequence[tuple[str, str | None]],
            group: str | None = None) -> Sample:
    meta: dict[str, Any] = {"question": question if isinstance(question, str) else None,
                            "claims": [c for c, _ in claims], "claim_golds": [g for _, g in claims]}
    if group:
        meta["group"] = group
    return Sample(sample_id, str(response).strip(), gold, meta=meta)


def _load_rows(kind: str, path: Path, labelled: Callable[[dict[str, Any], Counter[str]], Labelled | None]
               ) -> Dataset:
    """One sample per JSONL row with a response text, labelled by ``labelled`` (None: skipped, counted)."""
    skipped: Counter[str] = Counter()
    samples = []
    for index, row in enumerate(read_records(path, skipped)):
        if not isinstance(row.get("response"), str) or not row["response"].strip():
            skipped["no 'response' text"] += 1
            continue
        found = labelled(row, skipped)
        if found is not None:
            samples.append(_sample(str(index), row["response"], row.get("prompt"), *found))
    return _dataset(kind, path, samples, skipped)


@file_format("factool-qa-responses", "FacTool knowledge QA JSONL, response level (response, claims[] with "
                                     "true/false; the response label is false if any claim is)")
def load_factool_responses(path: Path) -> Dataset:
    def labelled(row: dict[str, Any], skipped: Counter[str]) -> Labelled | None:
        gold = _binary(row.get("label"))
        if gold is None:
            skipped["no response label"] += 1
            return None
        items = [c for c in row.get("claims") or [] if isinstance(c, dict) and isinstance(c.get("claim"), str)]
        return gold, [(c["claim"], _binary(c.get("label"))) for c in items]

    return _load_rows("factool-qa-responses", path, labelled)


@file_format("factcheck-bench-responses", "Factcheck-GPT benchmark JSONL (factcheck-GPT-benchmark.jsonl), "
                                          "response level: response_factuality True/False (NA skipped), "
                                          "per-claim labels True/False")
def load_factcheck_bench_responses(path: Path) -> Dataset:
    def labelled(row: dict[str, Any], skipped: Counter[str]) -> Labelled | None:
        gold = _binary(str(row.get("response_factuality")))
        if gold is None:
            skipped[f"response_factuality {str(row.get('response_factuality'))[:20]!r} is not True/False"] += 1
            return None
        claims: list[tuple[str, str | None]] = []
        sentences: dict[str, Any] = row["sentences"] if isinstance(row.get("sentences"), dict) else {}
        for sentence in sentences.values():
            texts = sentence.get("claims") or []
            labels = sentence.get("claims_factuality_label") or []
            for number, text in enumerate(texts):
                if isinstance(text, str) and text.strip():
                    # "unknown" (not enough evidence) has no binary label: checked, not scored at claim level
                    claims.append((text, _binary(str(labels[number])) if number < len(labels) else None))
        return gold, claims

    return _load_rows("factcheck-bench-responses", path, labelled)


@file_format("bingcheck-responses", "BingCheck (Self-Checker) per-response JSON, a file or a directory of them: "
                                    "sub-claims with supported/partially supported (true) and refuted (false); "
                                    "not supported claims are dropped, as FIRE does")
def load_bingcheck_responses(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files:
        raise InputError(f"{path}: no .json files in this directory")
    samples = []
    for file in files:
        try:
            data = json.loads(read_text(file))
        except json.JSONDecodeError as exc:
            raise InputError(f"{file}: not valid JSON ({exc.msg})") from None
        entries = data.items() if isinstance(data, dict) and "response" not in data else [(file.stem, data)]
        for key, entry in entries:
            sample = _bing_sample(str(key), entry, skipped)
            if sample is not None:
                samples.append(sample)
    return _dataset("bingcheck-responses", path, samples, skipped)


def _bing_sample(key: str, entry: Any, skipped: Counter[str]) -> Sample | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("response"), str):
        skipped["no 'response' text"] += 1
        return None
    verdicts = (entry.get("fact-checking") or {}).get("subconclusions") or {}
    claims = [(claim, _binary(label)) for claim, label in verdicts.items() if isinstance(claim, str)]
    kept = [(claim, gold) for claim, gold in claims if gold is not None]
    if not kept:
        skipped["no claim with a binary label"] += 1
        return None
    gold = R if any(g == R for _, g in kept) else S
    sample = _sample(key, entry["response"], entry.get("query"), gold, kept)
    sample.meta["dropped_claims"] = len(claims) - len(kept)  # "not supported": no binary label (FIRE)
    return sample
