"""Where downloaded corpora live in the data folder: ``<data dir>/corpora/<name>/``, each with the
``manifest.json`` that ``corpus fetch`` keeps."""

from __future__ import annotations

from pathlib import Path

from factdebate.util.paths import data_dir

CORPORA_FOLDER = "corpora"
MANIFEST = "manifest.json"  # a fetched corpus's record of its files (corpus/fetch.py), not a document file


def corpora_dir() -> Path:
    return data_dir() / CORPORA_FOLDER
