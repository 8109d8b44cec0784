"""Records what every method answers on five ``countries`` claims with the scripted backend, and what
``eval --limit 5`` writes for Tool-MAD, MERMAID and DPD, as normalised JSON (timings, ids and paths out).

It drives only the command line, so the same script runs against any layout of the package: the files
it wrote before a refactoring must come out unchanged after it (``test_golden.py``).

    FACTDEBATE_DATA_DIR=$(mktemp -d) python tests/golden/record.py OUT_DIR            # full JSON, to diff
    FACTDEBATE_DATA_DIR=$(mktemp -d) python tests/golden/record.py OUT_DIR --expected  # rewrite expected.json

``expected.json`` keeps, per record, the label, who decided, the call count and a digest of the whole
normalised record; ``records.json.gz`` keeps the normalised records themselves (1.5 MB of JSON, 0.1 MB
compressed), so that a failing check prints the fields that changed (``diff``), not only the digests.
``--expected`` rewrites both.

Each of the 16 files (``NAMES``: a method's ``verify`` or ``eval``) is recorded on its own, in a copy of one
data folder where the builtin corpus was indexed once (``indexed_folder``): no file depends on what another
method left in the response cache, and the test runs them side by side.

A record holds what the method decided: labels, deciders, calls, the passages chosen and their order (equal
scores ordered by passage id: corpus/ranking.py). It leaves out what depends on timing rather than logic:
wall times, and the calls of speculative work that was discarded (``speculative_*``: how many had started, or
finished, before the round was known not to be needed depends on scheduling). It leaves out what a numeric
kernel may move while every decision stays: evidence passages' retrieval scores (MiniLM similarities from ONNX
Runtime's int8 kernels and Milvus's SIMD distances, which differ between CPUs and releases; BM25's) and
embedding similarities beyond ``ROUNDED``'s decimals.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

METHODS = ("cot", "dpd", "factool", "halueval-fewshot", "mad", "madke", "mermaid", "react", "selfcheck", "single",
           "tool-mad", "vote", "wecheck")
EVAL_METHODS = ("tool-mad", "mermaid", "dpd")
NAMES = (*(f"verify-{method}" for method in METHODS), *(f"eval-{method}" for method in EVAL_METHODS))
EXPECTED = Path(__file__).with_name("expected.json")
RECORDS = Path(__file__).with_name("records.json.gz")
DOCS = "200"  # builtin articles indexed: enough for the five claims' countries, seconds to build
# Values that change from run to run without the behaviour changing.
VOLATILE = {"seconds", "elapsed", "elapsed_s", "duration", "duration_s", "latency_s", "started", "finished",
            "created", "run_id", "span", "span_id", "parent", "parent_span", "ts", "time", "timestamp",
            "wall_s", "python", "platform", "version", "package_version", "versions", "git", "command",
            "output", "output_dir", "run_dir", "path", "trace", "written"}


# Floats computed from embeddings, kept to this many decimals (any other float: 6). Tool-MAD's answer relevance
# is a MiniLM similarity: on an AVX2 machine and on an AVX-512 one its sixth decimal differs.
ROUNDED = {"answer_relevance": 2}


# Counts of discarded speculative work (usage, usage_by_role, usage_by_model, an eval's cost): timing, not logic.
SCHEDULED = "speculative_"


def normalised(value: Any, key: str = "") -> Any:
    """``value`` without what changes from run to run or from CPU to CPU (``key``: the field it is under)."""
    if isinstance(value, dict):
        return {k: normalised(v, k) for k, v in sorted(value.items())
                if k not in VOLATILE and not k.startswith(SCHEDULED) and not (key == "evidence" and k == "score")}
    if isinstance(value, list):
        return [normalised(v, key) for v in value]
    if isinstance(value, float):
        return round(value, ROUNDED.get(key, 6))
    return value


# How a command line is run: its arguments after ``factdebate`` and the environment it runs in.
Runner = Callable[[list[str], dict[str, str]], None]


def _run(args: list[str], env: dict[str, str]) -> None:
    """The console script in a process of its own (what recording does)."""
    done = subprocess.run([str(Path(sys.executable).with_name("factdebate")), *args], env=env,
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"factdebate {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}")


def _env(data: Path) -> dict[str, str]:
    """The caller's environment without its factdebate settings (a test may set some of its own), so a record
    holds the shipped defaults however it is run."""
    inherited = {name: value for name, value in os.environ.items() if not name.startswith("FACTDEBATE_")}
    return {**inherited, "FACTDEBATE_DATA_DIR": str(data), "FACTDEBATE_LLM": "scripted:agree",
            "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": DOCS, "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}


def indexed_folder(target: Path, onnx_model: Path | None = None) -> None:
    """A data folder with the builtin corpus's ``DOCS`` articles indexed for both engines, where every record
    starts (``onnx_model``: the int8 encoder's file, exported elsewhere). Built under another name, then moved."""
    building = target.with_name(f"{target.name}.{os.getpid()}.building")
    shutil.rmtree(building, ignore_errors=True)
    if onnx_model is not None:
        (building / "models").mkdir(parents=True)
        shutil.copy(onnx_model, building / "models" / onnx_model.name)
    _run(["index", "--builtin"], _env(building))
    os.replace(building, target)


def five_claims() -> list[dict[str, str]]:
    from factdebate.eval.datasets.loader import load_dataset

    samples = load_dataset("countries").samples[:5]
    return [{"id": s.id, "claim": s.claim} for s in samples]


def record_one(name: str, out: Path, indexed: Path, scratch: Path, run: Runner = _run) -> Path:
    """``NAMES``' ``name`` (``verify-<method>`` or ``eval-<method>``) recorded to ``out/<name>.json``, run in
    ``scratch/<name>`` on a copy of the ``indexed`` data folder (``run``: how its command line runs)."""
    kind, method = name.split("-", 1)
    work = scratch / name
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(indexed, work / "data")
    env = _env(work / "data")
    out.mkdir(parents=True, exist_ok=True)
    if kind == "verify":
        claims, results = work / "claims.jsonl", work / "results.jsonl"
        claims.write_text("".join(json.dumps(c) + "\n" for c in five_claims()), encoding="utf-8")
        run(["verify", "--method", method, "--input", str(claims), "--output", str(results),
             "--concurrency", "1"], env)
        rows = [normalised(json.loads(line)) for line in results.read_text(encoding="utf-8").splitlines()]
        data: Any = sorted(rows, key=lambda r: r["id"])
    else:
        run_dir = work / name  # the run is named after its folder (summary.json "name")
        run(["eval", "--dataset", "countries", "--limit", "5", "--method", method, "--output", str(run_dir),
             "--concurrency", "1"], env)
        rows = [normalised(json.loads(line))
                for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]
        summary = normalised(json.loads((run_dir / "summary.json").read_text(encoding="utf-8")))
        data = {"results": sorted(rows, key=lambda r: r["id"]), "summary": summary}
    target = out / f"{name}.json"
    target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


def record(out: Path, scratch: Path) -> None:
    """Every file of ``NAMES``, one after the other, in ``scratch``."""
    indexed = scratch / "indexed"
    if not indexed.exists():
        indexed_folder(indexed)
    for name in NAMES:
        record_one(name, out, indexed, scratch)


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _brief(row: dict[str, Any]) -> dict[str, Any]:
    usage = row.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return {"label": row.get("label"), "decided_by": row.get("decided_by"), "error": row.get("error"),
            "llm_calls": usage.get("llm_calls"), "digest": _digest(row)}


def records(out: Path) -> dict[str, Any]:
    """What records.json.gz holds: per file, per record id, the normalised record (and the eval summary)."""
    found: dict[str, Any] = {}
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = data["results"] if isinstance(data, dict) else data
        entry: dict[str, Any] = {row["id"]: row for row in rows}
        if isinstance(data, dict):
            entry["summary"] = data["summary"]
        found[path.stem] = entry
    return found


def write_records(out: Path, target: Path) -> None:
    text = json.dumps(records(out), indent=0, sort_keys=True, ensure_ascii=False).encode()
    with target.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as file:
        file.write(text)  # mtime 0 and no file name: the same records give the same bytes


def stored_records() -> dict[str, Any]:
    return json.loads(gzip.decompress(RECORDS.read_bytes())) if RECORDS.exists() else {}


def _leaves(value: Any, path: str, out: dict[str, Any]) -> dict[str, Any]:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _leaves(v, f"{path}.{k}" if path else k, out)
    elif isinstance(value, list) and value:
        for i, v in enumerate(value):
            _leaves(v, f"{path}[{i}]", out)
    else:
        out[path] = value
    return out


def _shown(value: Any, width: int = 70) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else f"{text[:width - 12]}…({len(text)} chars)"


def diff(before: Any, after: Any, limit: int = 12) -> list[str]:
    """The fields that differ between two normalised records, one line each (``path: before -> after``), the
    first ``limit`` of them and a count of the rest. A passage list that gained, lost or reordered an item shows
    as each position's change."""
    old, new = _leaves(before, "", {}), _leaves(after, "", {})
    missing = object()
    paths = [p for p in {**old, **new} if old.get(p, missing) != new.get(p, missing)]
    lines = [f"{p or '(record)'}: {_shown(old[p]) if p in old else '(none)'} -> "
             f"{_shown(new[p]) if p in new else '(none)'}" for p in paths[:limit]]
    if len(paths) > limit:
        lines.append(f"… and {len(paths) - limit} more field(s)")
    return lines


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


if __name__ == "__main__":
    if "FACTDEBATE_DATA_DIR" not in os.environ:
        sys.exit("set FACTDEBATE_DATA_DIR to a scratch folder: the record builds its own small index there")
    target = Path(sys.argv[1])
    record(target, Path(os.environ["FACTDEBATE_DATA_DIR"]) / "golden-work")
    if "--expected" in sys.argv[2:]:
        EXPECTED.write_text(json.dumps(summary(target), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        write_records(target, RECORDS)
