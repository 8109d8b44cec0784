"""Resuming compares the settings the run's method reads, not every method's section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.eval.runner import RUN, Plan, check_resume, make_plan
from factdebate.methods.base import Method
from factdebate.run.resume import settings_changes
from factdebate.settings.load import load_settings
from factdebate.util.errors import InputError


def dump(**methods: dict[str, object]) -> dict[str, object]:
    return load_settings(overrides={"methods": methods}, environ={}).model_dump(mode="json")


def test_a_field_of_another_method_does_not_block_a_resume() -> None:
    before, now = dump(), dump(**{"tool-mad": {"rounds": 5}})
    del before["methods"]["tool-mad"]["speculate"]  # type: ignore[index]  # as if the field were new
    assert settings_changes(before, now, Method.named("cot").settings_sections()) == []
    assert settings_changes(before, now)  # compared whole, it is a difference
    assert settings_changes(before, now, Method.named("tool-mad").settings_sections()) == [
        "settings.methods.tool-mad.rounds: 3 -> 5"]


def test_the_vote_reads_tool_mads_section_too() -> None:
    before, now = dump(), dump(**{"tool-mad": {"rounds": 5}})
    assert Method.named("vote").settings_sections() == ("vote", "tool-mad")
    assert any("tool-mad.rounds" in c for c in settings_changes(before, now, Method.named("vote").settings_sections()))


def test_eval_resumes_a_mad_run_after_a_tool_mad_change_but_not_after_its_own(tmp_path: Path) -> None:
    def plan(**methods: dict[str, object]) -> Plan:
        settings = load_settings(overrides={"method": "mad", "methods": methods}, environ={})
        return make_plan(settings, "countries", tmp_path / "run", limit=2, seed=0)

    first = plan()
    first.output.mkdir()
    (first.output / RUN).write_text(json.dumps(first.info()))
    check_resume(plan(**{"tool-mad": {"rounds": 5}}))  # another method's setting: resumes
    with pytest.raises(InputError, match="already holds a different run"):
        check_resume(plan(mad={"rounds": 4}))
