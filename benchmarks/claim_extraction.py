"""Precision, recall and F1 of claim extraction against annotated claims, per dataset (issues 30 and 39).

Two sets of responses with the atomic claims annotators wrote for each, read where they lie under
``--data-dir`` (default ``../shared/datasets`` beside the repository), never copied:

- ``factool``: FacTool's knowledge-QA responses (``factool_qa/knowledge_qa.jsonl``, 50 responses);
- ``factcheck-bench``: Factcheck-Bench's ChatGPT responses (``factcheck_bench/factcheck-GPT-benchmark.jsonl``,
  94 responses), whose claims marked ``factual`` are the annotation (opinions and non-claims are not).

Each response is extracted once by ``check-response``'s extractor (``aextract_claims``); ``kept`` is what
it returns (the claims a method then checks), ``written`` every claim the model wrote, the ones the
grounding filter refused included. A claim matches an annotated one when their content words overlap with
an F1 of at least 0.5 (each annotated claim matched once, greedily by best overlap). Precision: matched /
claims; recall: matched / annotated.

    python benchmarks/claim_extraction.py --llm llama-cpp:builtin --limit 20
    OPENAI_BASE_URL=http://127.0.0.1:8000/v1 python benchmarks/claim_extraction.py --llm openai:smollm2 --limit 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factdebate.response_level.extract import aextract_claims
from factdebate.response_level.grounding import content_words
from factdebate.run.build import build_resources
from factdebate.settings.load import load_settings

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets"
MATCH_F1 = 0.5


def factool(data_dir: Path) -> list[dict[str, Any]]:
    path = data_dir / "factool_qa" / "knowledge_qa.jsonl"
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{"question": i.get("prompt"), "response": i["response"], "annotated": [c["claim"] for c in i["claims"]]}
            for i in items]


def factcheck_bench(data_dir: Path) -> list[dict[str, Any]]:
    path = data_dir / "factcheck_bench" / "factcheck-GPT-benchmark.jsonl"
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        annotated = [claim for sentence in item["sentences"].values()
                     for claim, kind in zip(sentence["claims"], sentence["claim_checkworthiness"], strict=False)
                     if kind == "factual"]
        rows.append({"question": item.get("prompt"), "response": item["response"], "annotated": annotated})
    return rows


DATASETS: dict[str, Callable[[Path], list[dict[str, Any]]]] = {"factool": factool,
                                                                "factcheck-bench": factcheck_bench}


def overlap_f1(a: str, b: str) -> float:
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return 0.0
    common = len(wa & wb)
    return 0.0 if not common else 2 * common / (len(wa) + len(wb))


def matched(written: list[str], annotated: list[str]) -> int:
    pairs = sorted(((overlap_f1(w, a), i, j) for i, w in enumerate(written) for j, a in enumerate(annotated)),
                   reverse=True)
    used_w: set[int] = set()
    used_a: set[int] = set()
    for score, i, j in pairs:
        if score < MATCH_F1:
            break
        if i not in used_w and j not in used_a:
            used_w.add(i)
            used_a.add(j)
    return len(used_w)


def scores(rows: list[dict[str, Any]], key: str) -> dict[str, float]:
    written = sum(len(r[key]) for r in rows)
    annotated = sum(len(r["annotated"]) for r in rows)
    hits = sum(matched(r[key], r["annotated"]) for r in rows)
    precision = hits / written if written else 0.0
    recall = hits / annotated if annotated else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"claims": written, "annotated": annotated, "matched": hits, "precision": round(precision, 3),
            "recall": round(recall, 3), "f1": round(f1, 3)}


async def run(llm_spec: str, data_dir: Path, datasets: list[str], limit: int) -> dict[str, Any]:
    settings = load_settings(overrides={"llm": {"debater": llm_spec, "cache": False}})
    resources = build_resources(settings)
    llm = resources.llm("extractor")
    results: dict[str, Any] = {"llm": llm_spec, "datasets": {}}
    all_rows: dict[str, list[dict[str, Any]]] = {}
    async with resources:
        for name in datasets:
            items = DATASETS[name](data_dir)[:limit]
            rows = []
            started = time.perf_counter()
            for item in items:
                extraction = await aextract_claims(item["response"], question=item["question"], llm=llm)
                rows.append({**item, "kept": extraction.claims,
                             "written": [*extraction.claims, *extraction.ungrounded], "parsed": extraction.parsed})
                print(f"{name} {len(rows)}/{len(items)}: {len(rows[-1]['kept'])} kept of "
                      f"{len(rows[-1]['written'])}, {len(item['annotated'])} annotated", flush=True)
            results["datasets"][name] = {"responses": len(rows), "seconds": round(time.perf_counter() - started, 1),
                                         "unreadable": sum(not r["parsed"] for r in rows),
                                         "kept": scores(rows, "kept"), "written": scores(rows, "written")}
            all_rows[name] = rows
    results["rows"] = all_rows
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm", default="llama-cpp:builtin")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--dataset", choices=[*DATASETS, "both"], default="both")
    parser.add_argument("--limit", type=int, default=20, help="responses per dataset (the first N)")
    parser.add_argument("--out", type=Path, default=None, help="write the result and per-response rows here (JSON)")
    args = parser.parse_args()
    names = list(DATASETS) if args.dataset == "both" else [args.dataset]
    result = asyncio.run(run(args.llm, args.data_dir, names, args.limit))
    rows = result.pop("rows")
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps({"result": result, "rows": rows}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
