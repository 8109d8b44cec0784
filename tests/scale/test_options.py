"""The executor flags: what they set, and the mistakes they refuse."""

from __future__ import annotations

import pytest

from factdebate.cli import exits
from factdebate.cli.main import run
from factdebate.core.errors import ConfigError, InputError
from factdebate.run.resume import settings_changes
from factdebate.scale.options import with_scale
from factdebate.settings.load import load_settings


def test_flags_land_in_the_scale_settings() -> None:
    base = load_settings(environ={})
    assert base.scale.executor == "local"
    chosen = with_scale(base, "ray", None, 3)
    assert (chosen.scale.executor, chosen.scale.workers, chosen.scale.ray_address) == ("ray", 3, None)
    assert with_scale(base, None, "auto", None).scale.executor == "ray"  # an address implies Ray
    with pytest.raises(ConfigError, match="--executor must be local or ray"):
        with_scale(base, "dask", None, None)
    with pytest.raises(ConfigError, match="--ray-address needs --executor ray"):
        with_scale(base, "local", "auto", None)


def test_scale_settings_may_change_when_a_run_resumes() -> None:
    before = load_settings(environ={}).model_dump(mode="json")
    now = with_scale(load_settings(overrides={"llm": {"base_urls": ["http://a/v1"]}}, environ={}), "ray", None, 8)
    assert settings_changes(before, now.model_dump(mode="json")) == []


def test_one_claim_is_not_sent_to_ray() -> None:
    code = run(["verify", "The sky is blue.", "--executor", "ray", "--llm", "scripted:agree"])
    assert code == exits.code_for(InputError("x")) != exits.OK
