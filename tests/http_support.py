"""Shared pieces of the recorded-HTTP tests: the fixture loader and instant retry back-off."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factdebate.tools import http

FIXTURES = Path(__file__).parent / "fixtures" / "http"


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries back off for real in production; here they must not slow the suite."""

    async def instant(delay: float) -> None:
        return None

    monkeypatch.setattr(http, "_sleep", instant)
