"""An index build on Ray (scale/index_ray.py) into a real Milvus server: every passage once from two
workers, a build stopped after two shards and run again ends with every passage and no duplicate, Milvus
Lite is refused; and a batch of claims on the same Ray workers searches what the build wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from factdebate.corpus.chunking import chunk_document
from factdebate.corpus.index_log import index_log_path
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.loading import load_documents
from factdebate.corpus.milvus import MilvusStore, get_client
from factdebate.corpus.sources import resolve_source
from factdebate.scale.index_ray import index_on_ray
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings
from tests.cli.test_exits import call
from tests.scale.support import hashing_embedder, records

pytestmark = pytest.mark.usefixtures("ray_instance")

WORDS = ["river", "mountain", "castle", "harbour", "forest", "desert", "island", "bridge", "valley", "glacier"]


@pytest.fixture(scope="module")
def corpus_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """25 JSONL documents (some long enough for several passages) and 15 Parquet rows without ids."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path_factory.mktemp("source")
    rows = [{"id": f"j{n}", "title": f"Place {n}", "text": " ".join(
        f"The {WORDS[(n + i) % 10]} number {i} of place {n} is old." for i in range(3 + 9 * (n % 4)))}
            for n in range(25)]
    (folder / "a.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    table = pa.table({"title": [f"Row {n}" for n in range(15)],
                      "text": [f"Row {n} tells of the {WORDS[n % 10]} near town {n}."
                               + (" A zeppelin." if n == 9 else "") for n in range(15)]})
    pq.write_table(table, folder / "b.parquet", row_group_size=4)
    (folder / "manifest.json").write_text('{"not": "documents"}', encoding="utf-8")
    return folder


@pytest.fixture
def shared_data(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's data folder, which the Ray workers get too (the pool passes FACTDEBATE_DATA_DIR on)."""
    folder = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(folder))
    return folder


def settings_for(**scale: Any) -> Settings:
    return load_settings(overrides={"scale": {"executor": "ray", "workers": 2, **scale}}, environ={})


def expected_ids(folder: Path) -> set[str]:
    """The passage ids a one-process build makes of the same files."""
    return {chunk.id for file in resolve_source(folder).files for doc in load_documents(file.path, file.format)
            for chunk in chunk_document(doc)}


def stored_ids(uri: str, corpus: str) -> list[str]:
    store = MilvusStore(corpus, uri, hashing_embedder())
    rows = get_client(uri).query(store.collection, filter='id != ""', output_fields=["id"], limit=16384,
                                 consistency_level="Strong")
    return [row["id"] for row in rows]


def test_two_workers_write_every_passage_once(milvus_server_uri: str, corpus_folder: Path, shared_data: Path) -> None:
    expected = expected_ids(corpus_folder)
    stats = index_on_ray(resolve_source(corpus_folder), "ray-all", settings_for(shard_docs=6, lexical_parts=2),
                         milvus_uri=milvus_server_uri, progress=False, make_embedder=hashing_embedder)
    assert (stats.shards, stats.documents, stats.passages) == (5 + 3, 40, len(expected))
    assert len(expected) > 40  # the long documents became several passages
    ids = stored_ids(milvus_server_uri, "ray-all")
    assert sorted(ids) == sorted(expected)  # every passage, once
    assert MilvusStore("ray-all", milvus_server_uri, hashing_embedder()).count() == len(expected)
    lexical = LexicalIndex("ray-all")
    parts = lexical.parts()
    assert parts is not None and len(parts) == 2 and all(part.count() > 0 for part in parts)
    assert lexical.count() == len(expected)
    assert [hit.title for hit in lexical.search_sync("zeppelin", 3)] == ["Row 9"]  # found in whichever part


def test_a_stopped_build_run_again_ends_with_every_passage_and_no_duplicate(
        milvus_server_uri: str, corpus_folder: Path, shared_data: Path) -> None:
    expected = expected_ids(corpus_folder)
    settings = settings_for(shard_docs=3)
    finished: list[str] = []

    def stop_after_two(row: dict[str, Any]) -> None:
        finished.append(row["shard"])
        if len(finished) == 2:
            raise KeyboardInterrupt  # as Ctrl-C on the driver would

    with pytest.raises(KeyboardInterrupt):
        index_on_ray(resolve_source(corpus_folder), "ray-resume", settings, milvus_uri=milvus_server_uri,
                     progress=False, make_embedder=hashing_embedder, on_shard=stop_after_two)
    recorded = index_log_path("ray-resume", milvus_server_uri).read_text().splitlines()
    assert len(recorded) == 1 + 2  # the build's description and the two shards

    again = index_on_ray(resolve_source(corpus_folder), "ray-resume", settings, milvus_uri=milvus_server_uri,
                         progress=False, make_embedder=hashing_embedder)
    assert (again.shards, again.shards_skipped) == (9 + 5, 2)
    assert again.passages == len(expected)
    ids = stored_ids(milvus_server_uri, "ray-resume")
    assert len(ids) == len(set(ids)) and set(ids) == expected
    assert MilvusStore("ray-resume", milvus_server_uri, hashing_embedder()).count() == len(expected)
    assert LexicalIndex("ray-resume").count() == len(expected)


def test_milvus_lite_is_refused_in_one_line(corpus_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, "index", str(corpus_folder), "--executor", "ray")
    assert code == 2 and "--milvus-uri" in err and "Milvus Lite serves one" in err
    assert len(err.strip().splitlines()) == 1


def test_a_batch_on_ray_workers_searches_what_an_index_build_on_ray_wrote(
        milvus_server_uri: str, shared_data: Path, onnx_model_file: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    (shared_data / "models").mkdir()
    shutil.copy(onnx_model_file, shared_data / "models")  # the real int8 encoder, on the workers too
    docs = tmp_path / "tiny.jsonl"
    docs.write_text("".join(json.dumps(d) + "\n" for d in [
        {"id": "eiffel", "title": "Eiffel Tower", "text": "The Eiffel Tower is a wrought-iron lattice tower in Paris."},
        {"id": "fuji", "title": "Mount Fuji", "text": "Mount Fuji is the highest mountain in Japan."},
        {"id": "nile", "title": "Nile", "text": "The Nile is a major river flowing north through Egypt."}]))
    code, err = call(capsys, "index", str(docs), "--corpus", "tiny-ray", "--executor", "ray", "--workers", "2",
                     "--milvus-uri", milvus_server_uri)
    assert code == 0 and "indexed 3 documents as 3 passages into corpus 'tiny-ray' on 2 Ray workers" in err, err
    claims = tmp_path / "claims.jsonl"
    claims.write_text("".join(json.dumps(c) + "\n" for c in [
        {"id": "a", "claim": "The Eiffel Tower stands in Paris."}, {"id": "b", "claim": "Mount Fuji is in Japan."},
        {"id": "c", "claim": "The Nile flows through Egypt."}]))
    out = tmp_path / "results.jsonl"
    code, err = call(capsys, "verify", "-i", str(claims), "-o", str(out), "--executor", "ray", "--workers", "2",
                     "--milvus-uri", milvus_server_uri, "--corpus", "tiny-ray", "--llm", "scripted:agree",
                     "--no-cache", "--no-scoring", "-k", "1")
    assert code == 0, err
    found = {r["id"]: [t["evidence"][0]["title"] for t in r["rounds"][0]["turns"]] for r in records(out)}
    # both agents' first passage, dense (the server) and BM25 (the parts the build's writers made)
    assert found == {"a": ["Eiffel Tower"] * 2, "b": ["Mount Fuji"] * 2, "c": ["Nile"] * 2}
