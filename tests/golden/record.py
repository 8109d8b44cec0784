"""Records what every method answers on five ``countries`` claims with the scripted backend, and what
``eval --limit 5`` writes for Tool-MAD, MERMAID and DPD, as normalised JSON (timings, ids and paths out).

It drives only the command line, so the same script runs against any layout of the package: the files
it wrote before a refactoring must come out unchanged after it (``test_golden.py``).

    FACTDEBATE_DATA_DIR=$(mktemp -d) python tests/golden/record.py OUT_DIR            # full JSON, to diff
    FACTDEBATE_DATA_DIR=$(mktemp -d) python tests/golden/record.py OUT_DIR --expected  # rewrite expected.json

``expected.json`` keeps, per record, the label, who decided, the call count and a digest of the whole
normalised record (the full files are 1.5 MB): record the full JSON before and after a change to see a diff.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

METHODS = ("cot", "dpd", "factool", "halueval-fewshot", "mad", "madke", "mermaid", "react", "selfcheck", "single",
           "tool-mad", "vote", "wecheck")
EVAL_METHODS = ("tool-mad", "mermaid", "dpd")
DOCS = "200"  # builtin articles indexed: enough for the five claims' countries, seconds to build
# Values that change from run to run without the behaviour changing.
VOLATILE = {"seconds", "elapsed", "elapsed_s", "duration", "duration_s", "latency_s", "started", "finished",
            "created", "run_id", "span", "span_id", "parent", "parent_span", "ts", "time", "timestamp",
            "wall_s", "python", "platform", "version", "package_version", "versions", "git", "command",
            "output", "output_dir", "run_dir", "path", "trace", "written"}


def normalised(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in sorted(value.items()) if k not in VOLATILE}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    if isinstance(value, float):
        return round(value, 6)
    return value


def _run(args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run([str(Path(sys.executable).with_name("factdebate")), *args], env=env,
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"factdebate {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}")


def five_claims() -> list[dict[str, str]]:
    from factdebate.eval.datasets import load_dataset

    samples = load_dataset("countries").samples[:5]
    return [{"id": s.id, "claim": s.claim} for s in samples]


def record(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "FACTDEBATE_LLM": "scripted:agree", "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": DOCS,
           "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}
    work = Path(env["FACTDEBATE_DATA_DIR"]) / "golden-work"
    work.mkdir(parents=True, exist_ok=True)
    claims = work / "claims.jsonl"
    claims.write_text("".join(json.dumps(c) + "\n" for c in five_claims()), encoding="utf-8")
    for method in METHODS:
        results = work / f"{method}.jsonl"
        results.unlink(missing_ok=True)
        _run(["verify", "--method", method, "--input", str(claims), "--output", str(results),
              "--concurrency", "1"], env)
        rows = [normalised(json.loads(line)) for line in results.read_text(encoding="utf-8").splitlines()]
        (out / f"verify-{method}.json").write_text(json.dumps(sorted(rows, key=lambda r: r["id"]), indent=1,
                                                              ensure_ascii=False) + "\n", encoding="utf-8")
    for method in EVAL_METHODS:
        run_dir = work / f"eval-{method}"
        _run(["eval", "--dataset", "countries", "--limit", "5", "--method", method, "--output", str(run_dir),
              "--concurrency", "1"], env)
        rows = [normalised(json.loads(line))
                for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]
        summary = normalised(json.loads((run_dir / "summary.json").read_text(encoding="utf-8")))
        (out / f"eval-{method}.json").write_text(
            json.dumps({"results": sorted(rows, key=lambda r: r["id"]), "summary": summary}, indent=1,
                       ensure_ascii=False) + "\n", encoding="utf-8")


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _brief(row: dict[str, Any]) -> dict[str, Any]:
    usage = row.get("usage") if isinstance(row.get("usage"), dict) else {}
    return {"label": row.get("label"), "decided_by": row.get("decided_by"), "error": row.get("error"),
            "llm_calls": usage.get("llm_calls"), "digest": _digest(row)}


def summary(out: Path) -> dict[str, Any]:
    """What expected.json holds: per file, per record id, a brief and a digest (and the eval summary's)."""
    found: dict[str, Any] = {}
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = data["results"] if isinstance(data, dict) else data
        entry: dict[str, Any] = {row["id"]: _brief(row) for row in rows}
        if isinstance(data, dict):
            entry["summary"] = _digest(data["summary"])
        found[path.stem] = entry
    return found


EXPECTED = Path(__file__).with_name("expected.json")

if __name__ == "__main__":
    if "FACTDEBATE_DATA_DIR" not in os.environ:
        sys.exit("set FACTDEBATE_DATA_DIR to a scratch folder: the record builds its own small index there")
    target = Path(sys.argv[1])
    record(target)
    if "--expected" in sys.argv[2:]:
        EXPECTED.write_text(json.dumps(summary(target), indent=1, sort_keys=True) + "\n", encoding="utf-8")
