"""A failure on a Milvus Lite folder that this process itself has open is reported as what it is, not as
"another process has it open": Milvus Lite runs in-process and holds the folder's lock while it serves it, so
the lock alone cannot tell whose it is (a Ray worker's search of its private copy said another process held it,
hiding the real error, in a whole-suite run of fc9c7ff)."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.core.errors import IndexError_
from factdebate.corpus.milvus import get_client, held_elsewhere, held_here, milvus_errors


def test_a_folder_this_process_serves_is_not_held_elsewhere(tmp_path: Path) -> None:
    uri = str(tmp_path / "milvus.db")
    get_client(uri)  # this process's Milvus Lite opens it and holds its lock
    assert held_here(uri)
    assert not held_elsewhere(uri)
    with pytest.raises(IndexError_) as raised, milvus_errors(uri, "searching"):
        raise RuntimeError("the search itself failed")
    said = str(raised.value)
    assert "the search itself failed" in said and "another process" not in said
