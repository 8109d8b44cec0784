"""``factdebate corpus fetch wikipedia`` then ``factdebate index wikipedia-xx`` as a user runs them: a fresh
data folder, a local server speaking the Hub's protocol with two fixture Parquet shards, then the
single-process index (Milvus Lite, the int8 encoder) and a verify that retrieves from it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus.test_builtin_index import onnx_model  # noqa: F401  (the int8 encoder, exported once)
from tests.corpus.test_fetch import SHARDS
from tests.hub_server import HubServer, subprocess_env

EXE = str(Path(sys.executable).with_name("factdebate"))


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, *args], capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.slow
def test_fetch_wikipedia_then_index_it_by_name(tmp_path: Path, onnx_model: Path) -> None:  # noqa: F811
    data = tmp_path / "data"
    (data / "models").mkdir(parents=True)
    (data / "models" / onnx_model.name).write_bytes(onnx_model.read_bytes())
    with HubServer() as hub:
        hub.add("wikimedia/wikipedia", SHARDS)
        env = subprocess_env(str(data), hub.url)
        fetched = run(env, "corpus", "fetch", "wikipedia", "--lang", "xx", "--date", "20990101")
        assert fetched.returncode == 0, fetched.stderr
        assert "[1/2] fetching 20990101.xx/train-00000-of-00002.parquet" in fetched.stderr
        assert "corpus 'wikipedia-xx': 2 of 2 file(s), 3 rows" in fetched.stderr
        again = run(env, "corpus", "fetch", "wikipedia", "--lang", "xx", "--date", "20990101")
        assert "0 fetched now, 2 already there and verified" in again.stderr
    manifest = json.loads((data / "corpora" / "wikipedia-xx" / "manifest.json").read_text())
    assert manifest["complete"] and manifest["rows"] == 3 and len(manifest["files"]) == 2
    indexed = run(env, "index", "wikipedia-xx")
    assert indexed.returncode == 0, indexed.stderr
    assert "indexed 3 documents as 3 passages into corpus 'wikipedia-xx': 3 new in Milvus, 3 in the full-text " \
           "index" in indexed.stderr
    verdict = run(env, "verify", "Article 3 is the 3th article of this tiny fixture dump.", "--corpus",
                  "wikipedia-xx", "--llm", "scripted:agree", "--no-cache", "--json", "-k", "1")
    assert verdict.returncode == 0, verdict.stderr
    rag, search = json.loads(verdict.stdout)["rounds"][0]["turns"]
    assert rag["evidence"][0]["title"] == "Article 3" == search["evidence"][0]["title"]
    assert rag["evidence"][0]["source"] == "https://xx.wikipedia.org/wiki?curid=3"  # the dump's url column
