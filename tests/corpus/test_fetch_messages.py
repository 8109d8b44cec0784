"""``index hf:…`` and ``corpus fetch`` on bad input, against a local server that speaks the Hub's protocol: a
file that is not Parquet, ids the Hub would refuse, folders of different datasets that read alike, and a
hand-damaged manifest. Each is one line (exit 2 in the CLI) and leaves nothing half-written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from factdebate.corpus.folders import corpora_dir
from factdebate.corpus.hub_spec import hub_corpus_name
from factdebate.corpus.sources import resolve_source
from factdebate.util.errors import InputError
from tests.cli.test_exits import call
from tests.corpus.test_fetch import SHARDS, article, parquet, wiki
from tests.hub_server import HubServer, go_online


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    with HubServer() as server:
        server.add("wikimedia/wikipedia", SHARDS, in_git={"README.md"})
        good = parquet([article(1)])
        server.add("own/bad", {"data/a.parquet": good, "data/b.parquet": b"PAR1 this is not a parquet file PAR1"})
        server.add("owner/name", {"data/x.parquet": parquet([article(2)]), "y.parquet": parquet([article(3)])})
        server.add("owner/name-data", {"z.parquet": parquet([article(4)])})
        server.add("owner-name/data", {"w.parquet": parquet([article(5)])})
        go_online(monkeypatch, server.url)
        yield server


def test_a_file_that_is_not_parquet_is_deleted_and_said(hub: HubServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, "index", "hf:own/bad/data", "--engines", "local")
    assert code == 2 and "data/b.parquet of own/bad is not a readable Parquet file" in err, err
    assert "it was deleted" in err and "internal error" not in err
    assert len([line for line in err.splitlines() if line.startswith("error:")]) == 1
    folder = corpora_dir() / hub_corpus_name("own/bad", "data")
    assert sorted(p.name for p in folder.iterdir()) == ["a.parquet", "manifest.json"]  # no bad file, no staging
    manifest = json.loads((folder / "manifest.json").read_text())
    assert [f["file"] for f in manifest["files"]] == ["a.parquet"] and manifest["complete"] is False
    downloads = hub.count("GET", "cdn:")
    code, err = call(capsys, "index", "hf:own/bad/data", "--engines", "local")  # the same, at once, once more
    assert code == 2 and "not a readable Parquet file" in err
    assert hub.count("GET", "cdn:") == downloads + 1  # only the bad file again: the good one is verified


@pytest.mark.parametrize(("spec", "expected"), [
    ("hf:../../x", "'..' is not a Hub owner"),
    ("hf:ü/ö", "'ü' is not a Hub owner"),
    ("hf:own/x y", "'x y' is not a Hub name"),
    ("hf:own--er/x", "is not a Hub owner"),
    ("hf:a/b/../../c", "the folder must be a path inside the dataset"),
    ("hf:a/b/./c", "the folder must be a path inside the dataset"),
    ("hf:a/b/c\nd", "the folder must be a path inside the dataset"),
    ("hf:wikipedia", "give a Hub dataset as hf:OWNER/NAME"),
])
def test_a_bad_hub_id_is_refused_before_any_request(spec: str, expected: str, hub: HubServer) -> None:
    with pytest.raises(InputError, match=expected) as caught:
        resolve_source(spec)
    assert "\n" not in str(caught.value)
    assert hub.requests == []


def test_a_bad_hub_id_through_the_cli_is_one_line(hub: HubServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, "index", "hf:ü/ö")
    assert code == 2 and err.count("\n") == 1 and "is not a Hub owner" in err and "internal error" not in err


def test_datasets_that_read_alike_get_folders_of_their_own(hub: HubServer) -> None:
    names = {spec: resolve_source(spec).name for spec in ("hf:owner/name/data", "hf:owner/name-data",
                                                          "hf:owner-name/data", "hf:owner/name")}
    assert len(set(names.values())) == 4, names
    assert all(str(name).startswith("hf-owner-name-data-") for name in list(names.values())[:3])
    for spec, name in names.items():
        source = json.loads((corpora_dir() / str(name) / "manifest.json").read_text())["source"]
        assert f"{source['repo']}/{source['folder']}".rstrip("/") == spec.removeprefix("hf:")


def test_corpus_names_the_folder_and_a_taken_one_is_refused_saying_what_it_holds(hub: HubServer) -> None:
    found = resolve_source("hf:owner/name/data", corpus="mine")
    assert found.name == "mine" and [f.path for f in found.files] == [corpora_dir() / "mine" / "x.parquet"]
    with pytest.raises(InputError, match=r"holds data of owner/name, not the top folder of owner/name: move or "
                                         r"delete that folder first, or name another \(--corpus\)$"):
        resolve_source("hf:owner/name", corpus="mine")


DAMAGED = {
    "a list": ("[]", "a JSON list, not an object"),
    "rows missing": (None, "files.0.rows: Field required"),
    "a file outside": ("outside", "is not a file name inside the corpus folder"),
    "source a string": ("source", "source: Input should be"),
    "truncated": ('{"name": "wikip', "unreadable"),
}


@pytest.mark.parametrize("damage", list(DAMAGED))
def test_a_damaged_manifest_is_one_line(damage: str, hub: HubServer, capsys: pytest.CaptureFixture[str]) -> None:
    wiki(limit=1)
    path: Path = corpora_dir() / "wikipedia-xx" / "manifest.json"
    text, expected = DAMAGED[damage]
    data = json.loads(path.read_text())
    if text is None:
        del data["files"][0]["rows"]
    elif text == "outside":
        data["files"][0]["file"] = "../../elsewhere.parquet"
    elif text == "source":
        data["source"] = "wikimedia/wikipedia"
    path.write_text(json.dumps(data) if text in (None, "outside", "source") else text)
    before = path.read_text()
    code, err = call(capsys, "corpus", "fetch", "wikipedia", "--lang", "xx", "--date", "20990101")
    assert code == 2 and err.count("\n") == 1 and expected in err and "delete it to fetch the corpus again" in err, err
    assert path.read_text() == before  # left as it was, for the user to look at


@pytest.mark.parametrize(("flag", "value"), [("--date", "../../../x"), ("--date", "2023-11-01"),
                                             ("--date", "20231301"), ("--lang", "en/../../x"), ("--lang", "")])
def test_a_bad_dump_date_or_language_is_refused_before_any_request(flag: str, value: str, hub: HubServer,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``--date ../../../x`` went to the Hub's API as ``..%2F``."""
    code, err = call(capsys, "corpus", "fetch", "wikipedia", flag, value)
    assert code == 2 and err.count("\n") == 1 and f"error: {flag}" in err and "internal error" not in err, err
    assert hub.requests == []
