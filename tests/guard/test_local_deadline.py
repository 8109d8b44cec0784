"""A Python caller's deadline: ``fd.guard(..., deadline_s=300)`` has 300 s, past ``guard.max_deadline_s`` (the
cap a service holds its callers to; in its own process the caller is the operator), and one past the setting's
own bound is an error that names it."""

from __future__ import annotations

import asyncio

import pytest

import factdebate as fd
from factdebate.guard_engine.local import local_host
from factdebate.util.errors import InputError


def _deadline(**options: object) -> float:
    guard_options, host = local_host({"llm": "scripted:agree", **options}, None, None, None, None)
    settings = asyncio.run(host.settings(guard_options))
    return guard_options.resolve(settings).deadline_s


def test_a_python_caller_s_deadline_is_its_own_past_the_service_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_DEADLINE_S", "120")
    assert _deadline(deadline_s=300) == 300
    assert _deadline(deadline_s=30) == 30  # below the cap, as asked


def test_a_deadline_past_the_setting_s_bound_is_an_error() -> None:
    with pytest.raises(InputError, match="deadline_s must be at most 3600 seconds, got 5000"):
        fd.guard("The Eiffel Tower is in Rome.", tier="fast", deadline_s=5000, llm="scripted:agree")
