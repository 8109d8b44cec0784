"""The executor flags: what they set, and the mistakes they refuse."""

from __future__ import annotations

import pytest

from factdebate.cli import exits
from factdebate.cli.main import run
from factdebate.run.resume import settings_changes
from factdebate.scale.options import with_scale
from factdebate.settings.load import load_settings
from factdebate.util.errors import ConfigError, InputError


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


@pytest.mark.parametrize(("flags", "said"), [
    (["--workers", "100000"], "less than or equal to 1024"),  # 4.1 GB of Ray actors in a minute
    (["--workers", str(10**23)], "less than or equal to 1024"),  # an "internal error" past what Ray takes
    (["--workers", "0"], "greater than or equal to 1"),
])
def test_scale_flags_are_bounded_as_usage_errors(flags: list[str], said: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["verify", "--input", "claims.jsonl", "-o", "out.jsonl"],
                    ["eval", "--dataset", "countries", "-o", "run"], ["index", "docs.jsonl"]):
        assert run([*command, "--executor", "ray", *flags, "--llm", "scripted:agree"]
                   if command[0] != "index" else [*command, "--executor", "ray", *flags]) == exits.USAGE
        err = capsys.readouterr().err
        assert f"Invalid value for '--workers': Input should be {said}" in err and "internal error" not in err


@pytest.mark.parametrize(("update", "said"), [
    ({"workers": 100_000}, "--workers: Input should be less than or equal to 1024"),
    ({"shard_docs": 10**9}, "--shard-docs: Input should be less than or equal to 10000000"),
    ({"worker_gpus": 1000.0}, "--worker-gpus: Input should be less than or equal to 64"),
    ({"lexical_parts": 0}, "--lexical-parts: Input should be greater than or equal to 1"),
])
def test_with_scale_validates_what_the_flags_change(update: dict[str, float], said: str) -> None:
    """Typer bounds the flags; with_scale checks again, for callers that are no command line (it copied the
    values over unchecked)."""
    workers = update.pop("workers", None)
    with pytest.raises(ConfigError) as refused:
        with_scale(load_settings(environ={}), "ray", None, None if workers is None else int(workers), **update)
    assert str(refused.value) == said


def test_other_scale_flags_have_upper_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["index", "docs.jsonl", "--executor", "ray", "--shard-docs", str(10**9)],
                    ["index", "docs.jsonl", "--executor", "ray", "--lexical-parts", "65"],
                    ["index", "docs.jsonl", "--executor", "ray", "--worker-gpus", "65"],
                    ["serve", "--workers", "65"],
                    ["calibrate", "relevance", "--dataset", "countries", "--concurrency", "2000"]):
        assert run(command) == exits.USAGE, command
        err = capsys.readouterr().err
        assert f"Invalid value for '{command[-2]}'" in err and "internal error" not in err, err
