"""Shards read exactly the documents, with exactly the ids, that the one-process loader reads: a build on
Ray and one in a single process make the same passages."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from factdebate.corpus.loading import load_documents
from factdebate.corpus.shards import Shard, plan_shards, read_shard
from factdebate.corpus.sources import resolve_source
from factdebate.util.errors import InputError


def _everything(folder: Path, shard_docs: int) -> tuple[list[Shard], list[tuple[str, str]]]:
    shards = plan_shards(resolve_source(folder).files, shard_docs)
    return shards, [(doc.id, doc.text) for shard in shards for doc in read_shard(shard)]


def _loaded(folder: Path) -> list[tuple[str, str]]:
    return [(doc.id, doc.text) for f in resolve_source(folder).files for doc in load_documents(f.path, f.format)]


def test_jsonl_parquet_csv_and_gzip_shards_hold_what_the_loader_reads(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    lines = [json.dumps({"text": f"Line {n}, with no id: its line number makes one."}) if n % 3 else ""
             for n in range(1, 23)]  # blank lines in between count as lines, not documents
    (tmp_path / "a.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    pq.write_table(pa.table({"text": [f"Row {n}" for n in range(11)]}), tmp_path / "b.parquet", row_group_size=3)
    (tmp_path / "c.csv").write_text('id,text\nc1,"a cell\nover two lines"\nc2,plain\n', encoding="utf-8")
    with gzip.open(tmp_path / "d.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write('{"id": "g1", "text": "gzipped"}\n')
    shards, read = _everything(tmp_path, shard_docs=4)
    assert read == _loaded(tmp_path)
    assert [(Path(s.path).name, s.start, s.stop, s.documents) for s in shards] == [
        ("a.jsonl", 1, 6, 4), ("a.jsonl", 6, 12, 4), ("a.jsonl", 12, 18, 4), ("a.jsonl", 18, 23, 3),
        ("b.parquet", 0, 4, 4), ("b.parquet", 4, 8, 4), ("b.parquet", 8, 11, 3),
        ("c.csv", 0, 0, None), ("d.jsonl.gz", 0, 0, None)]
    assert len({s.key for s in shards}) == len(shards)


def test_a_plan_is_the_same_on_every_run(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"text": f"t{n}"}) + "\n" for n in range(10)))
    files = resolve_source(tmp_path).files
    assert plan_shards(files, 3) == plan_shards(files, 3)
    shard = plan_shards(files, 3)[1]
    assert Shard.from_dict(json.loads(json.dumps(shard.as_dict()))) == shard


def test_a_bad_line_is_named_with_its_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text('{"text": "ok"}\n{"text": "ok"}\n{broken\n', encoding="utf-8")
    last = plan_shards(resolve_source(tmp_path).files, 2)[-1]
    with pytest.raises(InputError, match=r"a\.jsonl:3: invalid JSON"):
        list(read_shard(last))
