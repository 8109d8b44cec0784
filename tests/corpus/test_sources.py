"""What ``factdebate index SOURCE`` reads: a file, a folder, or a corpus fetched into the data folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.core.errors import InputError
from factdebate.corpus.sources import corpora_dir, fetched_corpora, load_sources, resolve_source


def docs(path: Path, *ids: str) -> Path:
    path.write_text("".join(json.dumps({"id": i, "title": i, "text": f"text {i}"}) + "\n" for i in ids))
    return path


def test_a_file_a_folder_and_a_fetched_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = docs(tmp_path / "one.jsonl", "a")
    assert resolve_source(str(one)) == ([one], None)
    folder = tmp_path / "many"
    folder.mkdir()
    files = [docs(folder / "b.jsonl", "b"), docs(folder / "c.jsonl", "c")]
    (folder / "notes.txt").write_text("not a document file")
    (folder / "manifest.json").write_text("{}")
    assert resolve_source(folder) == (files, None)
    assert [d.id for d in load_sources(files)] == ["b", "c"]
    fetched = corpora_dir() / "wiki-xx"
    fetched.mkdir(parents=True)
    (fetched / "manifest.json").write_text("{}")
    shard = docs(fetched / "train-0.jsonl", "d")
    monkeypatch.chdir(tmp_path)
    assert resolve_source("wiki-xx") == ([shard], "wiki-xx") and fetched_corpora() == ["wiki-xx"]
    (tmp_path / "wiki-xx").mkdir()  # a folder of that name where the command runs wins
    with pytest.raises(InputError, match="wiki-xx: no JSONL, JSON, CSV or Parquet files in this folder"):
        resolve_source("wiki-xx")


def test_an_unknown_source_says_what_was_fetched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match=r"wikipedia-en: no such file or folder, nor a fetched corpus \(fetched: "
                                         r"none yet; e.g. `factdebate corpus fetch wikipedia --lang en`\)"):
        resolve_source("wikipedia-en")
    (corpora_dir() / "wikipedia-en").mkdir(parents=True)
    with pytest.raises(InputError, match="holds no document files yet"):
        resolve_source("wikipedia-en")
