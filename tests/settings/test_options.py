"""The flat option table is read off the settings' fields: a shared setting is an option when its Field
names one, a method's fields always are; name, help, type, constraints and who may set it come from the
field, so no option is listed twice and none can drift from its setting."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from pydantic import Field
from typer.testing import CliRunner

from factdebate.cli.main import app
from factdebate.core.fields import GROUPS, exposure, offered, walk
from factdebate.methods.base import Method, MethodSettings, register, unregister
from factdebate.settings.load import load_settings, settings_from
from factdebate.settings.model import ScaleSettings, Settings
from factdebate.settings.options import Option, all_options

# What callers of the service may not set: they spend or reach the operator's resources. The service's
# hardening rests on this set, so a change to it is a deliberate change here too.
OPERATOR_ONLY = {
    "cache", "claim_concurrency", "concurrency", "dpd_speculate", "evidence", "llm_max_in_flight", "mad_speculate",
    "max_claim_chars", "max_doc_chars", "medical_abstracts", "medical_search", "medical_summarize", "memory",
    "memory_from", "memory_path", "mermaid_memory", "mermaid_memory_from", "mermaid_memory_busy_timeout_s",
    "mermaid_memory_namespace", "mermaid_memory_path", "mermaid_memory_ttl_days", "mermaid_servers",
    "mermaid_wikipedia_online", "milvus_uri", "speculate", "temperature", "vote_samples", "dpd_judge_llms"}


def test_who_may_set_each_option_is_unchanged() -> None:
    table = all_options()
    assert {name for name, option in table.items() if not option.public} == OPERATOR_ONLY
    assert set(Option.public_options()) == set(table) - OPERATOR_ONLY


def test_every_shared_option_is_its_field() -> None:
    named = {exposure(info)["option"]: (path, info) for path, info in walk(Settings) if "option" in exposure(info)}
    shared = {name: option for name, option in all_options().items() if option.method is None}
    assert set(shared) == set(named)
    for name, option in shared.items():
        path, info = named[name]
        assert option.paths == (path,) and option.field is info and option.help == info.description
        assert option.public is not exposure(info).get("operator_only", False)
        value = sample(name, option.annotation, at(Settings(), path))
        assert at(settings_from({name: value}), path) == value, name
    assert all_options()["k"].short == "-k" and all_options()["k"].schema()["maximum"] == 20


TEXTS = {"method": "mad", "llm": "openai:a", "judge_llm": "openai:b", "scorer_llm": "openai:c", "search": "wikipedia",
         "corpus": "mine", "milvus_uri": "http://milvus:19530", "search_before": "2024-01-02"}


def at(settings: Settings, path: tuple[str, ...]) -> Any:
    value: Any = settings.model_dump()
    for part in path:
        value = value[part]
    return value


def sample(name: str, annotation: Any, default: Any) -> Any:
    """A valid value of the option that differs from its default."""
    if annotation is bool:
        return not default
    samples: dict[Any, Any] = {**TEXTS, "max_doc_chars": 700, int: 7, float: 0.5, list[str]: ["example.com"]}
    chosen = samples.get(name, samples.get(annotation))
    return chosen if chosen is not None else annotation.__args__[-1]  # a Literal: its last choice


class _Echo(MethodSettings):
    loudness: int = Field(default=1, ge=1, le=3, description="How loud the echo is.")
    budget: int = Field(default=2, ge=1, description="Calls it may spend.",
                        json_schema_extra=offered(operator_only=True))


class _EchoMethod(Method[_Echo]):
    name = "echo-test"
    description = "A method that exists for one test"
    settings_model = _Echo


@pytest.fixture
def echo() -> Iterator[None]:
    register(_EchoMethod)
    yield
    unregister("echo-test")


def test_a_new_setting_is_one_field(echo: None) -> None:
    table = all_options()
    loud, budget = table["echo_test_loudness"], table["echo_test_budget"]
    assert (loud.help, loud.public, loud.schema()["maximum"]) == ("How loud the echo is.", True, 3)
    assert budget.public is False and "echo_test_budget" not in Option.public_options()
    assert settings_from({"echo_test_loudness": 3}).methods["echo-test"].loudness == 3
    assert load_settings(environ={"FACTDEBATE_METHODS__ECHO_TEST__BUDGET": "5"}).methods["echo-test"].budget == 5
    shown = CliRunner().invoke(app, ["verify", "--help"], env={"COLUMNS": "250"}).output
    assert "--echo-test-loudness" in shown and "How loud the echo is." in shown


def test_scale_flags_are_drawn_from_their_fields() -> None:
    shown = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "250"}).output
    index_help = CliRunner().invoke(app, ["index", "--help"], env={"COLUMNS": "250"}).output
    batch, index_only = ("executor", "ray_address", "workers"), ("worker_gpus", "shard_docs", "lexical_parts")
    for name, info in ScaleSettings.model_fields.items():
        flag = exposure(info).get("flag")
        assert (flag is not None) == (name in batch + index_only)
        if flag:
            assert flag in index_help and str(info.description) in index_help
            assert (flag in shown) == (name in batch)
            if name in batch:
                assert str(info.description) in shown
    assert "x>=1" in shown  # --workers keeps its field's lower bound


def test_every_option_has_a_title_of_its_own() -> None:
    """The form's label and the flag's help start from the field's title (pydantic never makes one up), not
    from its name; its group is one the form knows."""
    for name, option in all_options().items():
        assert option.title and option.field is not None and option.field.title == option.title, name
        assert option.group is None or option.group in GROUPS, name
    mains = {m: [o.name for o in all_options().values() if o.method == m and o.main] for m in ("dpd", "mermaid")}
    assert mains["dpd"] == ["dpd_min_rounds", "dpd_max_rounds", "dpd_consensus_threshold", "dpd_transition",
                            "dpd_judges"]
    with pytest.raises(ValueError, match="unknown settings group"):
        offered(group="nowhere")


class _Aliased(MethodSettings):
    volume: int = Field(default=1, ge=1, le=3, title="Volume", description="How loud it is.")


class _AliasedMethod(Method[_Aliased]):
    name = "alias-test"
    description = "A method whose field keeps an older flat name"
    settings_model = _Aliased
    option_aliases: ClassVar[dict[str, tuple[str, ...]]] = {"volume": ("loudness",)}


def test_an_older_name_still_works_but_is_offered_once() -> None:
    """MERMAID's form showed both "Mermaid memory" and "Memory": an alias became a second control."""
    from factdebate.server.catalogue import catalogue
    from factdebate.server.options import VerifyOptions

    register(_AliasedMethod)
    try:
        assert all_options()["loudness"].alias_of == "alias_test_volume"
        info = catalogue(load_settings(environ={}), ["scripted:agree"], False)
        (method,) = [m for m in info.methods if m.name == "alias-test"]
        assert [(o.name, o.title, o.help) for o in method.options] == [("alias_test_volume", "Volume",
                                                                         "How loud it is.")]
        assert VerifyOptions.model_validate({"loudness": 2}).chosen() == {"loudness": 2}
        assert settings_from({"loudness": 2}).methods["alias-test"].volume == 2
        shown = CliRunner().invoke(app, ["verify", "--help"], env={"COLUMNS": "250"}).output
        assert "--alias-test-volume" in shown and "Volume: How loud it is." in shown and "--loudness" not in shown
    finally:
        unregister("alias-test")


def test_the_public_options_are_those_a_caller_may_choose() -> None:
    table = all_options()
    public = Option.public_options()
    assert public and set(public) == {name for name, option in table.items() if option.public}
    assert set(public) < set(table)  # some are the operator's alone
