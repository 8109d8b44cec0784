"""What `factdebate index SOURCE` takes SOURCE for: a file, a folder of files, a downloaded corpus's name
(the folder `corpus fetch` writes), or a Hub dataset (not read directly yet)."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.corpus.folders import corpora_dir
from factdebate.corpus.sources import resolve_source
from factdebate.util.errors import InputError
from tests.cli.test_exits import call


def test_a_file_is_itself(tmp_path: Path) -> None:
    path = tmp_path / "docs.csv"
    path.write_text("id,text\n1,hello\n", encoding="utf-8")
    found = resolve_source(str(path))
    assert [(f.path, f.format) for f in found.files] == [(path, "csv")] and found.name is None


def test_a_folder_gives_its_document_files_in_order_and_nothing_else(tmp_path: Path) -> None:
    for name in ("b.parquet", "a.jsonl", "sub/c.tsv", "d.jsonl.gz", "manifest.json", "README.md", ".hidden.jsonl"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x", encoding="utf-8")
    found = resolve_source(tmp_path)
    assert [f.path.relative_to(tmp_path).as_posix() for f in found.files] == [
        "a.jsonl", "b.parquet", "d.jsonl.gz", "sub/c.tsv"]
    assert [f.format for f in found.files] == ["jsonl", "parquet", "jsonl", "tsv"]


def test_a_bare_name_is_a_corpus_downloaded_into_the_data_folder() -> None:
    folder = corpora_dir() / "wikipedia-en"
    folder.mkdir(parents=True)
    (folder / "train-00000.parquet").write_bytes(b"")
    (folder / "manifest.json").write_text("{}", encoding="utf-8")
    found = resolve_source("wikipedia-en")
    assert found.name == "wikipedia-en" and [f.path.name for f in found.files] == ["train-00000.parquet"]


@pytest.mark.parametrize(("source", "error", "needle"), [
    ("nowhere-at-all", InputError, "no downloaded corpus of that name"),
    ("hf:wikipedia", InputError, "give a Hub dataset as hf:OWNER/NAME"),
])
def test_what_is_not_a_source_says_what_it_was_taken_for(source: str, error: type[Exception], needle: str) -> None:
    with pytest.raises(error, match=needle):
        resolve_source(source)


def test_an_empty_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="holds no JSONL, CSV, TSV or Parquet files"):
        resolve_source(tmp_path)


def test_index_takes_a_downloaded_corpus_by_name_and_names_the_corpus_after_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = corpora_dir() / "mini"
    folder.mkdir(parents=True)
    (folder / "part-0.jsonl").write_text('{"id": "a", "title": "Alps", "text": "The Alps are mountains."}\n',
                                         encoding="utf-8")
    (folder / "part-1.jsonl").write_text('{"id": "b", "title": "Rhine", "text": "The Rhine is a river."}\n',
                                         encoding="utf-8")
    code, err = call(capsys, "index", "mini", "--engines", "local")
    assert code == 0 and "indexed 2 documents as 2 passages into corpus 'mini'" in err, err
