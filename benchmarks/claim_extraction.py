"""Precision and recall of claim extraction against annotated claims, before and after the grounding
filter's names-and-numbers rule (issue 30).

FacTool's knowledge-QA responses come with the atomic claims annotators wrote for each; the file is read
where it lies (``--data``, default ``../shared/datasets/factool_qa/knowledge_qa.jsonl`` beside the
repository), never copied. Each response is extracted once (``check-response``'s extractor); the claims
the model wrote are then filtered two ways on the same replies:

- before: a claim is kept when it shares one content word with the text (the filter until issue 30);
- after: ``response_level.extract.grounded`` (every name and number in the text, no first-person opinion).

A written claim matches an annotated one when their content words overlap with an F1 of at least 0.5
(each annotated claim matched once, greedily by best overlap). Precision: matched / written; recall:
matched / annotated.

    python benchmarks/claim_extraction.py --llm llama-cpp:builtin --limit 10
    OPENAI_BASE_URL=http://127.0.0.1:8000/v1 python benchmarks/claim_extraction.py --llm openai:smollm2 --limit 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from factdebate.response_level.extract import _content_words, aextract_claims, grounded
from factdebate.run.build import build_resources
from factdebate.settings.load import load_settings

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "factool_qa" / "knowledge_qa.jsonl"
MATCH_F1 = 0.5


def overlap_f1(a: str, b: str) -> float:
    wa, wb = _content_words(a), _content_words(b)
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


def one_word_rule(claims: list[str], source: str) -> list[str]:
    known = _content_words(source)
    return [c for c in claims if _content_words(c) & known or not _content_words(c)]


def scores(rows: list[dict[str, Any]], key: str) -> dict[str, float]:
    written = sum(len(r[key]) for r in rows)
    annotated = sum(len(r["annotated"]) for r in rows)
    hits = sum(matched(r[key], r["annotated"]) for r in rows)
    precision = hits / written if written else 0.0
    recall = hits / annotated if annotated else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"written": written, "annotated": annotated, "matched": hits, "precision": round(precision, 3),
            "recall": round(recall, 3), "f1": round(f1, 3)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm", default="llama-cpp:builtin")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--out", type=Path, default=None, help="write the per-response rows here (JSON)")
    args = parser.parse_args()
    items = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = items[:args.limit]
    settings = load_settings(overrides={"llm": {"debater": args.llm, "cache": False}})
    resources = build_resources(settings)
    llm = resources.llm("extractor")
    rows = []
    started = time.perf_counter()
    async with resources:
        for item in items:
            extraction = await aextract_claims(item["response"], question=item.get("prompt"), llm=llm)
            written = [*extraction.claims, *extraction.ungrounded]  # every claim the model wrote
            source = " ".join(filter(None, (item["response"], item.get("prompt"))))
            rows.append({"question": item.get("prompt"), "annotated": [c["claim"] for c in item["claims"]],
                         "written": written, "before": one_word_rule(written, source),
                         "after": grounded(written, source)[0], "parsed": extraction.parsed})
            print(f"{len(rows)}/{len(items)}: {len(written)} written, {len(rows[-1]['after'])} kept, "
                  f"{len(rows[-1]['annotated'])} annotated", flush=True)
    result = {"llm": args.llm, "responses": len(rows), "seconds": round(time.perf_counter() - started, 1),
              "unreadable": sum(not r["parsed"] for r in rows),
              **{key: scores(rows, key) for key in ("written", "before", "after")}}
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps({"result": result, "rows": rows}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
