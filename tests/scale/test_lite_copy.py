"""Milvus Lite serves one process: a Ray pool whose workers would share one Lite folder is refused with a
clear error, and a worker's private copy is its own folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.core.errors import IndexError_
from factdebate.scale.lite_copy import private_copy
from factdebate.scale.pool import check_lite_sharing
from factdebate.settings.load import load_settings
from factdebate.util.errors import ConfigError


def test_shared_lite_database_is_refused_without_copies() -> None:
    settings = load_settings(overrides={"scale": {"executor": "ray", "workers": 2, "lite_copy": False}}, environ={})
    with pytest.raises(ConfigError, match="Milvus Lite serves one process at a time"):
        check_lite_sharing(settings, None)
    # A Milvus server serves every worker; one worker alone may open the Lite folder.
    check_lite_sharing(settings.model_copy(update={"retrieval": settings.retrieval.model_copy(
        update={"milvus_uri": "http://milvus:19530"})}), None)
    check_lite_sharing(settings.model_copy(update={"scale": settings.scale.model_copy(update={"workers": 1})}), None)


def test_private_copy_is_a_separate_folder(tmp_path: Path) -> None:
    source = tmp_path / "milvus.db"
    (source / "collections").mkdir(parents=True)
    (source / "collections" / "segment").write_bytes(b"vectors")
    copy = Path(private_copy(str(source)))
    assert copy != source and copy.name == "milvus.db"
    assert (copy / "collections" / "segment").read_bytes() == b"vectors"
    assert private_copy(str(source)) == str(copy)  # once per process
    with pytest.raises(IndexError_, match="does not exist on Ray node"):
        private_copy(str(tmp_path / "missing.db"))
