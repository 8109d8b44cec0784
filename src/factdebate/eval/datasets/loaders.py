"""Loaders for the benchmark file formats, each mapping the dataset's labels onto ours or keeping its own.
Records without a usable label are skipped, never guessed, and counted by reason in ``Dataset.skipped``."""

from __future__ import annotations

import json
import re
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factdebate.core.runfiles import MAX_INPUT_BYTES, read_input_bytes
from factdebate.core.types import Label
from factdebate.eval.datasets import BINARY_LABELS, FACT_LABELS, FOUR_LABELS, Dataset, Sample, file_format
from factdebate.eval.datasets.gold_evidence import GoldSets, fever_sets, feverous_sets, hover_sets, scifact_sets
from factdebate.util.errors import InputError

S, R, N = FACT_LABELS
CONFLICTING = Label.CONFLICTING.value


def read_text(path: Path) -> str:
    """The file's text, gzip decompressed, read within bounds; what is not UTF-8 text is refused."""
    if path.is_dir():
        raise InputError(f"the dataset path {path} is a directory: give the dataset file inside it")
    raw = read_input_bytes(path, what="the dataset file")
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip(raw, path)
    if b"\x00" in raw[:4096]:
        raise InputError(f"{path} is binary, not JSON text: give the dataset as JSON or JSON lines "
                         "(optionally gzipped)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                         "save it as UTF-8") from None


def _gunzip(raw: bytes, path: Path) -> bytes:
    """``raw`` decompressed, every gzip member of it, to at most :data:`MAX_INPUT_BYTES`."""
    parts: list[bytes] = []
    room = MAX_INPUT_BYTES
    while raw:
        unpacker = zlib.decompressobj(wbits=31)  # one gzip member
        try:
            part = unpacker.decompress(raw, room + 1)
        except zlib.error as exc:
            raise InputError(f"{path} looks gzipped but cannot be decompressed ({exc}); is it corrupt?") from None
        if len(part) > room:
            raise InputError(f"{path} holds more than {MAX_INPUT_BYTES // 2**20} MiB once decompressed: give a "
                             "smaller dataset file")
        if not unpacker.eof:
            raise InputError(f"{path} looks gzipped but cannot be decompressed (it ends early); is it truncated?")
        parts.append(part)
        room -= len(part)
        raw = unpacker.unused_data
    return b"".join(parts)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def read_records(path: Path, skipped: Counter[str] | None = None) -> list[dict[str, Any]]:
    """A JSON array, an object keyed by id (in ``_key``) or JSON lines; non-objects counted in ``skipped``."""
    skipped = Counter() if skipped is None else skipped
    text = read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        data = _parse(text, path)
        for row in data:
            if not isinstance(row, dict):
                skipped[f"array entry is {_kind(row)}, not an object"] += 1
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
            else:
                skipped[f"line is {_kind(row)}, not an object"] += 1
    return records


def _parse(text: str, path: Path, line: int | None = None) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{path}:{line}" if line else str(path)
        raise InputError(f"{where}: not valid JSON ({exc.msg})") from exc


def _labelled(kind: str, path: Path, records: list[dict[str, Any]], mapping: dict[str, str],
              labels: tuple[str, ...], *, claim_key: str = "claim", id_keys: tuple[str, ...] = ("id",),
              meta_keys: tuple[str, ...] = (), skipped: Counter[str] | None = None,
              gold_pages: Callable[[dict[str, Any]], GoldSets] | None = None) -> Dataset:
    samples: list[Sample] = []
    skipped = Counter() if skipped is None else skipped
    for index, row in enumerate(records):
        claim = row.get(claim_key)
        raw = row.get("label")
        gold = mapping.get(str(raw).strip().lower()) if raw is not None else None
        # e.g. FEVEROUS's empty header line, an unlabelled test claim
        if not isinstance(claim, str) or not claim.strip():
            skipped[f"no '{claim_key}' text"] += 1
            continue
        if gold is None:
            skipped["no label" if raw is None else f"unknown label {str(raw)[:40]!r}"] += 1
            continue
        sample_id = next((str(row[k]) for k in id_keys if row.get(k) not in (None, "")), str(index))
        meta = {k: row[k] for k in meta_keys if k in row}
        samples.append(Sample(sample_id, claim.strip(), gold, meta={"source_label": raw, **meta},
                              gold_pages=gold_pages(row) if gold_pages else ()))
    if not samples and records:
        raise InputError(f"{path}: no record has a '{claim_key}' and a label this loader knows "
                         f"({', '.join(sorted(mapping))}) — is it the right format ({kind})?")
    return Dataset(kind=kind, labels=labels, samples=samples, skipped=dict(skipped))


FEVER_MAP = {"supports": S, "refutes": R, "not enough info": N}
TRUE_FALSE = {"true": S, "false": R, "supports": S, "refutes": R}


@file_format("fever", "FEVER JSONL (id, claim, label SUPPORTS/REFUTES/NOT ENOUGH INFO)")
def load_fever(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    dataset = _labelled("fever", path, read_records(path, skipped), FEVER_MAP, FACT_LABELS, skipped=skipped,
                        gold_pages=lambda row: fever_sets(row.get("evidence")))
    return _with_gold_kind(dataset, "title")


@file_format("feverous", "FEVEROUS JSONL, or FEVEROUS-S JSON array (ProgramFC); 3 or 2 labels, challenge kept")
def load_feverous(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    records = read_records(path, skipped)
    for row in records:
        row["_gold_pages"] = feverous_sets(row.get("evidence"))  # before the evidence is read or dropped
        if row.get("challenge"):
            row["group"] = row["challenge"]
        if isinstance(row.get("evidence"), str):  # FEVEROUS-S: "title<TAB>sentence" lines, text included
            row["evidence"] = feverous_sentences(row["evidence"])
        else:  # the original format names evidence cells by id, without their text
            row.pop("evidence", None)
    dataset = _two_way_if_no_nei(_labelled("feverous", path, records, FEVER_MAP, FACT_LABELS,
                                           meta_keys=("challenge", "group", "evidence"), skipped=skipped,
                                           gold_pages=lambda row: row["_gold_pages"]))
    if any(s.meta.get("evidence") for s in dataset.samples):
        dataset.evidence = "gold evidence sentences (FEVEROUS-S)"
    return _with_gold_kind(dataset, "title")


_WIKI_LINK = re.compile(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]")


def feverous_sentences(text: str) -> list[dict[str, str]]:
    """FEVEROUS-S evidence lines -> passages, wiki links reduced to their shown text."""
    passages = []
    for line in text.splitlines():
        title, sep, sentence = line.partition("\t")
        if sep and sentence.strip():
            passages.append({"title": title.strip(), "text": _WIKI_LINK.sub(r"\1", sentence).strip()})
    return passages


@file_format("faviq", "FaVIQ JSON/JSONL (id, claim, label SUPPORTS/REFUTES)")
def load_faviq(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    return _labelled("faviq", path, read_records(path, skipped), FEVER_MAP, BINARY_LABELS, skipped=skipped)


@file_format("averitec", "AVeriTeC JSON (claim, label; 4 labels, the 4th, Conflicting Evidence/Cherrypicking, "
                         "offered to every method on it)")
def load_averitec(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    mapping = {"supported": S, "refuted": R, "not enough evidence": N,
               "conflicting evidence/cherrypicking": CONFLICTING}
    dataset = _labelled("averitec", path, read_records(path, skipped), mapping, FOUR_LABELS,
                        meta_keys=("claim_date",), skipped=skipped)
    dataset.label_map[CONFLICTING] = CONFLICTING  # the fourth label is predicted as it is named
    return dataset


@file_format("hover", "HoVer JSON (uid, claim, label SUPPORTED/NOT_SUPPORTED, num_hops); NOT_SUPPORTED -> REFUTES")
def load_hover(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    mapping = {"supported": S, "not_supported": R}
    dataset = _labelled("hover", path, read_records(path, skipped), mapping, BINARY_LABELS,
                        id_keys=("uid", "id"), meta_keys=("num_hops",), skipped=skipped,
                        gold_pages=lambda row: hover_sets(row.get("supporting_facts")))
    for sample in dataset.samples:
        if "num_hops" in sample.meta:
            sample.meta["group"] = f"{sample.meta['num_hops']} hops"
    return _with_gold_kind(dataset, "title")


@file_format("scifact", "SciFact claims JSONL (label from evidence: SUPPORT / CONTRADICT, empty -> NOT ENOUGH INFO)")
def load_scifact(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    records = []
    for row in read_records(path, skipped):
        evidence = row.get("evidence")
        if not isinstance(evidence, dict):
            skipped["no evidence labels (the test split is unlabelled)"] += 1
            continue
        found = {str(e.get("label", "")).upper() for sets in evidence.values() for e in sets if isinstance(e, dict)}
        # A claim whose documents disagree (SUPPORT and CONTRADICT) has no single gold label: skipped.
        label = "NEI" if not found else (found.pop() if len(found) == 1 else None)
        if label is None:
            skipped["documents disagree (SUPPORT and CONTRADICT)"] += 1
            continue
        records.append({**row, "label": label, "_rationales": evidence})
    mapping = {"support": S, "contradict": R, "nei": N}
    if not records:
        raise InputError(f"{path}: no labelled SciFact claims (the test split is unlabelled)")
    abstracts = _scifact_corpus(path.parent / "corpus.jsonl")
    for row in records:
        cited = [str(d) for d in row.get("cited_doc_ids") or []]
        row["evidence"] = [abstracts[d] for d in cited if d in abstracts]
    for row in records:
        row["_gold_pages"] = scifact_sets(row.get("_rationales"))
    dataset = _labelled("scifact", path, records, mapping, FACT_LABELS, meta_keys=("evidence",), skipped=skipped,
                        gold_pages=lambda row: row["_gold_pages"])
    if abstracts:
        dataset.evidence = "abstracts of the cited documents (corpus.jsonl beside the claims file)"
    return _with_gold_kind(dataset, "id")


def _scifact_corpus(path: Path) -> dict[str, dict[str, str]]:
    """SciFact's corpus.jsonl (doc_id, title, abstract sentences), when it lies beside the claims file."""
    if not path.is_file():
        return {}
    return {str(row["doc_id"]): {"id": f"scifact-{row['doc_id']}", "title": str(row.get("title", "")),
                                 "text": " ".join(str(s).strip() for s in row.get("abstract") or []),
                                 "source": f"scifact:{row['doc_id']}"}
            for row in read_records(path) if "doc_id" in row}


@file_format("scifact-sr", "SciFact claims with complete evidence only (SUPPORT / CONTRADICT; NEI claims "
                           "skipped), the two-way task of FOLK and MERMAID")
def load_scifact_sr(path: Path) -> Dataset:
    dataset = load_scifact(path)
    dropped = sum(s.gold == N for s in dataset.samples)
    dataset.samples = [s for s in dataset.samples if s.gold != N]
    if dropped:
        dataset.skipped["no evidence (NOT ENOUGH INFO), left out of the two-way task"] = dropped
    dataset.kind, dataset.labels = "scifact-sr", BINARY_LABELS
    return dataset


@file_format("pubmedqa", "PubMedQA JSON keyed by PMID (QUESTION, final_decision yes/no/maybe); yes/no/maybe answers")
def load_pubmedqa(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    samples = []
    for index, row in enumerate(read_records(path, skipped)):
        question, decision = row.get("QUESTION"), str(row.get("final_decision", "")).strip().lower()
        if not isinstance(question, str) or not question.strip():
            skipped["no 'QUESTION' text"] += 1
            continue
        if decision not in ("yes", "no", "maybe"):
            skipped[f"final_decision {decision[:40]!r} is not yes/no/maybe"] += 1
            continue
        # The yes/no/maybe question becomes a claim a verdict can answer: SUPPORTS = yes, REFUTES = no,
        # NOT ENOUGH INFO = maybe (the evidence is inconclusive).
        claim = f'The answer to the biomedical research question "{question.strip()}" is yes.'
        contexts = [c for c in row.get("CONTEXTS") or [] if isinstance(c, str)]
        sections: list[Any] = row["LABELS"] if isinstance(row.get("LABELS"), list) else []
        evidence = [{"title": str(sections[i]) if i < len(sections) else "context", "text": text}
                    for i, text in enumerate(contexts)]
        samples.append(Sample(str(row.get("_key", index)), claim, decision,
                              meta={"question": question, "contexts": contexts, "evidence": evidence}))
    return Dataset(kind="pubmedqa", labels=("yes", "no", "maybe"), samples=samples, answer_format="yesno",
                   label_map={S: "yes", R: "no", N: "maybe"}, skipped=dict(skipped),
                   evidence="the abstract's CONTEXTS")


@file_format("medqa", "MedQA JSONL (question, options A-E, answer_idx); multiple choice")
def load_medqa(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    samples = []
    letters: set[str] = set()
    for index, row in enumerate(read_records(path, skipped)):
        options, answer = row.get("options"), str(row.get("answer_idx", "")).strip().upper()
        if not isinstance(row.get("question"), str) or not row["question"].strip():
            skipped["no 'question' text"] += 1
            continue
        if not isinstance(options, dict) or answer not in options:
            skipped["no options, or answer_idx is not one of them"] += 1
            continue
        opts = {str(k).upper(): str(v) for k, v in sorted(options.items())}
        letters.update(opts)
        samples.append(Sample(str(row.get("id", index)), row["question"].strip(), answer, options=opts,
                              meta={"group": row["meta_info"]} if "meta_info" in row else {}))
    return Dataset(kind="medqa", labels=tuple(sorted(letters)), samples=samples, answer_format="choice",
                   label_map={}, skipped=dict(skipped))


@file_format("factool-qa", "FacTool knowledge QA JSONL (claims[] with true/false labels) or flat claim/label")
def load_factool(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    records: list[dict[str, Any]] = []
    for index, row in enumerate(read_records(path, skipped)):
        if isinstance(row.get("claims"), list):
            for number, item in enumerate(row["claims"]):
                if not isinstance(item, dict):
                    skipped["claims[] entry is not an object"] += 1
                else:
                    records.append({"id": f"{index}-{number}", "claim": item.get("claim"),
                                    "label": _boolean(item.get("label")), "prompt": row.get("prompt")})
        else:
            records.append({**row, "label": _boolean(row.get("label"))})
    return _labelled("factool-qa", path, records, TRUE_FALSE, BINARY_LABELS, skipped=skipped)


@file_format("bingcheck", "BingCheck claim/label JSONL: supported/partially supported -> SUPPORTS, "
                          "not supported -> NOT ENOUGH INFO, refuted -> REFUTES (or binary true/false)")
def load_bingcheck(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    mapping = {"supported": S, "partially supported": S, "not supported": N, "refuted": R, **TRUE_FALSE}
    records = read_records(path, skipped)
    return _two_way_if_no_nei(_labelled("bingcheck", path, records, mapping, FACT_LABELS, skipped=skipped))


@file_format("factcheck-bench", "Factcheck-Bench claim factuality JSONL (true / false / not_enough_evidence)")
def load_factcheck_bench(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    mapping = {**TRUE_FALSE, "not_enough_evidence": N}
    records = [{**row, "label": _boolean(row.get("label"))} for row in read_records(path, skipped)]
    return _two_way_if_no_nei(_labelled("factcheck-bench", path, records, mapping, FACT_LABELS,
                                        skipped=skipped))


@file_format("claims", "Generic JSONL/JSON: claim + label (SUPPORTS/REFUTES/NOT ENOUGH INFO or true/false)")
def load_generic(path: Path) -> Dataset:
    skipped: Counter[str] = Counter()
    records = [{**row, "label": _boolean(row.get("label"))} for row in read_records(path, skipped)]
    return _two_way_if_no_nei(_labelled("claims", path, records, {**FEVER_MAP, **TRUE_FALSE}, FACT_LABELS,
                                        skipped=skipped))


def _with_gold_kind(dataset: Dataset, kind: str) -> Dataset:
    """Marks what the samples' gold pages name, when any sample has some (eval-retrieval reads them)."""
    if any(s.gold_pages for s in dataset.samples):
        dataset.gold_page_kind = "title" if kind == "title" else "id"
    return dataset


def _two_way_if_no_nei(dataset: Dataset) -> Dataset:
    """Files without a single NOT ENOUGH INFO claim (FEVEROUS-S, the binary FIRE files) are two-way tasks."""
    if all(s.gold != N for s in dataset.samples):
        dataset.labels = BINARY_LABELS
    return dataset


def _boolean(value: Any) -> Any:
    """JSON booleans become "true"/"false" so one mapping serves both spellings."""
    return ("true" if value else "false") if isinstance(value, bool) else value
