"""Resources a Ray worker builds for the scale tests: the settings' (scripted) model, static tools and the
bag-of-words encoder. A module-level function, so Ray workers import it by name."""

from __future__ import annotations

import json
from pathlib import Path

from factdebate.embeddings.minilm import Embedder
from factdebate.methods.resources import Resources
from factdebate.run.build import build_resources
from factdebate.settings.model import Settings
from tests.helpers import BagOfWordsEncoder, HashingEmbedder, StaticTool


def static_resources(settings: Settings, endpoint: str | None) -> Resources:
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    return build_resources(settings, tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder,
                           endpoint=endpoint)


def write_claims(path: Path, count: int, label: bool = False) -> Path:
    rows = [{"id": f"c{i}", "claim": f"Claim number {i} is true."} | ({"label": "SUPPORTS"} if label else {})
            for i in range(count)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def hashing_embedder() -> Embedder:
    """The index workers' encoder in the tests (by name, so Ray workers import it)."""
    return HashingEmbedder()
