"""What Tool-MAD's label guide (``methods.tool-mad.label_guide``) and number note (``llm.number_notes``) do to
one debater's label on public claims: the round-1 RAG debater's prompt as the method renders it
(methods/toolmad/method.py ``debate_prompt``), one call per claim and condition, temperature 0, no cache.

    .venv/bin/python benchmarks/label_guide.py [--claims 36] [--silent 24] [--from 0] [--seed 0]
        [--index vectors|full-text] [--number-note] [--fever PATH] [--llm SPEC] [--threads 2] [--output DIR] [--record]

Two sets, read at run time from the Tool-MAD authors' FEVER sample (``--fever``, default
../shared/datasets/toolmad_authors/fever.json):
- decidable: the claims whose gold evidence set is all built-in articles (offline_accuracy.py's
  ``fever-builtin``: 25 SUPPORTS, 11 REFUTES), each shown its gold pages' built-in passages;
- silent: the NOT ENOUGH INFO claims (46), each shown the passages the RAG tool returns for the claim over the
  built-in corpus (what the round-1 debater reads when it searches with the claim), gold NOT ENOUGH INFO; on
  the vector index as an eval searches, or with ``--index full-text`` on the full-text index the tool searches
  while the vectors are not built yet.

Each claim is asked with the guide off (the papers' prompts) and on; the number note is on in both (the
offline model's default), and with ``--number-note``, where the note says something for a claim, the claim is
asked once more with the guide on and the note off (elsewhere the prompt is the same, and so is the answer).
The ``subject`` column is the guide only where a document shown names the claim's subject
(methods/kit/subject.py): its answer is the "on" answer there and the "off" answer elsewhere, the same prompts.
The label is read by the method's parser (methods/kit/common.py ``read_answer``) from the first reply, asked
as the method asks it (held to a "Verdict:" line on llama.cpp); a reply it cannot read is counted as
unreadable, never as a label, and not asked again. ``--from K`` starts each set's seeded draw at its K-th
claim, so that a wording chosen on one draw is checked on another. Rows are appended to ``--output``/rows.jsonl
as each claim is done, keyed by the guide's wording too; a second run on the same folder skips what is there.
A decidable claim takes about 2 minutes on the 2-core machine with other work on it, a silent one (three
passages) longer."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from factdebate.core.dataset_types import Sample
from factdebate.core.types import Document, Label
from factdebate.corpus.builtin import load_builtin_corpus
from factdebate.eval.compare.paired import mcnemar_exact
from factdebate.eval.datasets.loader import load_dataset
from factdebate.eval.datasets.registry import select
from factdebate.llm.ask import Unreadable
from factdebate.llm.base import GenParams
from factdebate.llm.llama_threads import ENV as THREADS_ENV
from factdebate.methods.kit.common import read_answer, search_tool, trim
from factdebate.methods.kit.formats import verdict_params
from factdebate.methods.kit.subject import names_subject
from factdebate.methods.kit.turns import ANSWER_TOKENS
from factdebate.methods.resources import Resources
from factdebate.methods.toolmad.method import ToolMAD, debate_prompt
from factdebate.prompts import Prompt, template_dirs
from factdebate.run.build import build_resources
from factdebate.settings.load import settings_from
from factdebate.tools.local_search import LocalSearchTool
from factdebate.tools.registry import agent_description

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_log import ROOT, add_record_flag, record
from benchmarks.stance_pairs import _interval as interval

OFFLINE = "llama-cpp:qwen2.5-coder-1.5b"
FEVER = ROOT.parent / "shared" / "datasets" / "toolmad_authors" / "fever.json"
# (label guide, number note): the papers' prompts with the offline model's note, the offline default, and the
# default without the note (asked only where the note says something).
CONDITIONS = {"off": (False, True), "on": (True, True), "on-no-note": (True, False)}
# The method's default: the guide where a document names the claim's subject (methods/kit/subject.py), else
# the papers' prompt. Its prompt is one of the two asked, so its answer is read from theirs, not asked again.
SUBJECT = "subject"
LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO", "unreadable")


def guide_wording() -> str:
    """The label guide's template text, and a short key for it: rows of another wording are not reused."""
    path = next(d / "label_guide.j2" for d in template_dirs() if (d / "label_guide.j2").is_file())
    return path.read_text(encoding="utf-8").strip()


def wording_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def decidable(samples: list[Sample], k: int) -> list[dict[str, Any]]:
    """The claims whose gold evidence set is all built-in articles (offline_accuracy.py's fever-builtin rule),
    each with those articles' passages (at most ``k``, the debater's document count)."""
    articles = {document.title: document for document in load_builtin_corpus()}
    claims = []
    for sample in samples:
        gold = next((pages for pages in sample.gold_pages if pages and set(pages) <= articles.keys()), None)
        if gold is not None:
            claims.append({"id": sample.id, "claim": sample.claim, "gold": str(sample.gold),
                           "documents": [articles[title] for title in dict.fromkeys(gold)][:k]})
    return claims


async def silent(samples: list[Sample], resources: Resources, k: int, index: str) -> list[dict[str, Any]]:
    """The claims given, each with what the RAG tool finds for the claim over the built-in corpus: on its
    vector index (as an eval searches), or on the full-text index it searches until the vectors are built
    (tools/rag_pending.py: a first ``verify`` after ``factdebate setup``)."""
    tool = resources.tool("rag") if index == "vectors" else LocalSearchTool(corpus=resources.settings.retrieval.corpus)
    return [{"id": sample.id, "claim": sample.claim, "gold": str(sample.gold),
             "documents": await search_tool(tool, sample.claim, k, agent="rag", round=1)} for sample in samples]


def rag_prompt(resources: Resources, claim: str, documents: list[Document], *, guide: bool, note: bool) -> Prompt:
    """The round-1 RAG debater's prompt as Tool-MAD renders it with these settings."""
    return debate_prompt(ToolMAD().cfg(resources.settings), agent_description("rag"), claim, documents,
                         label_guide=guide, number_notes=note)


async def ask_once(resources: Resources, claim: dict[str, Any], documents: list[Document], guide: bool,
                   note: bool) -> tuple[str, str]:
    """One debater call with the method's prompt and parameters; the label its parser reads, or unreadable."""
    prompt = rag_prompt(resources, claim["claim"], documents, guide=guide, note=note)
    llm = resources.debater
    temperature = resources.settings.llm.temperature
    params = verdict_params(temperature, ANSWER_TOKENS) if llm.one_call_verdict else \
        GenParams(temperature=temperature, max_tokens=ANSWER_TOKENS)
    reply = await llm.complete([{"role": "user", "content": prompt.text}], params, agent="rag", round=1,
                               prompt=prompt.name)
    try:
        label = read_answer(prompt)(reply.text)
    except Unreadable:
        label = None
    return ("unreadable" if label is None else str(label)), reply.text


async def measure(sets: dict[str, list[dict[str, Any]]], resources: Resources, path: Path, wording: str,
                  done: dict[tuple[str, str, str], dict[str, Any]], *, note_too: bool) -> None:
    """Asks every claim of ``sets`` not in ``done`` with the guide off and on, and with ``note_too`` without the
    number note where it says something; appends each claim's row to ``path``."""
    max_chars = resources.settings.retrieval.max_doc_chars
    total = sum(len(claims) for claims in sets.values())
    number = 0
    for name, claims in sets.items():
        for claim in claims:
            number += 1
            key = (name, claim["id"], wording)
            if key in done:
                continue
            started = time.monotonic()
            documents = trim(claim["documents"], max_chars)
            answers, replies = {}, {}
            for condition in ("off", "on"):
                answers[condition], replies[condition] = await ask_once(resources, claim, documents,
                                                                        *CONDITIONS[condition])
            # Without the note the prompt differs only where the note says something.
            noted = (rag_prompt(resources, claim["claim"], documents, guide=True, note=True).text
                     != rag_prompt(resources, claim["claim"], documents, guide=True, note=False).text)
            if noted and note_too:
                answers["on-no-note"], replies["on-no-note"] = await ask_once(resources, claim, documents,
                                                                              *CONDITIONS["on-no-note"])
            elif not noted:
                answers["on-no-note"] = answers["on"]
            named = names_subject(claim["claim"], documents)
            answers[SUBJECT] = answers["on" if named else "off"]
            row = {"set": name, "id": claim["id"], "claim": claim["claim"], "gold": claim["gold"],
                   "wording": wording, "noted": noted, "names_subject": named, "answers": answers,
                   "replies": replies,
                   "documents": [d.title for d in documents], "seconds": round(time.monotonic() - started, 1)}
            done[key] = row
            with path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
            print(f"[{number}/{total}] {name:<9} {claim['gold']:<15} off {answers['off']:<15} on {answers['on']:<15}"
                  f"{' no note ' + answers['on-no-note'] if noted and note_too else ''}  {row['seconds']:>5} s  "
                  f"{claim['claim'][:60]}", file=sys.stderr, flush=True)


def table(rows: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """Recall per gold label and condition with Wilson intervals, the confusion matrices, the two numbers the
    guide is decided on, and McNemar's exact test of on against off (and of the note) on the same claims."""
    lines: list[str] = []
    figures: dict[str, Any] = {"claims": len(rows)}
    # The note's condition only where every row has it (asked, or the note silent for the claim).
    conditions = [c for c in (*CONDITIONS, SUBJECT) if all(c in r["answers"] for r in rows)]
    golds = [g for g in LABELS if any(r["gold"] == g for r in rows)]
    lines.append("| gold | n | " + " | ".join(f"recall, guide {c}" for c in conditions) + " |")
    lines.append("|---|---|" + "---|" * len(conditions))
    for gold in golds:
        of = [r for r in rows if r["gold"] == gold]
        cells = []
        for condition in conditions:
            hit = sum(r["answers"][condition] == gold for r in of)
            cells.append(f"{hit}/{len(of)} {interval(hit, len(of))}")
            # a figure's name is one word on the figures page: "NOT ENOUGH INFO" as NOT_ENOUGH_INFO
            figures[f"{gold.replace(' ', '_')}.{condition}.recall"] = f"{hit}/{len(of)}"
        lines.append(f"| {gold} | {len(of)} | " + " | ".join(cells) + " |")
    lines.append("")
    for condition in conditions:
        lines.append(f"confusion, guide {condition} (gold -> answer): " + json.dumps(
            {g: dict(Counter(r["answers"][condition] for r in rows if r["gold"] == g)) for g in golds}))
    refutes = [r for r in rows if r["gold"] == "REFUTES"]
    silent_rows = [r for r in rows if r["gold"] == "NOT ENOUGH INFO"]
    lines.append("")
    for condition in conditions:
        found = sum(r["answers"][condition] == "REFUTES" for r in refutes)
        wrong = sum(r["answers"][condition] == "REFUTES" for r in silent_rows)
        lines.append(f"guide {condition}: refutations found {found}/{len(refutes)}; silent evidence called "
                     f"REFUTES {wrong}/{len(silent_rows)}")
        figures[f"refutations_found.{condition}"] = f"{found}/{len(refutes)}"
        figures[f"silent_called_refutes.{condition}"] = f"{wrong}/{len(silent_rows)}"
    lines.append("")
    pairs = (("on", "off"), ("on", "on-no-note"), (SUBJECT, "on"), (SUBJECT, "off"))
    for a, b in [(a, b) for a, b in pairs if a in conditions and b in conditions]:
        for name, subset in (("all", rows), ("decidable", [r for r in rows if r["set"] == "decidable"]),
                             ("silent", silent_rows)):
            only_a = sum(r["answers"][a] == r["gold"] != r["answers"][b] for r in subset)
            only_b = sum(r["answers"][b] == r["gold"] != r["answers"][a] for r in subset)
            p = mcnemar_exact(only_a, only_b)
            lines.append(f"McNemar {a} vs {b}, {name} ({len(subset)}): only {a} right {only_a}, only {b} right "
                         f"{only_b}, p = {p:.3f}")
            figures[f"mcnemar.{a}_vs_{b}.{name}"] = f"{only_a}:{only_b} p={p:.3f}"
    seconds = sorted(r["seconds"] for r in rows)
    if seconds:
        figures["median_s_per_claim"] = seconds[len(seconds) // 2]
    return "\n".join(lines), figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=36, help="decidable claims (of 36)")
    parser.add_argument("--silent", type=int, default=24, help="silent claims (of 46)")
    parser.add_argument("--from", dest="start", type=int, default=0,
                        help="start each set's draw at this claim (a disjoint draw for a wording chosen on another)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fever", type=Path, default=FEVER, help="the Tool-MAD authors' FEVER sample (JSON)")
    parser.add_argument("--index", choices=("vectors", "full-text"), default="vectors",
                        help="the RAG tool's index the silent claims are searched on")
    parser.add_argument("--number-note", action="store_true",
                        help="also ask, where the number note says something, with the guide on and the note off")
    parser.add_argument("--llm", default=OFFLINE)
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    parser.add_argument("--output", type=Path, default=ROOT / "runs" / "label_guide")
    add_record_flag(parser)
    args = parser.parse_args()
    if not args.fever.is_file():
        raise SystemExit(f"{args.fever}: no such file; --fever names the Tool-MAD authors' FEVER sample")
    os.environ[THREADS_ENV] = str(args.threads)
    load = os.getloadavg()[0]
    args.output.mkdir(parents=True, exist_ok=True)
    path = args.output / "rows.jsonl"
    rows_there = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []
    done = {(r["set"], r["id"], r["wording"]): r for r in rows_there}
    text = guide_wording()
    wording = wording_key(text)
    # With --index vectors, the vector index as an eval searches it (waited for, not the full-text index
    # meanwhile), every run alike.
    os.environ["FACTDEBATE_RETRIEVAL__WHILE_INDEXING"] = "wait"
    resources = build_resources(settings_from({"llm": args.llm, "cache": False}))

    # One seeded order of the whole file; each set is its claims in that order, from --from on.
    order = select(load_dataset(f"fever:{args.fever}").samples, None, args.seed)

    async def run() -> dict[str, list[dict[str, Any]]]:
        try:
            k = resources.settings.retrieval.k
            unknown = [s for s in order if s.gold == Label.NOT_ENOUGH_INFO][args.start:args.start + args.silent]
            sets = {"decidable": decidable(order, k)[args.start:args.start + args.claims]}
            await measure(sets, resources, path, wording, done, note_too=args.number_note)
            # Searched after the decidable set is asked: a first run waits here for the vector index.
            sets["silent"] = await silent(unknown, resources, k, args.index)
            await measure(sets, resources, path, wording, done, note_too=args.number_note)
            return sets
        finally:
            await resources.aclose()

    sets = asyncio.run(run())
    rows = [done[(name, c["id"], wording)] for name, claims in sets.items() for c in claims]
    report, figures = table(rows)
    print(f"{args.llm}, guide wording {wording}: {text}\ndraw: seed {args.seed}, from claim {args.start}: "
          f"{len(sets['decidable'])} decidable, {len(sets['silent'])} silent (searched on the {args.index} "
          f"index)\n\n{report}")
    if args.record:
        record("label_guide", {**figures, "llm": args.llm, "wording": wording, "seed": args.seed,
                               "from": args.start, "index": args.index}, load=load)


if __name__ == "__main__":
    main()
