"""``factdebate datasets`` and ``--dataset NAME`` as a user runs them: the console script, a fresh data
folder, a local server speaking the Hub's protocol as HF_ENDPOINT; then the same commands with it gone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from factdebate.hub import registry
from tests.hub_server import HubServer, subprocess_env
from tests.readiness import run as run_to_end

EXE = str(Path(sys.executable).with_name("factdebate"))
MEDQA = registry.datasets()["medqa"]
QUESTIONS = [{"question": f"Which drug is first-line for condition {n}?", "answer": "Drug A",
              "options": {"A": "Drug A", "B": "Drug B", "C": "Drug C", "D": "Drug D"}, "meta_info": "step1",
              "answer_idx": "A"} for n in range(3)]


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_to_end([EXE, *args], what=f"factdebate {' '.join(args[:2])}", env=env)  # (no wall-clock limit)


def test_a_dataset_by_name_is_fetched_once_then_used_offline(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    plan = ["eval", "--dataset", "medqa", "--method", "cot", "--output", str(tmp_path / "run"), "--dry-run",
            "--llm", "scripted:agree", "--no-cache"]
    with HubServer() as hub:
        hub.add(MEDQA.repo, {MEDQA.files[0].path: "".join(json.dumps(q) + "\n" for q in QUESTIONS).encode()})
        env = subprocess_env(data, hub.url)
        listed = run(env, "datasets")
        assert listed.returncode == 0 and "downloaded on first use" in listed.stdout
        fetched = run(env, "datasets", "fetch", "medqa")
        assert fetched.returncode == 0, fetched.stderr
        assert f"medqa: {MEDQA.repo}@{hub.repos[('dataset', MEDQA.repo)].commit[:12]}, sha256 " in fetched.stdout
        assert "(Hub)" in fetched.stdout and f"fetching {MEDQA.files[0].path}" in fetched.stderr
    lock = json.loads((tmp_path / "data" / "hub" / "lock.json").read_text())
    assert [entry["checked_against"] for entry in lock["files"].values()] == ["Hub"]
    env = subprocess_env(data, "http://127.0.0.1:9")  # the hub is gone
    offline = run(env, *plan)
    assert offline.returncode == 0, offline.stderr
    assert "loaded 3 sample(s) from medqa" in offline.stderr and "fetching" not in offline.stderr
    assert "cached here" in run(env, "datasets").stdout


def test_an_unreachable_hub_and_a_wrong_checksum_are_one_line_and_exit_2(tmp_path: Path) -> None:
    env = subprocess_env(str(tmp_path / "fresh"), "http://127.0.0.1:9")
    down = run(env, "datasets", "fetch", "averitec")
    assert down.returncode == 2 and "Traceback" not in down.stderr
    line = " ".join(down.stderr.split())  # rich may wrap the one line on a narrow terminal
    assert "dataset 'averitec'" in line and "could not reach the Hub at http://127.0.0.1:9" in line
    assert line.endswith("To use a copy of your own instead: --dataset averitec:PATH")
    fever = registry.datasets()["fever"]
    with HubServer() as hub:  # serves a stand-in for FEVER, which cannot have the pinned sha256
        hub.add(fever.repo, {fever.files[0].path: b"PAR1 not the real FEVER file PAR1"}, commit=fever.revision)
        wrong = run(subprocess_env(str(tmp_path / "fresh"), hub.url), "eval", "--dataset", "fever", "--output",
                    str(tmp_path / "run"), "--dry-run", "--llm", "scripted:agree")
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    line = " ".join(wrong.stderr.split())
    assert "dataset 'fever'" in line and "do not match the checksum from the registry" in line
    assert "--dataset fever:PATH" in line and not (tmp_path / "run").exists()
    assert not [p for p in (tmp_path / "fresh" / "hub").rglob("*") if p.is_file() and "blobs" in p.parts]
