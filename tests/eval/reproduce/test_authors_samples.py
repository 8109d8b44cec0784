"""``reproduce toolmad`` on the Tool-MAD authors' own sample sets: each of its four fact
verification columns fetches the authors' file by name from GitHub at the pinned commit, through a local
stand-in for the raw-file host that serves the shared copies where they lie (``../shared/datasets/
toolmad_authors/``); checked against the registry's sha256 (or, for bytes that differ, its records), cached
for offline use, named in the plan, the report and run.json. A file that fails its check is refused; one
that cannot be had gives way to the old draw, declared as a deviation."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from factdebate.eval.datasets.hub_datasets import records_sha256
from factdebate.eval.datasets.loader import describe, load_dataset
from factdebate.hub import github, registry
from factdebate.hub.checksum import sha256_file
from factdebate.hub.errors import ChecksumMismatch, HubUnreachable
from factdebate.util.errors import ConfigError
from tests.cli.test_reproduce import SCRIPTED, call
from tests.github_raw_server import RawServer, point_at
from tests.hub_server import HubServer, go_online, sha256
from tests.paths import ROOT, SHARED

AUTHORS = SHARED / "datasets" / "toolmad_authors"
COLUMNS = ("fever", "feverous", "faviq", "averitec")
pytestmark = pytest.mark.skipif(not AUTHORS.is_dir(), reason="the shared Tool-MAD authors' files are not here")


def entry(column: str) -> registry.HubDataset:
    return registry.datasets()[f"toolmad-{column}"]


def serve_all(server: RawServer) -> dict[str, str]:
    """Every authors' file at its registry path; the raw URL of each, by column."""
    urls = {}
    for column in COLUMNS:
        file = entry(column).raw_file()
        server.serve_file(file.repo, file.commit, file.path, AUTHORS / f"{column}.json")
        urls[column] = server.raw_url(file.repo, file.commit, file.path)
    return urls


@pytest.fixture
def raw(monkeypatch: pytest.MonkeyPatch) -> Iterator[RawServer]:
    with RawServer() as server:
        point_at(monkeypatch, server.url)
        yield server


def test_the_registry_pins_the_authors_files_by_commit_path_and_checksum() -> None:
    paths = {"fever": "FEVER", "feverous": "FEVEROUS", "faviq": "FAVIQ", "averitec": "AVERITEC"}
    for column in COLUMNS:
        found = entry(column)
        file = found.raw_file()
        assert (found.host, file.repo, file.commit) == ("github", "seyeonJeong/ToolMAD",
                                                        "04201d381f984e9a50c8e9bee57be873d522f6e1")
        assert file.path == (f"Main Experiments/{paths[column]}/experiment_dataset/"
                             f"{column}_sample_dataset(main_baseline).json")
        assert file.sha256 == sha256_file(AUTHORS / f"{column}.json")
        assert found.records_sha256 == records_sha256(load_dataset(f"{found.format}:{AUTHORS / column}.json").samples)
        assert file.url() == (f"https://raw.githubusercontent.com/seyeonJeong/ToolMAD/{file.commit}/Main%20"
                              f"Experiments/{paths[column]}/experiment_dataset/{column}_sample_dataset"
                              "%28main_baseline%29.json")


def test_the_docs_declare_the_sizes_and_label_mixes_the_files_hold() -> None:
    """docs/reproduce.md's table of the authors' sample sets, counted against the files."""
    page = (ROOT / "docs" / "reproduce.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `toolmad-(\w+)` \| (\d+) \| ([^|]+) \|", page, flags=re.M)
    assert {column for column, _, _ in rows} == set(COLUMNS)
    for column, size, mix in rows:
        samples = load_dataset(f"{entry(column).format}:{AUTHORS / column}.json").samples
        counted = Counter(s.gold for s in samples)
        declared = {label.strip(): int(n) for label, n in re.findall(r"([A-Z][A-Za-z /]+?) (\d+)", mix)}
        assert int(size) == len(samples) and declared == dict(counted), (column, declared, counted)


def test_limit_5_reads_the_four_authors_files_through_the_fetch_path(
        raw: RawServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    serve_all(raw)
    out = tmp_path / "out"
    plan = ["reproduce", "toolmad", "--table", "table3", "--rows", "tool-mad", "--limit", "5", "--dry-run",
            "-o", str(out), *SCRIPTED]
    # A dry run downloads nothing: each column says its file is not here and how to fetch it.
    code, printed, err = call(capsys, *plan)
    assert code == 0, err
    assert raw.requests == [] and "0 run(s) ready, 4 skipped" in printed
    for column in COLUMNS:
        assert (f"not downloaded (reproduce --dry-run downloads nothing); it would come from "
                f"{entry(column).raw_file().url()}; `factdebate datasets fetch toolmad-{column}` fetches it") in printed
    code, _, err = call(capsys, "datasets", "fetch", *(f"toolmad-{column}" for column in COLUMNS))
    assert code == 0, err
    code, printed, err = call(capsys, *plan)
    assert code == 0, err
    assert "4 run(s) ready, 0 skipped" in printed
    for column in COLUMNS:
        github_url = f"https://github.com/seyeonJeong/ToolMAD/blob/{entry(column).revision}/"
        assert f"available: toolmad-{column} (200 samples) from {github_url}" in printed
        assert f"{column}/tool-mad: tool-mad on toolmad-{column}: 5 of 5 sample(s) left" in printed
    assert "paper: 200, the authors' own sample set" in printed
    files = [entry(column).raw_file() for column in COLUMNS]
    assert sorted(raw.requests) == sorted(f"{f.repo}/{f.commit}/{f.path}" for f in files)  # once each
    assert not out.exists()  # a dry run writes nothing

    # A real run (the backbone alone, scripted) on the first claim of each file, named in run.json and the
    # report. Offline now: the verified copies serve without a request. The raw host's variable now names
    # another mirror: run.json's fetched_from is where the bytes came from, not rebuilt from today's value.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("FACTDEBATE_GITHUB_RAW", "http://mirror.invalid")
    asked = len(raw.requests)
    code, _, err = call(capsys, "reproduce", "toolmad", "--table", "table3", "--rows", "single", "--limit", "1",
                        "-o", str(out), *SCRIPTED)
    assert code == 0, err
    assert len(raw.requests) == asked
    report = (out / "report.md").read_text()
    for column in COLUMNS:
        run = json.loads((out / column / "single" / "run.json").read_text())
        origin = run["provenance"]["dataset"]["origin"]
        file = entry(column).raw_file()
        assert run["dataset"] == f"toolmad-{column}" and run["order"] == "file"
        assert (origin["source"], origin["repo"], origin["commit"], origin["path"]) == (
            "github", "seyeonJeong/ToolMAD", file.commit, file.path)
        assert origin["sha256"] == file.sha256 and origin["checked_against"] == "registry"
        assert origin["fetched_from"] == raw.raw_url(file.repo, file.commit, file.path)
        first = [s.id for s in load_dataset(f"{entry(column).format}:{AUTHORS / column}.json").samples[:1]]
        assert run["provenance"]["dataset"]["sample_ids"] == first
        assert "sample_set" not in [d["key"] for d in run["deviations"]]
        assert f"the authors' own sample set, every record in the file's order: {origin['url']}" in report
    manifest = json.loads((out / "reproduce.json").read_text())
    assert {c["origin"]["sha256"] for c in manifest["cells"]} == {entry(c).raw_file().sha256 for c in COLUMNS}


def test_an_averitec_sample_keeps_its_four_labels(raw: RawServer) -> None:
    serve_all(raw)
    dataset = load_dataset("toolmad-averitec")
    assert Counter(s.gold for s in dataset.samples)["CONFLICTING EVIDENCE/CHERRYPICKING"] == 12
    assert len(dataset.labels) == 4


def test_a_checksum_mismatch_is_refused_and_the_cell_skipped(
        raw: RawServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    serve_all(raw)
    file = entry("fever").raw_file()
    raw.corrupt.add(f"{file.repo}/{file.commit}/{file.path}")
    _, printed, err = call(capsys, "reproduce", "toolmad", "--table", "table3", "--rows", "tool-mad",
                           "--datasets", "fever", "--limit", "5", "-o", str(tmp_path / "out"), *SCRIPTED)
    shown = printed + err
    assert "fever/tool-mad" in shown and "the authors' sample set was refused" in shown, shown
    assert "do not match the checksum from the registry" in shown
    assert not file.cache_path().exists()  # nothing kept
    with pytest.raises(ChecksumMismatch, match=r"^dataset 'toolmad-fever': .*--dataset fever:PATH$"):
        load_dataset("toolmad-fever")


def test_other_bytes_with_the_same_records_are_accepted_and_other_records_refused(
        raw: RawServer, tmp_path: Path) -> None:
    """The registry's sha256 is of a copy made from a text view of the file: the original may differ in
    whitespace; its records (every field the loader reads) may not."""
    file = entry("fever").raw_file()
    records = json.loads((AUTHORS / "fever.json").read_text(encoding="utf-8"))
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps(records), encoding="utf-8")  # other bytes, the same records
    raw.serve_file(file.repo, file.commit, file.path, compact)
    dataset = load_dataset("toolmad-fever")
    assert dataset.origin["checked_against"] == "registry's records (every field the loader reads)"
    assert dataset.origin["sha256"] == sha256(compact.read_bytes()) != file.sha256
    assert load_dataset("toolmad-fever").origin["checked_against"] == "lock"  # from disk, against the lock

    relabelled = tmp_path / "relabelled.json"
    records[0]["label"] = "REFUTES" if records[0]["label"] != "REFUTES" else "SUPPORTS"
    relabelled.write_text(json.dumps(records), encoding="utf-8")
    other = github.RawFile(file.repo, "f" * 40, file.path, file.sha256)
    raw.serve_file(other.repo, other.commit, other.path, relabelled)
    with pytest.raises(ChecksumMismatch):
        github.obtain(other, accept=lambda path: None)
    assert not other.cache_path().exists()


def test_offline_without_a_copy_makes_no_request(raw: RawServer, monkeypatch: pytest.MonkeyPatch) -> None:
    serve_all(raw)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubUnreachable, match=r"offline mode is on \(HF_HUB_OFFLINE\)"):
        github.obtain(entry("faviq").raw_file())
    assert raw.requests == []
    assert "downloaded on first use" in dict(describe())["toolmad-faviq"]


def test_without_the_authors_file_the_old_draw_runs_declared(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The raw host out of reach: FEVER's paper draw from the Hub's dev set runs (here a local Hub serving
    three claims), and run.json, the summary and the report declare that it is not the authors' sample."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"id": i, "label": label, "claim": f"Claim number {i} of the stand-in dev set.",
             "evidence_annotation_id": i, "evidence_id": -1, "evidence_wiki_url": "", "evidence_sentence_id": -1}
            for i, label in enumerate(["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"])]
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buffer)
    fever = registry.datasets()["fever"]
    real = registry._read()
    pinned = {**real, "datasets": {**real["datasets"], "fever": {**real["datasets"]["fever"],
                                                                "sha256": sha256(buffer.getvalue())}}}
    monkeypatch.setattr(registry, "_read", lambda: pinned)
    with HubServer() as hub:
        hub.add(fever.repo, {fever.files[0].path: buffer.getvalue()}, commit=fever.revision)
        go_online(monkeypatch, hub.url)
        point_at(monkeypatch, "http://127.0.0.1:9")  # nothing listens there
        out = tmp_path / "out"
        code, _, err = call(capsys, "reproduce", "toolmad", "--table", "table3", "--rows", "single",
                            "--datasets", "fever", "--limit", "2", "-o", str(out), *SCRIPTED)
    assert code == 0, err
    run = json.loads((out / "fever" / "single" / "run.json").read_text())
    assert run["dataset"] == "fever" and run["order"] == "shuffled"
    declared = [d for d in run["deviations"] if d["key"] == "sample_set"]
    assert len(declared) == 1 and "could not reach http://127.0.0.1:9" in declared[0]["here"]
    assert "Main Experiments/FEVER/experiment_dataset" in declared[0]["paper"]
    assert declared[0]["restore"].startswith("factdebate datasets fetch toolmad-fever")
    assert "a random draw of 200 claims from 'fever'" in (out / "fever" / "single" / "summary.md").read_text()
    assert "differs from the paper: a random draw of 200 claims from 'fever'" in (out / "report.md").read_text()
    # A rerun of it runs the same draw, so it declares the same departure.
    code, _, err = call(capsys, "reproduce", "--from", str(out), "-o", str(tmp_path / "again"))
    assert code == 0, err
    again = json.loads((tmp_path / "again" / "fever" / "single" / "run.json").read_text())
    assert [d for d in again["deviations"] if d["key"] == "sample_set"] == declared


def test_data_still_replaces_the_authors_file(raw: RawServer, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    serve_all(raw)
    mine = AUTHORS / "faviq.json"
    code, printed, err = call(capsys, "reproduce", "toolmad", "--table", "table3", "--rows", "tool-mad",
                              "--datasets", "faviq", "--limit", "5", "--dry-run", "--data", f"faviq=faviq:{mine}",
                              "-o", str(tmp_path / "out"), *SCRIPTED)
    assert code == 0, err
    assert f"available: faviq:{mine} (200 samples)" in printed and raw.requests == []


def test_an_unknown_authors_name_in_papers_toml_is_an_error() -> None:
    from factdebate.eval.reproduce import spec

    paper = spec.papers()["toolmad"]
    broken = paper.model_copy(update={"datasets": {**paper.datasets, "fever": paper.datasets["fever"].model_copy(
        update={"authors": "toolmad-fevr"})}})
    with pytest.raises(ConfigError, match=r"dataset fever: authors' sample 'toolmad-fevr' is not in the dataset "
                                         r"registry"):
        spec._check(broken)
