"""The front door: the README's first command on a machine that never saw factdebate.

``make demo`` runs the Makefile's ``demo`` recipe after setup. These tests run that recipe's commands
through the installed console script against an empty data folder, with the scripted model and the builtin
corpus cut to a few articles (``FACTDEBATE_RETRIEVAL__BUILTIN_DOCS``, a documented setting). The
indexes must be built on the way, and the verdict printed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.paths import ROOT

# Installed or not, without importing them: importing torch here would cost every test run (and every
# xdist worker) seconds at collection, while these tests run the models in subprocesses.
if importlib.util.find_spec("sentence_transformers") is None or importlib.util.find_spec("onnxruntime") is None:
    pytest.skip("needs sentence-transformers and onnxruntime (extra 'retrieval')", allow_module_level=True)

ROOT = ROOT
EXE = str(Path(sys.executable).with_name("factdebate"))
DOCS = 10  # enough to build and search; the cost of these from-scratch builds grows with it (~35 ms of CPU an article)


def demo_command() -> tuple[str, str]:
    """The ``demo`` recipe's commands after setup (the verdict, then the vectors for the claims that follow), as
    one command line, and the claim it checks, read from the Makefile."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    claim = re.search(r"^DEMO_CLAIM \?= (.+)$", makefile, re.M)
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert claim and recipe, "the Makefile lost its demo target"
    lines = [line.strip().removeprefix("@") for line in recipe.group(1).splitlines() if "setup.sh" not in line]
    assert "verify" in lines[0] and "index --builtin" in lines[-1], lines
    return " && ".join(lines), claim.group(1).strip()


@pytest.fixture(scope="session")
def onnx_model(onnx_model_file: Path) -> Path:
    """The int8 encoder exported once for the run (tests/conftest.py); each test's data folder gets a copy,
    so only the first test pays for the export."""
    return onnx_model_file


def fresh_env(data: Path, onnx_model: Path | None = None, **extra: str) -> dict[str, str]:
    if onnx_model is not None:
        (data / "models").mkdir(parents=True, exist_ok=True)
        shutil.copy(onnx_model, data / "models" / onnx_model.name)
    return {**os.environ, "FACTDEBATE_DATA_DIR": str(data), "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": str(DOCS),
            "HF_HUB_OFFLINE": "1", **extra}


def markers(data: Path) -> dict[str, dict[str, object]]:
    return json.loads((data / "indexed.json").read_text(encoding="utf-8"))


def test_make_demo_command_indexes_the_builtin_corpus_then_prints_a_verdict(tmp_path: Path) -> None:
    command, claim = demo_command()
    command = command.replace("$(DEMO_CLAIM)", claim).replace(".venv/bin/factdebate", EXE)
    data = tmp_path / "empty-data"
    assert not data.exists()
    # Only the model is swapped: the scripted one, through the documented FACTDEBATE_LLM variable.
    env = fresh_env(data, FACTDEBATE_LLM="scripted:agree")
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, timeout=600,
                            cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "indexing the built-in corpus" in result.stderr
    assert re.search(r"Verdict: (SUPPORTS|REFUTES|NOT ENOUGH INFO)", result.stdout), result.stdout
    # The verdict did not wait for the vectors, and says so; they were built after it.
    assert "the RAG agent's searches went to the full-text (BM25) index" in " ".join(result.stdout.split())
    assert result.stderr.index("in the background") < result.stderr.index("the verdict is above")
    built = markers(data)
    assert built["local:builtin"]["entries"] == DOCS and built["local:builtin"]["limit"] == DOCS
    rag = built["rag:builtin:<data>/milvus.db"]
    assert rag["entries"] == DOCS and rag["encoder"] == "int8"
    assert (data / "tantivy" / "builtin" / "meta.json").is_file()


def test_two_processes_starting_at_once_build_the_index_once(tmp_path: Path, onnx_model: Path) -> None:
    data = tmp_path / "data"
    env = fresh_env(data, onnx_model)
    procs = [subprocess.Popen([EXE, "index", "--builtin"], stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=env) for _ in range(2)]
    outputs = [proc.communicate(timeout=600) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    errs = [err for _, err in outputs]
    assert sum("indexed the built-in corpus:" in err for err in errs) == 1, errs
    assert sum("already indexed" in err for err in errs) == 1, errs
    assert markers(data)["local:builtin"]["entries"] == DOCS


def vectors_written(data: Path) -> bool:
    """Milvus Lite's write-ahead log holds some passages: each batch of embeddings grows it until the build
    ends (then it is folded into the collection's data)."""
    for log in data.glob("milvus.db/collections/*/wal/*"):
        try:
            if log.stat().st_size > 0:
                return True
        except OSError:  # folded away meanwhile: the build is ending
            continue
    return False


def test_a_build_killed_mid_way_is_finished_on_the_next_run(tmp_path: Path, onnx_model: Path) -> None:
    """Two real `index --builtin` processes over 400 documents (7 s alone): a killed build cannot share a
    fixture's index, since what it guards is the half-written state only its own kill leaves."""
    data = tmp_path / "data"
    env = fresh_env(data, onnx_model, FACTDEBATE_RETRIEVAL__BUILTIN_DOCS="400")
    proc = subprocess.Popen([EXE, "index", "--builtin"], stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "embeddings:" in line:
            break
    # kill -9 once the first batch of vectors is written, with six batches to go (a fixed 3 s wait here left
    # about 1 s to spare at load 6, where the embeddings took 3.8-4.1 s: a faster machine would finish first)
    deadline = time.monotonic() + 300
    while not vectors_written(data):
        assert proc.poll() is None, "the build ended before a batch of vectors was seen in Milvus Lite's log"
        assert time.monotonic() < deadline, "no batch of vectors was written in 300 s"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    rag_key = "rag:builtin:<data>/milvus.db"  # the Lite file keyed by its place in the data folder
    assert rag_key not in markers(data), "an interrupted build must not be marked finished"
    done = subprocess.run([EXE, "index", "--builtin"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "indexed the built-in corpus" in done.stderr
    finished = markers(data)[rag_key]
    assert finished["entries"] == finished["chunks"] and int(str(finished["documents"])) == 400
    again = subprocess.run([EXE, "index", "--builtin"], capture_output=True, text=True, env=env, timeout=300)
    assert "already indexed" in again.stderr


@pytest.mark.parametrize(("command", "sent"), [("verify", signal.SIGINT), ("check-response", signal.SIGTERM)])
def test_an_interrupt_stops_a_command_that_is_building_the_index(tmp_path: Path, onnx_model: Path, command: str,
                                                                   sent: signal.Signals) -> None:
    """Ctrl-C (SIGINT) or SIGTERM while `verify` or `check-response` builds the built-in index on a new data
    folder: the build stops at the batch it is in, says "interrupted", exits 130, and a later run finishes it
    (the build ran in a worker thread the interrupt could not reach, to its end)."""
    data = tmp_path / "data"
    env = fresh_env(data, onnx_model, FACTDEBATE_RETRIEVAL__BUILTIN_DOCS="400", FACTDEBATE_LLM="scripted:agree",
                    FACTDEBATE_RETRIEVAL__WHILE_INDEXING="wait")  # the vectors before the claim
    # Ctrl-C's default restored in the command: a test run started in the background (`make test &`, nohup)
    # passes SIGINT on ignored, and the CLI then rightly leaves it ignored (it ran to its end and exited 0).
    proc = subprocess.Popen([EXE, command, "The Eiffel Tower is in Rome."], stderr=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stderr is not None
    for line in proc.stderr:
        if "embeddings:" in line:
            break
    while not vectors_written(data):  # the first batch of vectors is in: six to go
        assert proc.poll() is None, "the build ended before a batch of vectors was seen"
        time.sleep(0.02)
    proc.send_signal(sent)
    _, rest = proc.communicate(timeout=120)
    assert proc.returncode == 130, rest
    assert "interrupted" in rest
    assert "rag:builtin:<data>/milvus.db" not in markers(data), "the build ran to its end after the interrupt"
