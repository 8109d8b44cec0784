"""Indexing: nothing is written when any engine cannot be, dropped duplicate ids are reported, and corpus
names map injectively onto Milvus collections."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from factdebate.core.types import Document
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.names import PATTERN, check_corpus_name, collection_name
from factdebate.util.errors import ConfigError
from tests.cli.test_exits import call

DOCS = [Document(id="a", title="Paris", text="Paris is the capital of France."),
        Document(id="b", title="Rome", text="Rome is the capital of Italy."),
        Document(id="a", title="Paris again", text="A second document with the id of the first.")]


def test_duplicate_ids_are_dropped_and_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(d.model_dump()) + "\n" for d in DOCS), encoding="utf-8")
    code, err = call(capsys, "index", str(path), "--corpus", "dups", "--engines", "local")
    assert code == 0, err
    assert "indexed 2 documents" in err and "dropped 1 document(s) whose id was already used" in err
    hits = LexicalIndex("dups").search_sync("Paris", 5)
    assert [h.title for h in hits] == ["Paris"]  # the first one is kept


@given(st.from_regex(PATTERN, fullmatch=True), st.from_regex(PATTERN, fullmatch=True))
def test_distinct_corpus_names_get_distinct_collections(a: str, b: str) -> None:
    if a != b:
        assert collection_name(a) != collection_name(b)


def test_names_that_sanitise_alike_stay_apart() -> None:
    assert collection_name("builtin") == "factdebate_builtin"  # existing collections keep their name
    names = {collection_name(n) for n in ("col-1", "col_1", "col.1", "col_1_" + "0" * 12)}
    assert len(names) == 4


@pytest.mark.parametrize("name", ["", "  ", "x" * 65, "a b", "-lead", "ünï"])
def test_bad_corpus_names_are_refused(name: str) -> None:
    with pytest.raises(ConfigError):
        check_corpus_name(name)


@pytest.mark.slow
def test_a_locked_milvus_database_is_waited_for_before_anything_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process holds the Milvus Lite database: the build says it waits, writes nothing meanwhile (no
    half-built corpus), and builds both indexes once the holder lets go."""
    pytest.importorskip("pymilvus")
    from factdebate.corpus.indexing import index_corpus

    uri = str(tmp_path / "locked.db")
    holder = subprocess.Popen(  # another process holds the Milvus Lite database
        [sys.executable, "-c", "import sys\nfrom pymilvus import MilvusClient\n"
         f"MilvusClient({uri!r}); print('ready', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    built: list[object] = []
    # A stream that keeps all it was given: reading capfd truncates its file, and a line the build thread
    # writes between that read and the truncation is lost, so the wait below never saw it on a loaded machine.
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        build = threading.Thread(target=lambda: built.append(
            index_corpus(DOCS[:2], "locked", milvus_uri=uri, engines=("rag", "local"), progress=False)))
        build.start()
        while "waiting for the other process that has" not in err.getvalue():  # (pytest-timeout ends a silent wait)
            assert build.is_alive(), f"the build ended without waiting for the holder: {err.getvalue()[-2000:]!r}"
            time.sleep(0.05)
        assert not LexicalIndex("locked").exists()  # nothing written while it waits
    finally:
        holder.communicate("", timeout=60)  # the holder lets go
    build.join(timeout=300)
    assert built and LexicalIndex("locked").exists(), "the build did not go on once the folder was free"


@pytest.mark.slow
def test_dense_search_finds_a_passage_deep_in_a_huge_document_without_spaces(tmp_path: Path,
                                                                            onnx_model_file: Path) -> None:
    import random
    import shutil

    from factdebate.util.paths import data_dir

    (data_dir() / "models").mkdir(parents=True, exist_ok=True)  # the run's int8 encoder, not exported again
    shutil.copy(onnx_model_file, data_dir() / "models" / onnx_model_file.name)

    from factdebate.corpus.indexing import index_corpus
    from factdebate.corpus.milvus import MilvusStore

    rng = random.Random(0)  # varied CJK text, no spaces: 30k characters, 90 KB of UTF-8
    text = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(30_000))
    probe = text[25_000:25_020]  # beyond the 64 KB a single passage could store
    others = [Document(id=f"o{i}", title=t, text=x) for i, (t, x) in enumerate([
        ("Bread", "Bread is baked from flour, water and yeast."),
        ("Chess", "Chess is played on a board of sixty-four squares.")])]
    uri = str(tmp_path / "m.db")
    index_corpus([Document(id="huge", title="Text", text=text), *others], "huge", milvus_uri=uri,
                 engines=("rag",), progress=False)
    hits = MilvusStore("huge", uri).search_sync(probe, 3)
    # Before passages were capped, the document was one passage: its vector saw only the opening and its
    # stored text stopped at 64 KB, so the probe could not be found.
    assert any(probe in hit.text for hit in hits), [h.id for h in hits]
