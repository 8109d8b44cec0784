"""A small run of benchmarks/faults.py: under the issue's fault mix every claim completes exactly once."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks.faults import run


def test_claims_complete_once_under_the_fault_mix(capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(run(claims=6, voters=8, overrides={}, seed=1))
    out = capsys.readouterr().out
    assert "completed=6 errors=0 duplicates=0 lost=0" in out, out
    assert "garbage" in out and "429" in out  # the faults were really served
