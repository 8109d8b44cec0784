"""``--dataset NAME`` for the datasets on the Hub, against a local server that speaks its protocol:
fetched, verified, converted and read with the benchmark's own loader; offline afterwards; one clear line
naming the dataset and ``--dataset FORMAT:PATH`` when the Hub is out of reach or the bytes are wrong."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from factdebate.eval.datasets import FORMATS
from factdebate.eval.datasets.hub_convert import CONVERTERS
from factdebate.eval.datasets.loader import describe, load_dataset
from factdebate.hub import registry
from factdebate.hub.remote import cache_dir
from factdebate.util.errors import InputError
from tests.hub_server import HubServer, go_online, sha256

S, R, N = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"
REAL = registry.datasets()


def parquet(rows: list[dict[str, Any]]) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buffer)
    return buffer.getvalue()


# As the Hub holds FEVER: one row per evidence annotation, so a claim id repeats.
FEVER_ROWS = [
    {"id": 75397, "label": S, "claim": "Nikolaj Coster-Waldau worked with the Fox Broadcasting Company.",
     "evidence_annotation_id": 92206, "evidence_id": 104971, "evidence_wiki_url": "Nikolaj_Coster-Waldau",
     "evidence_sentence_id": 7},
    {"id": 75397, "label": S, "claim": "Nikolaj Coster-Waldau worked with the Fox Broadcasting Company.",
     "evidence_annotation_id": 92206, "evidence_id": 104971, "evidence_wiki_url": "Fox_Broadcasting_Company",
     "evidence_sentence_id": 0},
    {"id": 150448, "label": R, "claim": "Roman Atwood is a content creator.", "evidence_annotation_id": 174271,
     "evidence_id": 187498, "evidence_wiki_url": "Roman_Atwood", "evidence_sentence_id": 1},
    {"id": 214861, "label": N, "claim": "History of art includes architecture.", "evidence_annotation_id": 255136,
     "evidence_id": -1, "evidence_wiki_url": "", "evidence_sentence_id": -1},
]
PUBMEDQA_ROWS = [
    {"pubid": 21645374, "question": "Do mitochondria play a role in remodelling lace plant leaves?",
     "context": {"contexts": ["Programmed cell death is ...", "The following ..."], "labels": ["BACKGROUND", "RESULTS"],
                 "meshes": ["Alismataceae"]}, "long_answer": "Results depicted ...", "final_decision": "yes"},
    {"pubid": 16418930, "question": "Is there a connection between sublingual varices and hypertension?",
     "context": {"contexts": ["Sublingual varices ..."], "labels": ["OBJECTIVE"], "meshes": []},
     "long_answer": "...", "final_decision": "maybe"},
]


def test_the_shipped_registry_names_loaders_and_converters_that_exist() -> None:
    assert {"fever", "averitec", "pubmedqa", "medqa"} <= set(REAL)  # the formats registered on import (loader)
    for entry in REAL.values():
        assert entry.format in FORMATS and (entry.convert is None or entry.convert in CONVERTERS)
        for file in entry.files:
            assert file.sha256 is None or (len(file.sha256) == 64 and int(file.sha256, 16) >= 0)
            assert (file.repo_id, file.revision) == (entry.repo, entry.revision)
    assert REAL["fever"].checksum_source  # a pinned checksum says where it comes from


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    with HubServer() as server:
        fever, pubmedqa = REAL["fever"], REAL["pubmedqa"]
        server.add(fever.repo, {fever.files[0].path: parquet(FEVER_ROWS)}, commit=fever.revision)
        server.add(pubmedqa.repo, {pubmedqa.files[0].path: parquet(PUBMEDQA_ROWS)})
        go_online(monkeypatch, server.url)
        yield server


def test_fever_by_name_is_fetched_converted_and_read_offline_afterwards(
        hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # The shipped entry pins a sha256 of the real file; this fixture stands in for it under its own hash.
    fixture_sha = sha256(hub.repos[("dataset", "fever/fever")].files[REAL["fever"].files[0].path])
    pinned = registry._read()["datasets"]["fever"]
    monkeypatch.setattr(registry, "_read", lambda: {"datasets": {"fever": {**pinned, "sha256": fixture_sha}}})
    dataset = load_dataset("fever")
    assert [(s.id, s.gold) for s in dataset.samples] == [("75397", S), ("150448", R), ("214861", N)]
    assert dataset.spec == "fever" and dataset.kind == "fever"
    assert dataset.origin["repo"] == "fever/fever" and dataset.origin["checked_against"] == "registry"
    assert dataset.origin["files"] == {"v1.0/fever-labelled_dev.parquet": fixture_sha}
    hub.stop()
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    again = load_dataset("fever")
    assert [s.claim for s in again.samples] == [s.claim for s in dataset.samples]
    assert again.origin["checked_against"] == "lock"


def test_pubmedqa_parquet_becomes_the_original_json_keyed_by_pmid(hub: HubServer) -> None:
    dataset = load_dataset("pubmedqa")
    assert [(s.id, s.gold) for s in dataset.samples] == [("21645374", "yes"), ("16418930", "maybe")]
    first = dataset.samples[0]
    assert first.meta["evidence"][1] == {"title": "RESULTS", "text": "The following ..."}
    assert dataset.origin["checked_against"] == "Hub" and dataset.origin["converted"] == "pubmedqa-parquet"


def test_a_checksum_mismatch_names_the_dataset_and_the_way_around_it(hub: HubServer) -> None:
    # The shipped FEVER entry pins the real file's sha256, which the fixture cannot have.
    with pytest.raises(InputError) as err:
        load_dataset("fever")
    message = str(err.value)
    assert message.startswith("dataset 'fever': ") and "do not match the checksum from the registry" in message
    assert message.endswith("--dataset fever:PATH") and "\n" not in message
    assert not [p for p in cache_dir().rglob("*") if p.is_file() and "blobs" in p.parts]  # nothing kept


def test_an_unreachable_hub_names_the_dataset_and_the_way_around_it(monkeypatch: pytest.MonkeyPatch) -> None:
    go_online(monkeypatch, "http://127.0.0.1:9")
    with pytest.raises(InputError, match=r"^dataset 'averitec': .*could not reach the Hub at http://127\.0\.0\.1:9 "
                                         r".*--dataset averitec:PATH$"):
        load_dataset("averitec")


def test_unknown_names_list_what_exists_and_the_listing_says_what_is_cached(hub: HubServer) -> None:
    with pytest.raises(InputError, match=r"fetched from the Hugging Face Hub: averitec, fever, medqa, pubmedqa"):
        load_dataset("fevr")
    rows = dict(describe())
    assert "downloaded on first use" in rows["pubmedqa"]
    load_dataset("pubmedqa")
    rows = dict(describe())
    assert "cached here" in rows["pubmedqa"] and "fever:PATH" in rows and "countries" in rows


def test_update_forgets_the_locked_commit_and_takes_the_registrys_revision_afresh(hub: HubServer) -> None:
    from factdebate.eval.datasets.hub_datasets import fetch

    entry = REAL["pubmedqa"]
    _, first = fetch(entry)
    repo = hub.repos[("dataset", entry.repo)]
    repo.commit = "d" * 40  # upstream moved on: new commit, new bytes
    repo.files[entry.files[0].path] = parquet(PUBMEDQA_ROWS[:1])
    _, pinned = fetch(entry)
    assert (pinned[0].commit, pinned[0].sha256) == (first[0].commit, first[0].sha256)  # still the locked file
    _, updated = fetch(entry, update=True)
    assert updated[0].commit == "d" * 40 and updated[0].sha256 != first[0].sha256
    assert [s.id for s in load_dataset("pubmedqa").samples] == ["21645374"]
