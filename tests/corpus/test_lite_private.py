"""Two processes on one data folder: while another process holds the Milvus Lite folder
(a `serve`, an `mcp`, a notebook), a search goes on from a private copy and says so, an index build waits for
it with a line saying so, and no message says that the folder may be corrupt. Real processes: the
holder is a Python process that opened the folder through the same client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from factdebate.core.errors import IndexError_
from factdebate.corpus.milvus import MilvusStore

HOLD = """
import sys
from factdebate.corpus.milvus import get_client
get_client(sys.argv[1]).list_collections()
print("holding", flush=True)
sys.stdin.read()
"""


def test_a_search_goes_on_from_a_copy_while_another_process_holds_the_folder(
        builtin_index: Path, capfd: pytest.CaptureFixture[str]) -> None:
    uri = str(builtin_index / "milvus.db")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, uri], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        found = MilvusStore("builtin", uri, searching=True).search_sync("Where is the Eiffel Tower?", 3)
        assert len(found) == 3 and all(doc.text for doc in found)
        assert "searching a copy of it" in capfd.readouterr().err
        with pytest.raises(IndexError_) as refused:  # a build needs the folder itself
            MilvusStore("builtin", uri).exists()
            MilvusStore("builtin", uri).client  # noqa: B018  (opening is the act tested)
        message = str(refused.value)
        assert "another process has it open" in message and "delete" not in message, message
    finally:
        holder.communicate("", timeout=60)


def test_the_error_class_reads_as_words() -> None:
    """Issue 61 item 3: `factdebate.core.errors.IndexError_` in a notebook's traceback."""
    assert IndexError_.__name__ == "SearchIndexError"


def test_an_index_build_beside_a_process_holding_the_folder_waits_and_says_so(builtin_index: Path) -> None:
    """`factdebate index` while a `serve` holds the folder: one line says what it waits for, then the build
    goes on when the holder lets go (it failed at once, advising to delete the folder)."""
    uri = str(builtin_index / "milvus.db")
    (builtin_index / "mine.jsonl").write_text(json.dumps({"id": "1", "title": "Eiffel Tower",
                                                          "text": "The Eiffel Tower is in Paris."}) + "\n")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, uri], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    build = subprocess.Popen([str(Path(sys.executable).with_name("factdebate")), "index",
                              str(builtin_index / "mine.jsonl"), "--corpus", "mine"], stderr=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert build.stderr is not None
    try:
        first = build.stderr.readline()
        assert first.startswith("waiting for the other process that has") and "delete" not in first, first
        assert build.poll() is None, "it ended instead of waiting"
    finally:
        holder.communicate("", timeout=60)  # the holder lets go
    rest = build.communicate(timeout=300)[1]
    assert build.returncode == 0, first + rest
    assert "indexed" in rest and "waiting" not in rest, rest  # said once
