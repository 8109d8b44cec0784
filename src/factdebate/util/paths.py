"""Where factdebate keeps its data: indexes, the Milvus Lite database, the LLM cache."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """``$FACTDEBATE_DATA_DIR``, else ``$XDG_DATA_HOME/factdebate``, else ``~/.local/share/factdebate``."""
    explicit = os.environ.get("FACTDEBATE_DATA_DIR")
    if explicit:
        path = Path(explicit)
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        path = Path(base) / "factdebate"
    path.mkdir(parents=True, exist_ok=True)
    return path
