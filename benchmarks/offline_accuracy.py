"""How accurate the offline model is: Tool-MAD and its baselines on claims whose evidence the built-in corpus
holds, each method on the same draw, with Wilson intervals, macro-F1, paired tests against Tool-MAD, and the
calls and CPU each claim cost; Tool-MAD on SmolLM2-135M beside it on the same draw.

    .venv/bin/python benchmarks/offline_accuracy.py [--claims 4] [--sets countries,fever-builtin,halueval-qa]
        [--methods tool-mad,single,cot] [--fever fever:PATH] [--output DIR] [--record]

The sets:
- ``countries``: the built-in geography claims (true, false and NOT ENOUGH INFO against the built-in summaries);
- ``fever-builtin``: the Tool-MAD authors' 200-claim FEVER sample (``toolmad-fever``, cached by
  ``factdebate datasets fetch toolmad-fever`` while online; or ``--fever fever:PATH``) restricted to the
  claims with a gold evidence set whose pages are all built-in articles (36 of 200: 25 SUPPORTS, 11 REFUTES);
- ``halueval-qa``: HaluEval's QA pairs, each with the knowledge passage it ships, given to the agents as the
  claim's evidence (``--evidence given``).

Every run is ``factdebate eval`` in its own process (``--no-cache``, one claim at a time), so the CPU a method
spent is that process's, model load included; a cut run resumes where it stopped (the eval folders are
resumable). The papers' FEVER figures are printed beside, from their own backbones (GPT-4o-mini and
Llama-3.3-70B): a 1.5B model on 2 cores is a different backbone, and the draw is far smaller.

The defaults are sized for about an hour on an idle 2-core machine (53 minutes measured): a Tool-MAD claim
that goes to the judge makes 31 to 35 calls (about 250 s here), one settled in round 1 10 (about 70 s). The
other baselines (``react``, ``mad``, ``madke``, ``vote``) and MERMAID and DPD run with ``--methods``, and so does
``tool-mad-papers``, Tool-MAD with the papers' prompts (``--no-label-guide``), to see what the label guide
does, and ``tool-mad-paper-scores``, Tool-MAD with the paper's scoring (``--no-offline-scoring``), to see what
the scores tuned to the offline model do; ``vote`` at Tool-MAD's call budget and DPD make tens of calls per
claim each. ``--claims`` scales it, and a larger ``--claims`` on the same ``--output`` reuses the claims
already run (the draw's first claims are the same).

    .venv/bin/python benchmarks/offline_accuracy.py --held-out FILE [--fever fever:PATH]

writes the claims the offline model's relevance threshold is calibrated on (the last of the draw's order on
two sets, so outside every draw of the table) and stops; ``factdebate calibrate relevance --dataset
fever:FILE`` reads them."""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factdebate.corpus.builtin import load_builtin_corpus
from factdebate.eval.compare import compare_runs
from factdebate.eval.datasets.loader import load_dataset
from factdebate.eval.datasets.registry import select
from factdebate.util.errors import InputError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_log import ROOT, add_record_flag, record

OFFLINE = "llama-cpp:qwen2.5-coder-1.5b"
TINY = "llama-cpp:builtin"
SETS = ("countries", "fever-builtin", "halueval-qa")
METHODS = ("tool-mad", "single", "cot")
PAPERS = ROOT / "src" / "factdebate" / "eval" / "reproduce" / "papers.toml"


@dataclass(frozen=True)
class Run:
    """One ``factdebate eval`` of one method on one set with one model; its folder holds the results."""
    dataset: str
    method: str
    model: str
    folder: Path
    extra: tuple[str, ...] = ()
    label: str = ""  # how the table names it (a variant's name); the method's own by default

    @property
    def name(self) -> str:
        shown = self.label or self.method
        return shown if self.model == OFFLINE else f"{shown} ({self.model.split(':')[1]})"


# Methods run with options of their own, named in --methods like a method: Tool-MAD with the papers' prompts
# (no label guide), to measure what the guide does on the same draw; and with the paper's scoring (no scores
# tuned to the offline model), to measure what that tuning does.
VARIANTS = {"tool-mad-papers": ("tool-mad", ("--no-label-guide",)),
            "tool-mad-paper-scores": ("tool-mad", ("--no-offline-scoring",))}
HELD_OUT = 4  # claims per set that calibrate the offline model's relevance threshold: the last of the draw's order


def fever_builtin(source: str, output: Path) -> str:
    """The FEVER claims whose gold evidence the built-in corpus holds, as a ``fever:`` file in ``output``."""
    titles = {document.title for document in load_builtin_corpus()}
    dataset = load_dataset(source)
    kept = [s for s in dataset.samples if any(pages and set(pages) <= titles for pages in s.gold_pages)]
    path = output / "fever-builtin.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for sample in kept:
            out.write(json.dumps({"id": sample.id, "claim": sample.claim, "label": str(sample.gold)}) + "\n")
    return f"fever:{path}"


def write_held_out(fever: str, path: Path, seed: int) -> None:
    """The claims the offline model's relevance threshold is calibrated on (methods/toolmad/offline_scoring.py):
    the last few of the draw's order on the FEVER and geography sets, which a draw reaches only at nearly every
    claim of the FEVER set, as a ``fever:`` file for ``factdebate calibrate relevance --dataset fever:PATH``."""
    rows = []
    for name in ("fever-builtin", "countries"):
        spec, _ = spec_of(name, fever, path.parent)
        rows += [{"id": s.id, "claim": s.claim, "label": str(s.gold)}
                 for s in select(load_dataset(spec).samples, None, seed)[-HELD_OUT:]]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    print(f"{len(rows)} held-out claims in {path}: factdebate calibrate relevance --dataset fever:{path} "
          f"--limit {len(rows)} --concurrency 1", file=sys.stderr)


def spec_of(name: str, fever: str, output: Path) -> tuple[str, tuple[str, ...]]:
    """The dataset spec ``factdebate eval`` reads for one set, and the options that set needs."""
    if name == "fever-builtin":
        return fever_builtin(fever, output), ()
    if name == "halueval-qa":
        return "halueval-qa", ("--evidence", "given")
    return name, ()


def ensure_indexes(started: float) -> None:
    """Builds the built-in corpus's full-text and vector indexes before any method runs (seconds when they are
    built): otherwise the first eval process builds what is missing before its first claim, and the minutes that
    takes (about 6 for the vectors on 2 cores) would count as that method's CPU per claim."""
    print(f"[{time.perf_counter() - started:5.0f} s] the built-in corpus's indexes, built where missing…",
          file=sys.stderr, flush=True)
    # Its progress and any error go to this terminal as they come: a build of several minutes is seen.
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "factdebate"), "index", "--builtin"], stdout=subprocess.DEVNULL,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"building the built-in corpus's indexes failed (exit {done.returncode}; its words above)")


SPENT = "spent.json"  # beside each run's results: the CPU its processes spent and the claims they ran


def run_eval(run: Run, claims: int, seed: int) -> dict[str, Any]:
    """Runs one eval in its own process and adds its CPU (user + system of the process and its children) and
    the claims it ran to the run folder's ``spent.json``, so that a resumed run still counts the CPU of the
    claims an earlier process ran; returns the totals."""
    command = [str(ROOT / ".venv" / "bin" / "factdebate"), "eval", "--method", run.method, "--dataset",
               run.dataset, "--limit", str(claims), "--seed", str(seed), "--output", str(run.folder),
               "--llm", run.model, "--no-cache", "--concurrency", "1", *run.extra]
    results = run.folder / "results.jsonl"
    before_lines = len(results.read_text(encoding="utf-8").splitlines()) if results.exists() else 0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise SystemExit(f"{run.name} on {run.dataset} failed ({done.returncode}):\n{tail}")
    ran = len(results.read_text(encoding="utf-8").splitlines()) - before_lines
    spent_file = run.folder / SPENT
    spent = json.loads(spent_file.read_text(encoding="utf-8")) if spent_file.exists() else {"cpu_s": 0.0, "claims": 0}
    if ran:  # a process with nothing left to run spent only its start
        spent = {"cpu_s": spent["cpu_s"] + (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
                 "claims": spent["claims"] + ran}
        spent_file.write_text(json.dumps(spent) + "\n", encoding="utf-8")
    return spent


def above_chance_p(correct: int, n: int, chance: float) -> float:
    """One-sided exact binomial p of ``correct`` or more right of ``n`` when each is right with ``chance``."""
    return sum(math.comb(n, k) * chance ** k * (1 - chance) ** (n - k) for k in range(correct, n + 1))


def paper_fever() -> dict[str, dict[str, float]]:
    """Tool-MAD's Table III FEVER accuracy (%), by run, for each backbone the paper names."""
    tables = tomllib.loads(PAPERS.read_text(encoding="utf-8"))["toolmad"]["tables"]
    table = next(t for t in tables if t["name"] == "table3")
    return {row["run"]: {p["label"]: p["values"]["fever"] for p in row["paper"].values() if "fever" in p["values"]}
            for row in table["rows"]}


def chance_of(spec: str) -> float:
    """What a constant answer scores on the whole set: the larger of 1/labels and its commonest label's share
    (a draw of a few claims has its own shares, which say little)."""
    dataset = load_dataset(spec)
    counts = Counter(str(sample.gold) for sample in dataset.samples)
    return max(1 / len(dataset.labels), max(counts.values()) / len(dataset.samples))


def row_of(run: Run, spent: dict[str, Any], chance: float) -> dict[str, Any]:
    summary = json.loads((run.folder / "summary.json").read_text(encoding="utf-8"))
    metrics = summary["metrics"]
    n = metrics["n"]
    return {"set": run.dataset, "method": run.method, "model": run.model, "n": n, "correct": metrics["correct"],
            "accuracy": metrics["accuracy"], "accuracy_ci": metrics["ci"]["accuracy"],
            "macro_f1": metrics["macro_f1"], "macro_f1_ci": metrics["ci"]["macro_f1"],
            "unparsed": len(metrics["unparsed"]), "errored": sum(metrics["errored"].values()),
            "chance": chance, "p_above_chance": above_chance_p(metrics["correct"], n, chance),
            "calls_per_claim": metrics["cost"]["llm_calls"]["mean"],
            "wall_s_per_claim": metrics["cost"]["seconds"]["mean"],
            # None where the claims were run by a process that did not count its CPU (before spent.json)
            "cpu_s_per_claim": spent["cpu_s"] / spent["claims"] if spent["claims"] == n else None,
            "decided_by": metrics.get("decided_by", {})}


def fmt_row(row: dict[str, Any]) -> str:
    low, high = row["accuracy_ci"]
    f_low, f_high = row["macro_f1_ci"]
    model = "" if row["model"] == OFFLINE else f" ({row['model'].split(':')[1]})"
    cpu = "—" if row["cpu_s_per_claim"] is None else f"{row['cpu_s_per_claim']:.0f}"
    return (f"| {row['method']}{model} | {row['n']} | {row['accuracy']:.2f} [{low:.2f}, {high:.2f}] | "
            f"{row['macro_f1']:.2f} [{f_low:.2f}, {f_high:.2f}] | {row['chance']:.2f} | {row['p_above_chance']:.3f} | "
            f"{row['unparsed']} | {row['calls_per_claim']:.1f} | {cpu} | "
            f"{row['wall_s_per_claim']:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=4, help="claims per set (the same draw for every method)")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--methods", default=",".join(METHODS),
                        help="offline-model methods; tool-mad also runs on SmolLM2 (--no-tiny: not)")
    parser.add_argument("--no-tiny", action="store_true", help="skip Tool-MAD on SmolLM2-135M")
    parser.add_argument("--fever", default="toolmad-fever",
                        help="the FEVER sample to restrict: toolmad-fever (cached) or fever:PATH")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=ROOT / "runs" / "offline_accuracy")
    parser.add_argument("--held-out", type=Path, metavar="FILE",
                        help="write the claims the offline relevance threshold is calibrated on, and stop")
    add_record_flag(parser)
    args = parser.parse_args()
    if args.held_out:
        args.held_out.parent.mkdir(parents=True, exist_ok=True)
        write_held_out(args.fever, args.held_out, args.seed)
        return
    load = os.getloadavg()[0]
    args.output.mkdir(parents=True, exist_ok=True)
    methods = [m for m in args.methods.split(",") if m]
    rows: list[dict[str, Any]] = []
    pairs: dict[str, list[dict[str, Any]]] = {}
    started = time.perf_counter()
    # Every set's claims are read before any method runs, so a set that cannot be had here (the FEVER sample not
    # cached on a machine without the network) is said at once and left out, not found after an hour of runs.
    sets: list[tuple[str, str, tuple[str, ...], float]] = []
    skipped: dict[str, str] = {}
    for name in [s for s in args.sets.split(",") if s]:
        try:
            spec, extra = spec_of(name, args.fever, args.output)
            sets.append((name, spec, extra, chance_of(spec)))
        except InputError as exc:
            skipped[name] = str(exc)
            if name == "fever-builtin":
                skipped[name] += " (this benchmark's --fever fever:PATH names a copy of the sample)"
            print(f"{name}: left out, its claims cannot be read here: {skipped[name]}", file=sys.stderr, flush=True)
    if not sets:
        raise SystemExit("no set's claims could be read here: nothing to run")
    ensure_indexes(started)
    for name, spec, extra, chance in sets:
        runs = [Run(spec, VARIANTS.get(m, (m, ()))[0], OFFLINE, args.output / name / m,
                    extra + VARIANTS.get(m, (m, ()))[1], label=m) for m in methods]
        if not args.no_tiny and "tool-mad" in methods:
            runs.append(Run(spec, "tool-mad", TINY, args.output / name / "tool-mad-smollm2", extra))
        for run in runs:
            print(f"[{time.perf_counter() - started:5.0f} s] {name}: {run.name} on {args.claims} claims…",
                  file=sys.stderr, flush=True)
            row = row_of(run, run_eval(run, args.claims, args.seed), chance)
            row["set"], row["method"] = name, run.label or run.method
            rows.append(row)
        if len(runs) > 1:
            compare_runs([r.folder for r in runs], args.output / name / "compare")
            compared = json.loads((args.output / name / "compare" / "compare.json").read_text(encoding="utf-8"))
            pairs[name] = [p for p in compared["pairs"] if "tool-mad" in (p["a"], p["b"])]
    print(report(rows, pairs, args.claims, time.perf_counter() - started, skipped))
    (args.output / "rows.json").write_text(json.dumps({"rows": rows, "pairs": pairs}, indent=1) + "\n",
                                           encoding="utf-8")
    if args.record:
        figures: dict[str, float | str] = {"claims_per_set": args.claims,
                                           "wall_minutes": round((time.perf_counter() - started) / 60, 1)}
        for row in rows:
            key = f"{row['set']}.{row['method']}{'' if row['model'] == OFFLINE else '.smollm2'}"
            figures[f"{key}.accuracy"] = round(row["accuracy"], 3)
            figures[f"{key}.macro_f1"] = round(row["macro_f1"], 3)
            if row["cpu_s_per_claim"] is not None:
                figures[f"{key}.cpu_s_per_claim"] = round(row["cpu_s_per_claim"], 1)
        record("offline_accuracy", figures, load=load)


def report(rows: list[dict[str, Any]], pairs: dict[str, list[dict[str, Any]]], claims: int, wall: float,
           skipped: dict[str, str] | None = None) -> str:
    lines = [f"Offline accuracy: {OFFLINE} (SmolLM2 where named), {claims} claims per set, "
             f"{wall / 60:.0f} min in all; chance: the larger of 1/labels and the draw's majority share; "
             "p: one-sided exact binomial against chance; CPU: the eval processes', model load included; wall: "
             "seconds per claim inside the method.", ""]
    header = ("| method | n | accuracy [95% Wilson] | macro-F1 [95% bootstrap] | chance | p above chance | "
              "unparsed | calls/claim | CPU s/claim | wall s/claim |")
    for name in dict.fromkeys(r["set"] for r in rows):
        lines += [f"### {name}", "", header, "|" + "---|" * 10]
        lines += [fmt_row(r) for r in rows if r["set"] == name]
        lines += ["", "Paired with Tool-MAD (McNemar exact p; accuracy difference a - b with its 95% interval):", ""]
        for pair in pairs.get(name, []):
            low, high = pair["ci"]
            lines.append(f"- {pair['a']} vs {pair['b']}: only {pair['a']} right {pair['only_a']}, only {pair['b']} "
                         f"right {pair['only_b']}, difference {pair['difference']:+.2f} [{low:+.2f}, {high:+.2f}], "
                         f"p = {pair['mcnemar_p']:.3f}")
        lines.append("")
    for name, reason in (skipped or {}).items():
        lines += [f"Left out: {name} ({reason})", ""]
    fever = paper_fever()
    lines += ["Tool-MAD paper, Table III, FEVER (200 claims, its backbones, EM %): "
              + "; ".join(f"{run}: " + ", ".join(f"{label} {value:.1f}" for label, value in by.items())
                          for run, by in fever.items())]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
