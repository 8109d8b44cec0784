"""Finished-build markers name a Milvus Lite file by its place in the data folder, so one folder spelled two
ways (relative, absolute, through a link) or moved elsewhere still finds its markers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.corpus.markers import MARKER_FILE, get_marker, marker_key, set_marker


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(folder))
    monkeypatch.chdir(tmp_path)
    return folder


def test_one_lite_file_spelled_three_ways_has_one_key(data: Path, tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(tmp_path)
    spellings = [str(data / "milvus.db"), "data/milvus.db", str(tmp_path / "link" / "data" / "milvus.db")]
    assert {marker_key("rag", "builtin", uri) for uri in spellings} == {"rag:builtin:<data>/milvus.db"}


def test_a_server_uri_and_a_file_outside_the_folder_keep_their_names(data: Path, tmp_path: Path) -> None:
    assert marker_key("rag", "c", "http://milvus:19530") == "rag:c:http://milvus:19530"
    assert marker_key("rag", "c", "elsewhere.db") == f"rag:c:{tmp_path / 'elsewhere.db'}"
    assert marker_key("local", "c", "http://milvus:19530") == "local:c"


def test_a_marker_written_under_an_absolute_key_is_still_found(data: Path) -> None:
    data.mkdir()
    old = {f"rag:builtin:{data / 'milvus.db'}": {"chunks": 40, "limit": 40}, "local:builtin": {"chunks": 40}}
    (data / MARKER_FILE).write_text(json.dumps(old), encoding="utf-8")
    assert get_marker(marker_key("rag", "builtin", "data/milvus.db")) == {"chunks": 40, "limit": 40}
    set_marker("local:other", {"chunks": 1})  # a rewrite keeps it, under the new key
    assert set(json.loads((data / MARKER_FILE).read_text(encoding="utf-8"))) == {
        "rag:builtin:<data>/milvus.db", "local:builtin", "local:other"}



def test_a_key_read_back_from_another_working_folder_is_the_key_written(
        data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    set_marker(marker_key("rag", "builtin", "data/milvus.db"), {"chunks": 3})
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert get_marker(marker_key("rag", "builtin", str(data / "milvus.db"))) == {"chunks": 3}
