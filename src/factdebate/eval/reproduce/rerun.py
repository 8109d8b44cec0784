"""``factdebate reproduce --from RUN_DIR``: run a finished run again from what its folder recorded into a new
folder, and say whether the verdicts match (a reproduction's folder: each run, then the report).

The folder gives the method's settings and the longest claim (recorded_settings.py); flags given with
``--from`` change them, and the comparison lists what they changed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from factdebate.core.deviations import Deviation
from factdebate.core.pathcheck import inside
from factdebate.core.runfiles import read_run_json
from factdebate.eval.datasets import Dataset
from factdebate.eval.datasets.loader import load_dataset
from factdebate.eval.provenance import content_sha256
from factdebate.eval.report.run_folder import read_run
from factdebate.eval.report.summary import RESULTS, RUN, SUMMARY_JSON
from factdebate.eval.reproduce.cells import SAMPLE_SET
from factdebate.eval.reproduce.recorded_settings import split_recorded
from factdebate.eval.runner import Plan, execute, make_plan
from factdebate.run.results_file import latest_records
from factdebate.run.resume import differences
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings, merged, validation_problems
from factdebate.settings.options import Option, all_options
from factdebate.util.errors import ConfigError, InputError
from factdebate.util.scrub import MASK

RERUN_JSON = "rerun.json"
RERUN_MD = "rerun.md"
COMPARED = ("predicted", "label")  # per sample; a response's claims are compared too


def _read(path: Path) -> dict[str, Any]:
    """A run folder's JSON file, read as a regular file inside its folder (core/runfiles.py)."""
    data = _read_if_there(path)
    if data is None:
        raise InputError(f"cannot read {path}: no such file")
    return data


def _read_if_there(path: Path) -> dict[str, Any] | None:
    return read_run_json(path.parent, path.name, what=f"the {path.name} of an eval run")


def _metrics(path: Path) -> dict[str, Any]:
    metrics = _read(path).get("metrics")
    return metrics if isinstance(metrics, dict) else {}


def _results(folder: Path) -> dict[str, dict[str, Any]]:
    return latest_records(folder / RESULTS)  # streamed and bounded line by line (run/results_file.py)


def _masked(value: Any, where: str = "") -> list[str]:
    if isinstance(value, str):
        return [where.rstrip(".")] if MASK in value else []
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _masked(v, f"{where}{k}.")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _masked(v, f"{where}{i}.")]
    return []


def rerun_settings(recorded: dict[str, Any], original: Path, output: Path, options: dict[str, Any],
                   environ: dict[str, str] | None = None) -> tuple[Settings, list[str]]:
    """The recorded method settings, the operator's part from the user's own, the user's flags over both;
    and a line per recorded value not used."""
    flags = Option.overrides(options)
    own = load_settings(None, flags, environ=environ).model_dump(mode="json")
    kept, notes = split_recorded(recorded, own, original, output, flags)
    data = merged(kept, flags)
    hidden = _masked(data)
    if hidden:
        raise InputError(f"{original} recorded these settings masked (they held secrets): {', '.join(hidden)}; "
                         "give them again as flags with --from")
    try:
        return Settings.model_validate(data), notes
    except ValidationError as exc:
        raise ConfigError(f"{original}/{RUN}: its settings no longer validate: {validation_problems(exc)}") from exc


def _dataset(spec: str, data: dict[str, str], labels: list[str], file: str | None) -> Dataset:
    """The recorded dataset: ``--data``, else its spec (or its recorded absolute path, when not found here)."""
    name, sep, path = spec.partition(":")
    source = data.get(name) or data.get(spec) or spec
    if source == spec and sep and not Path(path).expanduser().exists() and file and Path(file).exists():
        source = f"{name}:{file}"
    dataset = load_dataset(source)
    if labels and set(labels) < set(dataset.labels):  # the paper's two-way task on a three-way file
        dataset.labels = tuple(labels)
    return dataset


def rerun_plan(original: Path, output: Path, options: dict[str, Any], data: dict[str, str],
               environ: dict[str, str] | None = None) -> tuple[Plan, list[str]]:
    """The plan of the rerun, and one line per recorded operator setting it does not use."""
    if output.resolve() == original.resolve():
        raise InputError("--output must be a new folder: the rerun is compared with the original, not written over it")
    run = read_run(original)  # a damaged run.json: one line naming the field
    provenance = _provenance(run, "dataset")
    ids = provenance.get("sample_ids")
    summary = _read_if_there(original / SUMMARY_JSON)  # read now: a damaged one fails before the rerun
    if ids is None and summary is not None:
        ids = summary.get("ids")
    latest_records(original / RESULTS)  # likewise: a results.jsonl that is a link out, a FIFO, too large or too deep
    if ids is not None and (not isinstance(ids, list) or not all(isinstance(i, str) for i in ids)):
        raise InputError(f"{original} is damaged: its sample ids are not a list of strings")
    if not ids:
        raise InputError(f"{original} records no sample ids (a run from before provenance was recorded); "
                         "rerun it with `factdebate eval` and the same --seed and --limit")
    settings, notes = rerun_settings(run["settings"], original, output, options, environ)
    recorded = provenance.get("samples_sha256")
    if not recorded and ":" in str(run["dataset"]) and not data:
        # A file the folder names is read only to be checked against the sum the folder recorded for it.
        raise InputError(f"{original} records no checksum of its samples: give the dataset with --data "
                         f"{str(run['dataset']).partition(':')[0]}=FORMAT:PATH")
    dataset = _dataset(run["dataset"], data, list(run.get("labels") or []), provenance.get("file"))
    by_id = {s.id: s for s in dataset.samples}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise InputError(f"{dataset.spec} lacks {len(missing)} sample(s) the run used (e.g. {missing[0]!r}): is it "
                         f"the same dataset? Point to it with --data {run['dataset'].partition(':')[0]}=FORMAT:PATH")
    samples = [by_id[i] for i in ids]
    if recorded and content_sha256(samples) != recorded:
        raise InputError(f"the samples of {dataset.spec} differ from those the run used (their checksum changed): "
                         "the dataset file was changed; point to the original with --data NAME=FORMAT:PATH")
    # The recorded flags are kept for the record, less the operator's (they were not used).
    operator = {name for name, option in all_options().items() if not option.public}
    recorded_options = {k: v for k, v in (run.get("options") or {}).items() if k not in operator}
    plan = make_plan(settings, dataset, output, limit=run.get("limit"), seed=int(run["seed"]), name=run.get("name"),
                     options={**recorded_options, **options}, samples=samples, split=provenance.get("split"),
                     order=run.get("order", "shuffled"))
    # The same samples, so the same departure from the paper's: the run's own, not its method's (cells.py).
    plan.deviations = _sample_set(run.get("deviations"))
    return plan, notes


def _sample_set(recorded: Any) -> list[Deviation]:
    """The recorded ``sample_set`` deviation, if any (a damaged entry is left out: it only restates one)."""
    found = []
    for entry in recorded if isinstance(recorded, list) else []:
        if isinstance(entry, dict) and entry.get("key") == SAMPLE_SET:
            try:
                found.append(Deviation.model_validate(entry))
            except ValidationError:
                continue
    return found


def _verdicts(record: dict[str, Any] | None) -> Any:
    if record is None:
        return None
    claims = [(c.get("index"), c.get("predicted")) for c in record.get("claim_results") or []]
    return ({k: record.get(k) for k in COMPARED}, claims, bool(record.get("error")))


def compare(original: Path, new: Path, ids: list[str]) -> dict[str, Any]:
    """Per sample, whether the rerun's verdict (label, prediction, each claim's prediction) is the original's."""
    before, after = _results(original), _results(new)
    differ = [{"id": i, "before": _verdicts(before.get(i)), "after": _verdicts(after.get(i))}
              for i in ids if _verdicts(before.get(i)) != _verdicts(after.get(i))]
    metrics = {}
    if (original / SUMMARY_JSON).exists() and (new / SUMMARY_JSON).exists():
        old_m, new_m = _metrics(original / SUMMARY_JSON), _metrics(new / SUMMARY_JSON)
        metrics = {k: [old_m.get(k), new_m.get(k)] for k in ("accuracy", "macro_f1")}
    run_before, run_after = _read(original / RUN), _read(new / RUN)
    changed = differences(run_before.get("settings"), run_after.get("settings"))
    data_before, data_after = _provenance(run_before, "dataset"), _provenance(run_after, "dataset")
    return {"from": str(original.resolve()), "samples": len(ids), "matching": len(ids) - len(differ), "differ": differ,
            "metrics": metrics, "settings_changed": changed,
            "dataset_content_same": data_before.get("content_sha256") == data_after.get("content_sha256"),
            "versions_changed": differences(_provenance(run_before, "versions"), _provenance(run_after, "versions"))}


def _provenance(run: dict[str, Any], key: str) -> dict[str, Any]:
    """``run["provenance"][key]``, or nothing where a hand-edited run.json holds another shape."""
    provenance = run.get("provenance")
    value = provenance.get(key) if isinstance(provenance, dict) else None
    return value if isinstance(value, dict) else {}


def comparison_lines(result: dict[str, Any]) -> list[str]:
    differ = result["samples"] - result["matching"]  # the count the word names: matching ones, or differing ones
    lines = [f"- rerun of `{result['from']}`: the verdicts "
             + (f"match for {result['matching']}" if not differ else f"DIFFER for {differ}")
             + f" of {result['samples']} sample(s)"]
    lines += [f"  - {d['id']}: {d['before']} -> {d['after']}" for d in result["differ"][:20]]
    lines += [f"  - {name}: {old} -> {new}" for name, (old, new) in result["metrics"].items()]
    lines += [f"  - setting changed: {c}" for c in result["settings_changed"]]
    lines += [f"  - package version changed: {c}" for c in result["versions_changed"]]
    lines += [f"  - not taken from the folder: {note}" for note in result.get("not_taken", [])]
    if not result["dataset_content_same"]:
        lines.append("  - the dataset's content changed outside the samples used (their checksum held)")
    return lines


def rerun_one(original: Path, output: Path, options: dict[str, Any], data: dict[str, str],
              progress: bool = True, say: Callable[[str], None] = print) -> dict[str, Any]:
    plan, notes = rerun_plan(original, output, options, data)
    for note in notes:  # before any work: the user sees what the folder asked for and was refused
        say(note)
    asyncio.run(execute(plan, progress=progress))
    result = compare(original, output, [s.id for s in plan.samples])
    result["not_taken"] = notes
    (output / RERUN_JSON).write_text(json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8")
    (output / RERUN_MD).write_text("\n".join(comparison_lines(result)) + "\n", encoding="utf-8")
    return result


def rerun_reproduction(original: Path, output: Path, options: dict[str, Any], data: dict[str, str],
                       say: Callable[[str], None] = print, progress: bool = True) -> list[dict[str, Any]]:
    """Every finished run of a reproduce folder again, then its report over the new folder."""
    from factdebate.eval.reproduce.execute import MANIFEST, read_manifest
    from factdebate.eval.reproduce.report import build_report

    manifest = read_manifest(original)
    results = []
    for cell in manifest["cells"]:
        if cell["status"] != "done":
            continue
        # A crafted manifest's folder must not lead the rerun to read or write outside the two folders.
        folder = str(inside(original, str(cell["folder"]), f"{original / MANIFEST}: a run's folder")
                     .relative_to(original))
        inside(output, folder, f"{original / MANIFEST}: a run's folder")
        say(f"{cell['dataset']}/{cell['run']}: rerunning")
        result = rerun_one(original / folder, output / folder, options, data, progress, say)
        cell["errored"] = len(_metrics(output / folder / SUMMARY_JSON).get("errored") or [])
        results.append(result)
    manifest["from"] = str(original.resolve())
    manifest["rerun"] = [line for result in results for line in comparison_lines(result)]
    output.mkdir(parents=True, exist_ok=True)
    (output / MANIFEST).write_text(json.dumps(manifest, indent=1, default=str) + "\n", encoding="utf-8")
    build_report(output, manifest)
    return results
