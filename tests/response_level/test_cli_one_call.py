"""``factdebate check-response`` makes the one call of check-response (``CheckCall.check_response``,
issue 57 item 2), as ``factdebate.check_response``, MCP's ``check_response`` and ``POST /v1/check-response`` do:
what the terminal shows of a claim whose checker could not be reached says what failed, not the model
server's address, on stdout as JSON and as the table."""

from __future__ import annotations

import json

import pytest

from factdebate.cli.main import run
from factdebate.methods.resources import Resources
from factdebate.settings.model import Settings
from tests.guard.support import CLAIMS, REPLY
from tests.guard.test_one_call import DeadChecker
from tests.server.conftest import offline_build

COMMAND = ["check-response", REPLY, "--llm", "scripted:agree", "--method", "single", "--no-cache", "--no-scoring"]


@pytest.fixture
def dead_checker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Claims extracted, then every claim's checker unreachable (at tests/guard/test_one_call.py's address)."""
    def build(settings: Settings) -> Resources:
        return offline_build(settings, DeadChecker())

    monkeypatch.setattr("factdebate.run.build.build_resources", build)


@pytest.mark.usefixtures("dead_checker")
def test_the_json_names_what_failed_not_the_checkers_address(capsys: pytest.CaptureFixture[str]) -> None:
    assert run([*COMMAND, "--json"]) == 1  # a claim in error exits 1, as verify does
    out = capsys.readouterr().out
    shown = json.loads(out)
    assert [c["claim"] for c in shown["claims"]] == CLAIMS
    assert all("could not reach the operator's endpoint" in c["error"] for c in shown["claims"]), shown["claims"]
    assert "10.9.8.7" not in out


@pytest.mark.usefixtures("dead_checker")
def test_the_table_names_what_failed_not_the_checkers_address(capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # the table's rows unwrapped, each claim's error on one line
    assert run(COMMAND) == 1
    out = capsys.readouterr().out
    assert out.count("ERROR") == 2 and "could not reach the operator's endpoint" in out
    assert "10.9.8.7" not in out
