"""``corpus fetch`` against a local server that speaks the Hub's protocol: the dump's Parquet shards land
verified in <data>/corpora/NAME/ with a manifest, a second run skips what is there and verified, a
changed file is fetched again, JSON-lines corpora arrive as Parquet."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from factdebate.corpus.fetch import fetch_corpus, read_manifest
from factdebate.corpus.folders import corpora_dir
from factdebate.corpus.hub_spec import hub_corpus_name
from factdebate.util.errors import InputError
from tests.hub_server import HubServer, go_online, sha256


def parquet(rows: list[dict[str, Any]]) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buffer)
    return buffer.getvalue()


def article(n: int) -> dict[str, str]:  # wikimedia/wikipedia's columns
    return {"id": str(n), "url": f"https://xx.wikipedia.org/wiki?curid={n}", "title": f"Article {n}",
            "text": f"Article {n} is the {n}th article of this tiny fixture dump."}


SHARDS = {
    "20990101.xx/train-00000-of-00002.parquet": parquet([article(1), article(2)]),
    "20990101.xx/train-00001-of-00002.parquet": parquet([article(3)]),
    "20990101.yy/train-00000-of-00001.parquet": parquet([article(9)]),  # another language: never fetched
    "README.md": b"# wikipedia\n",
}
PUBMED = {f"chunk/pubmed23n000{i}.jsonl": "".join(
    json.dumps({"id": f"PMID:{i}{j}", "title": f"Study {i}{j}", "content": f"Abstract {i}{j}.",
                "contents": f"Study {i}{j}. Abstract {i}{j}."}) + "\n" for j in range(2)).encode() for i in (1, 2)}


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    with HubServer() as server:
        server.add("wikimedia/wikipedia", SHARDS, in_git={"README.md"})
        server.add("MedRAG/pubmed", PUBMED)
        go_online(monkeypatch, server.url)
        yield server


def wiki(limit: int | None = None) -> Any:
    return fetch_corpus("wikipedia", {"lang": "xx", "date": "20990101"}, limit_files=limit)


def test_the_shards_land_verified_with_a_manifest_and_a_second_run_resumes(hub: HubServer) -> None:
    first = wiki(limit=1)
    folder = corpora_dir() / "wikipedia-xx"
    assert (first.name, first.folder, first.fetched, first.files, first.rows, first.available) == (
        "wikipedia-xx", folder, 1, 1, 2, 2)
    manifest = read_manifest(folder)
    assert manifest["complete"] is False and manifest["source"]["repo"] == "wikimedia/wikipedia"
    assert manifest["source"]["commit"] == hub.repos[("dataset", "wikimedia/wikipedia")].commit
    name = "20990101.xx/train-00000-of-00002.parquet"
    assert manifest["files"] == [{"path": name, "file": "train-00000-of-00002.parquet", "source_sha256": sha256(
        SHARDS[name]), "sha256": sha256(SHARDS[name]), "size": len(SHARDS[name]), "rows": 2}]
    downloads = hub.count("GET", "cdn:")
    second = wiki()
    assert (second.fetched, second.skipped, second.files, second.rows) == (1, 1, 2, 3)
    assert hub.count("GET", "cdn:") == downloads + 1  # only the missing shard
    assert read_manifest(folder)["complete"] is True
    assert sorted(p.name for p in folder.iterdir()) == [
        "manifest.json", "train-00000-of-00002.parquet", "train-00001-of-00002.parquet"]  # no staging left
    (folder / "train-00001-of-00002.parquet").write_bytes(b"damaged")
    third = wiki()
    assert (third.fetched, third.skipped) == (1, 1)
    assert pq.read_table(folder / "train-00001-of-00002.parquet").to_pylist() == [article(3)]


def test_a_shard_whose_bytes_differ_from_the_listing_is_refused_and_the_rest_kept(hub: HubServer) -> None:
    hub.corrupt.add("20990101.xx/train-00001-of-00002.parquet")
    with pytest.raises(InputError, match=r"corpus 'wikipedia-xx': .*checksum from the Hub's file listing.*resume"):
        wiki()
    folder = corpora_dir() / "wikipedia-xx"
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.json", "train-00000-of-00002.parquet"]
    hub.corrupt.clear()
    assert wiki().fetched == 1


def test_without_the_hub_a_complete_folder_is_reported_and_an_empty_one_explained(
        hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    wiki()
    hub.stop()
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    offline = wiki()
    assert (offline.files, offline.rows, offline.available) == (2, 3, None)
    with pytest.raises(InputError, match=r"^corpus 'wikipedia-zz': .*could not reach the Hub.*factdebate index PATH$"):
        fetch_corpus("wikipedia", {"lang": "zz"})


def test_wrong_names_dates_and_options_get_one_line(hub: HubServer) -> None:
    with pytest.raises(InputError, match=r"no file matching train-\*\.parquet in 20231101\.xx/"):
        fetch_corpus("wikipedia", {"lang": "xx", "date": None})
    with pytest.raises(InputError, match="unknown corpus 'wikipedia-en'; fetchable: pubmed, wikipedia"):
        fetch_corpus("wikipedia-en", {})
    with pytest.raises(InputError, match="corpus 'pubmed' takes no --lang"):
        fetch_corpus("pubmed", {"lang": "en"})
    wiki(limit=1)
    manifest = corpora_dir() / "wikipedia-xx" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["source"]["folder"] = "20010101.xx"
    manifest.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"holds 20010101\.xx of wikimedia/wikipedia, not 20990101\.xx"):
        wiki()


def test_json_lines_corpora_arrive_as_parquet_with_id_title_text(hub: HubServer) -> None:
    report = fetch_corpus("pubmed", {})
    assert (report.name, report.files, report.rows) == ("pubmed", 2, 4)
    folder = corpora_dir() / "pubmed"
    rows = pq.read_table(folder / "pubmed23n0001.parquet").to_pylist()
    assert rows[0] == {"id": "PMID:10", "title": "Study 10", "text": "Abstract 10.", "source": ""}
    record = read_manifest(folder)["files"][0]
    assert record["source_sha256"] == sha256(PUBMED["chunk/pubmed23n0001.jsonl"]) != record["sha256"]
    assert not list(folder.glob("*.jsonl"))
    assert fetch_corpus("pubmed", {}).skipped == 2


def test_index_reads_a_hub_dataset_by_repo_id_through_the_same_verified_fetch(hub: HubServer) -> None:
    from factdebate.corpus.sources import resolve_source

    found = resolve_source("hf:wikimedia/wikipedia/20990101.xx")
    name = hub_corpus_name("wikimedia/wikipedia", "20990101.xx")
    folder = corpora_dir() / name
    assert name.startswith("hf-wikimedia-wikipedia-20990101-xx-") and found.name == name
    assert [f.path for f in found.files] == [
        folder / "train-00000-of-00002.parquet", folder / "train-00001-of-00002.parquet"]
    assert read_manifest(folder)["complete"] is True
    downloads = hub.count("GET", "cdn:")
    resolve_source("hf:wikimedia/wikipedia/20990101.xx")  # a second time: verified copies, nothing fetched
    assert hub.count("GET", "cdn:") == downloads
    with pytest.raises(InputError, match="no Parquet files in the top folder of wikimedia/wikipedia"):
        resolve_source("hf:wikimedia/wikipedia")
    with pytest.raises(InputError, match="give a Hub dataset as hf:OWNER/NAME"):
        resolve_source("hf:wikipedia")
