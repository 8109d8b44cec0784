"""Loading document collections from JSONL, JSON, CSV and Parquet, and the errors for bad input."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest

from factdebate.corpus.loading import load_documents
from factdebate.util.errors import FactDebateError, InputError

ROWS = [
    {"id": "d1", "title": "Paris", "text": "Paris is the capital of France.", "source": "https://e/paris"},
    {"id": "d2", "title": "Berlin", "text": "Berlin is the capital of Germany."},
]


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_jsonl_with_alternate_field_names_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    path.write_text(
        json.dumps({"_id": 7, "title": "Seven", "content": "Body seven.", "url": "https://e/7"})
        + "\n\n"
        + json.dumps({"doc_id": "x", "extract": "An extract."})
        + "\n"
        + json.dumps({"title": "No id", "body": "Body without id."})
        + "\n",
        encoding="utf-8",
    )
    docs = list(load_documents(path))
    assert [d.id for d in docs] == ["7", "x", "docs:4"]  # a missing id falls back to file:line
    assert docs[0].text == "Body seven." and docs[0].source == "https://e/7" and docs[0].title == "Seven"
    assert docs[1].title == "" and docs[1].text == "An extract."


def test_json_list_and_mapping(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps(ROWS), encoding="utf-8")
    assert [d.title for d in load_documents(listed)] == ["Paris", "Berlin"]
    mapped = tmp_path / "map.json"
    mapped.write_text(json.dumps({"Rome": {"title": "Rome", "extract": "Rome is in Italy."}}), encoding="utf-8")
    [doc] = load_documents(mapped)
    assert (doc.id, doc.text) == ("Rome", "Rome is in Italy.")


def test_gzipped_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(json.dumps(r) for r in ROWS))
    assert len(list(load_documents(path))) == 2


def test_csv(tmp_path: Path) -> None:
    path = tmp_path / "docs.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["id", "title", "text", "url"])
        writer.writeheader()
        writer.writerow({"id": "a", "title": "A", "text": 'Text, with "quotes"\nand a newline.', "url": "u"})
        writer.writerow({"id": "b", "title": "B", "text": "Second.", "url": ""})
    docs = list(load_documents(path))
    assert docs[0].text == 'Text, with "quotes"\nand a newline.'
    assert docs[0].source == "u" and docs[1].source == ""


def test_parquet(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "docs.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), path)
    docs = list(load_documents(path))
    assert [d.id for d in docs] == ["d1", "d2"]
    assert docs[0].source == "https://e/paris" and docs[1].source == ""


def test_invalid_json_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(ROWS[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl:2: invalid JSON"):
        list(load_documents(path))


def test_row_without_text_names_the_line(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "notext.jsonl", [ROWS[0], {"id": "x", "title": "only a title"}])
    with pytest.raises(InputError, match=r"notext\.jsonl:2: no text"):
        list(load_documents(path))


def test_non_object_row(tmp_path: Path) -> None:
    path = tmp_path / "list.jsonl"
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"list\.jsonl:1: expected an object"):
        list(load_documents(path))


def test_csv_without_text_column(tmp_path: Path) -> None:
    path = tmp_path / "cols.csv"
    path.write_text("id,title\n1,x\n", encoding="utf-8")
    with pytest.raises(InputError, match="no text column"):
        list(load_documents(path))


def test_csv_row_with_empty_text_names_line(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("id,text\n1,fine\n2,\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"empty\.csv:3: no text"):
        list(load_documents(path))


def test_unknown_format_missing_file_and_damaged_parquet(tmp_path: Path) -> None:
    odd = tmp_path / "docs.xml"
    odd.write_text("<docs/>", encoding="utf-8")
    with pytest.raises(FactDebateError, match="unknown document format"):
        load_documents(odd)
    with pytest.raises(InputError, match="no such file"):
        load_documents(tmp_path / "absent.jsonl")
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"definitely not parquet")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        list(load_documents(broken))


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin.jsonl"
    path.write_bytes(json.dumps({"id": "1", "text": "caf\u00e9"}, ensure_ascii=False).encode("latin-1") + b"\n")
    with pytest.raises(InputError, match="not UTF-8"):
        list(load_documents(path))


def test_explicit_format_overrides_suffix(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "docs.txt", ROWS)
    assert len(list(load_documents(path, fmt="jsonl"))) == 2
