"""Loaders for the benchmark file formats, each mapping the dataset's labels onto SUPPORTS / REFUTES /
NOT ENOUGH INFO or keeping the dataset's own label set. Records without a usable label are skipped and
counted in ``Dataset.notes``, never guessed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factdebate.errors import InputError
from factdebate.eval.datasets import BINARY_LABELS, FACT_LABELS, Dataset, Sample, file_format

S, R, N = FACT_LABELS
CONFLICTING = "CONFLICTING EVIDENCE/CHERRYPICKING"


def read_records(path: Path) -> list[dict[str, Any]]:
    """A JSON array, a JSON object keyed by id (the key lands in ``_key``) or JSON lines."""
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        data = _parse(text, path)
        return [r for r in data if isinstance(r, dict)]
    if stripped.startswith("{") and "\n{" not in stripped.rstrip():
        data = _parse(text, path)
        if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
            return [{"_key": key, **value} for key, value in data.items()]
        return [data] if isinstance(data, dict) else []
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            row = _parse(line, path, number)
            if isinstance(row, dict):
                records.append(row)
    return records


def _parse(text: str, path: Path, line: int | None = None) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{path}:{line}" if line else str(path)
        raise InputError(f"{where}: not valid JSON ({exc.msg})") from exc


def _labelled(kind: str, path: Path, records: list[dict[str, Any]], mapping: dict[str, str],
              labels: tuple[str, ...], *, claim_key: str = "claim", id_keys: tuple[str, ...] = ("id",),
              meta_keys: tuple[str, ...] = ()) -> Dataset:
    samples: list[Sample] = []
    skipped = 0
    for index, row in enumerate(records):
        claim = row.get(claim_key)
        raw = row.get("label")
        gold = mapping.get(str(raw).strip().lower()) if raw is not None else None
        if not isinstance(claim, str) or not claim.strip() or gold is None:
            skipped += 1  # e.g. FEVEROUS's empty header line, an unlabelled test claim
            continue
        sample_id = next((str(row[k]) for k in id_keys if row.get(k) not in (None, "")), str(index))
        meta = {k: row[k] for k in meta_keys if k in row}
        samples.append(Sample(sample_id, claim.strip(), gold, meta={"source_label": raw, **meta}))
    notes = f"{skipped} record(s) without a claim or a known label were skipped" if skipped else ""
    if not samples and records:
        raise InputError(f"{path}: no record has a '{claim_key}' and a label this loader knows "
                         f"({', '.join(sorted(mapping))}) — is it the right format ({kind})?")
    return Dataset(kind=kind, labels=labels, samples=samples, notes=notes)


FEVER_MAP = {"supports": S, "refutes": R, "not enough info": N}
TRUE_FALSE = {"true": S, "false": R, "supports": S, "refutes": R}


@file_format("fever", "FEVER JSONL (id, claim, label SUPPORTS/REFUTES/NOT ENOUGH INFO)")
def load_fever(path: Path) -> Dataset:
    return _labelled("fever", path, read_records(path), FEVER_MAP, FACT_LABELS)


@file_format("feverous", "FEVEROUS JSONL, or FEVEROUS-S JSON array (ProgramFC); 3 or 2 labels, challenge kept")
def load_feverous(path: Path) -> Dataset:
    records = read_records(path)
    for row in records:
        if row.get("challenge"):
            row["group"] = row["challenge"]
    return _two_way_if_no_nei(_labelled("feverous", path, records, FEVER_MAP, FACT_LABELS,
                                        meta_keys=("challenge", "group")))


@file_format("faviq", "FaVIQ JSON/JSONL (id, claim, label SUPPORTS/REFUTES)")
def load_faviq(path: Path) -> Dataset:
    return _labelled("faviq", path, read_records(path), FEVER_MAP, BINARY_LABELS)


@file_format("averitec", "AVeriTeC JSON (claim, label; 4 labels: the 4th, Conflicting Evidence/Cherrypicking, "
                         "is kept and no 3-label method can predict it)")
def load_averitec(path: Path) -> Dataset:
    mapping = {"supported": S, "refuted": R, "not enough evidence": N,
               "conflicting evidence/cherrypicking": CONFLICTING}
    return _labelled("averitec", path, read_records(path), mapping, (*FACT_LABELS, CONFLICTING),
                     meta_keys=("claim_date",))


@file_format("hover", "HoVer JSON (uid, claim, label SUPPORTED/NOT_SUPPORTED, num_hops); NOT_SUPPORTED -> REFUTES")
def load_hover(path: Path) -> Dataset:
    mapping = {"supported": S, "not_supported": R}
    dataset = _labelled("hover", path, read_records(path), mapping, BINARY_LABELS, id_keys=("uid", "id"),
                        meta_keys=("num_hops",))
    for sample in dataset.samples:
        if "num_hops" in sample.meta:
            sample.meta["group"] = f"{sample.meta['num_hops']} hops"
    return dataset


@file_format("scifact", "SciFact claims JSONL (label from evidence: SUPPORT / CONTRADICT, empty -> NOT ENOUGH INFO)")
def load_scifact(path: Path) -> Dataset:
    records = []
    for row in read_records(path):
        evidence = row.get("evidence")
        if not isinstance(evidence, dict):
            continue  # the test split has no labels
        found = {str(e.get("label", "")).upper() for sets in evidence.values() for e in sets if isinstance(e, dict)}
        # A claim whose documents disagree (SUPPORT and CONTRADICT) has no single gold label: skipped.
        label = "NEI" if not found else (found.pop() if len(found) == 1 else None)
        records.append({**row, "label": label})
    mapping = {"support": S, "contradict": R, "nei": N}
    if not records:
        raise InputError(f"{path}: no labelled SciFact claims (the test split is unlabelled)")
    return _labelled("scifact", path, records, mapping, FACT_LABELS)


@file_format("pubmedqa", "PubMedQA JSON keyed by PMID (QUESTION, final_decision yes/no/maybe); yes/no/maybe answers")
def load_pubmedqa(path: Path) -> Dataset:
    samples = []
    for index, row in enumerate(read_records(path)):
        question, decision = row.get("QUESTION"), str(row.get("final_decision", "")).strip().lower()
        if not isinstance(question, str) or decision not in ("yes", "no", "maybe"):
            continue
        # The yes/no/maybe question becomes a claim a verdict can answer: SUPPORTS = yes, REFUTES = no,
        # NOT ENOUGH INFO = maybe (the evidence is inconclusive).
        claim = f'The answer to the biomedical research question "{question.strip()}" is yes.'
        samples.append(Sample(str(row.get("_key", index)), claim, decision,
                              meta={"question": question, "contexts": row.get("CONTEXTS", [])}))
    return Dataset(kind="pubmedqa", labels=("yes", "no", "maybe"), samples=samples, answer_format="yesno",
                   label_map={S: "yes", R: "no", N: "maybe"})


@file_format("medqa", "MedQA JSONL (question, options A-E, answer_idx); multiple choice")
def load_medqa(path: Path) -> Dataset:
    samples = []
    letters: set[str] = set()
    for index, row in enumerate(read_records(path)):
        options, answer = row.get("options"), str(row.get("answer_idx", "")).strip().upper()
        if not isinstance(options, dict) or answer not in options or not isinstance(row.get("question"), str):
            continue
        opts = {str(k).upper(): str(v) for k, v in sorted(options.items())}
        letters.update(opts)
        samples.append(Sample(str(row.get("id", index)), row["question"].strip(), answer, options=opts,
                              meta={"group": row["meta_info"]} if "meta_info" in row else {}))
    return Dataset(kind="medqa", labels=tuple(sorted(letters)), samples=samples, answer_format="choice",
                   label_map={})


@file_format("factool-qa", "FacTool knowledge QA JSONL (claims[] with true/false labels) or flat claim/label")
def load_factool(path: Path) -> Dataset:
    records: list[dict[str, Any]] = []
    for index, row in enumerate(read_records(path)):
        if isinstance(row.get("claims"), list):
            for number, item in enumerate(row["claims"]):
                if isinstance(item, dict):
                    records.append({"id": f"{index}-{number}", "claim": item.get("claim"),
                                    "label": _boolean(item.get("label")), "prompt": row.get("prompt")})
        else:
            records.append({**row, "label": _boolean(row.get("label"))})
    return _labelled("factool-qa", path, records, TRUE_FALSE, BINARY_LABELS)


@file_format("bingcheck", "BingCheck claim/label JSONL: supported/partially supported -> SUPPORTS, "
                          "not supported -> NOT ENOUGH INFO, refuted -> REFUTES (or binary true/false)")
def load_bingcheck(path: Path) -> Dataset:
    mapping = {"supported": S, "partially supported": S, "not supported": N, "refuted": R, **TRUE_FALSE}
    return _two_way_if_no_nei(_labelled("bingcheck", path, read_records(path), mapping, FACT_LABELS))


@file_format("factcheck-bench", "Factcheck-Bench claim factuality JSONL (true / false / not_enough_evidence)")
def load_factcheck_bench(path: Path) -> Dataset:
    mapping = {**TRUE_FALSE, "not_enough_evidence": N}
    records = [{**row, "label": _boolean(row.get("label"))} for row in read_records(path)]
    return _two_way_if_no_nei(_labelled("factcheck-bench", path, records, mapping, FACT_LABELS))


@file_format("claims", "Generic JSONL/JSON: claim + label (SUPPORTS/REFUTES/NOT ENOUGH INFO or true/false)")
def load_generic(path: Path) -> Dataset:
    records = [{**row, "label": _boolean(row.get("label"))} for row in read_records(path)]
    return _two_way_if_no_nei(_labelled("claims", path, records, {**FEVER_MAP, **TRUE_FALSE}, FACT_LABELS))


def _two_way_if_no_nei(dataset: Dataset) -> Dataset:
    """Files without a single NOT ENOUGH INFO claim (FEVEROUS-S, the binary FIRE files) are two-way tasks:
    their macro-F1 is over SUPPORTS and REFUTES, and a NOT ENOUGH INFO verdict is simply wrong."""
    if all(s.gold != N for s in dataset.samples):
        dataset.labels = BINARY_LABELS
    return dataset


def _boolean(value: Any) -> Any:
    """JSON booleans become "true"/"false" so one mapping serves both spellings."""
    return ("true" if value else "false") if isinstance(value, bool) else value
