"""Every setting says what it does: a described ``Field`` in every settings model, whatever its layer
(the description is its help text on the command line, in the API reference and on the web form)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from factdebate.core.fields import walk
from factdebate.memory.settings import MemorySettings
from factdebate.methods.base import Method
from factdebate.server.caps import SpendingCaps
from factdebate.server.config import ServiceConfig
from factdebate.settings.model import Settings
from factdebate.tools.mcp_config import MCPServerConfig


def test_every_setting_has_a_description() -> None:
    models: dict[str, type[BaseModel]] = {"settings": Settings, "mcp_servers.<name>": MCPServerConfig,
                                          "memory": MemorySettings, "service": ServiceConfig, "caps": SpendingCaps}
    models.update({f"methods.{name}": method.settings_model for name, method in Method.registered().items()})
    undescribed = [f"{where}.{'.'.join(path)}" for where, model in models.items()
                   for path, info in walk(model) if not (info.description or "").strip()]
    assert undescribed == []
    assert len([1 for model in models.values() for _ in walk(model)]) > 150  # the walk reaches the sections


def test_the_search_engine_defaults_to_tavily_when_its_key_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.settings.load import load_settings

    assert load_settings(environ={}).retrieval.search == "local"  # no key: BM25 over the indexed corpus
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    assert load_settings(environ={}).retrieval.search == "tavily"
    # An explicit choice always wins, from a flag, the environment or the file.
    assert load_settings(overrides={"retrieval": {"search": "local"}}, environ={}).retrieval.search == "local"
    assert load_settings(environ={"FACTDEBATE_SEARCH": "wikipedia"}).retrieval.search == "wikipedia"
    assert load_settings(overrides={"retrieval": {"search": "auto"}}, environ={}).retrieval.search == "tavily"
