"""Loading with pydantic-settings: defaults < file < environment < flags, the environment's own spellings
(YAML values, short names declared on the fields, any case), and one clear line for each kind of mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.settings.load import ENV_ALIASES, load_settings
from factdebate.settings.model import Settings
from factdebate.util.errors import ConfigError


def test_each_layer_overrides_the_one_below(tmp_path: Path) -> None:
    config = tmp_path / "fd.yaml"
    config.write_text("retrieval: {k: 5, corpus: from-file}\nmethods: {tool-mad: {rounds: 2, scoring: false}}\n")
    env = {"FACTDEBATE_CONFIG": str(config), "FACTDEBATE_RETRIEVAL__K": "6",
           "FACTDEBATE_METHODS__TOOL_MAD__ROUNDS": "4"}
    settings = load_settings(None, {"retrieval": {"k": 7}}, environ=env)
    assert (settings.retrieval.k, settings.retrieval.corpus) == (7, "from-file")
    assert (settings.methods["tool-mad"].rounds, settings.methods["tool-mad"].scoring) == (4, False)
    assert load_settings(None, {"retrieval": {"k": None}}, environ=env).retrieval.k == 6  # None: not given
    assert type(settings) is Settings and settings == load_settings(config, {"retrieval": {"k": 7}}, environ=env)


def test_environment_values_are_yaml_and_names_any_case() -> None:
    settings = load_settings(environ={"FACTDEBATE_METHODS__TOOL_MAD__AGENTS": "[rag, none]",
                                      "factdebate_llm__cache": "false", "FACTDEBATE_LLM__ROLES__JUDGE": "openai:j",
                                      "FACTDEBATE_LLM__BASE_URLS": "[http://a/v1, http://b/v1]",
                                      "FACTDEBATE_MCP_SERVERS__WIKI__COMMAND": "wiki-server",
                                      "FACTDEBATE_LLM__SCORER": "null", "FACTDEBATE_SCORER_LLM": "openai:short"})
    assert settings.methods["tool-mad"].agents == ["rag", "none"] and settings.llm.cache is False
    assert settings.llm_for("judge") == "openai:j" and settings.llm.base_urls == ["http://a/v1", "http://b/v1"]
    assert settings.mcp_servers["wiki"].command == "wiki-server"
    assert settings.llm.scorer is None  # the full name wins over the short one; null is None


def test_short_names_are_declared_on_the_fields() -> None:
    assert ENV_ALIASES == {"FACTDEBATE_METHOD": ("method",), "FACTDEBATE_LLM": ("llm", "debater"),
                           "FACTDEBATE_JUDGE_LLM": ("llm", "judge"), "FACTDEBATE_SCORER_LLM": ("llm", "scorer"),
                           "FACTDEBATE_SEARCH": ("retrieval", "search"),
                           "FACTDEBATE_MILVUS_URI": ("retrieval", "milvus_uri")}
    settings = load_settings(environ={"FACTDEBATE_LLM": "openai:x", "FACTDEBATE_SEARCH": "wikipedia",
                                      "FACTDEBATE_METHOD": "mad", "FACTDEBATE_MILVUS_URI": "http://m:19530"})
    assert (settings.llm.debater, settings.retrieval.search, settings.method) == ("openai:x", "wikipedia", "mad")
    assert settings.retrieval.milvus_uri == "http://m:19530"


@pytest.mark.parametrize(("environ", "needle"), [
    ({"FACTDEBATE_METHODS__TOOL_MAD__ROUNDS": "["}, r"environment variable FACTDEBATE_METHODS__TOOL_MAD__ROUNDS='\['"),
    ({"FACTDEBATE_MCP_SERVERS": "{a: ["}, "environment variable FACTDEBATE_MCP_SERVERS="),
    ({"FACTDEBATE_RETRIEVL__K": "2"}, "retrievl: Extra inputs are not permitted"),  # a typo is refused, not lost
    ({"FACTDEBATE_LLM__TEMPRATURE": "2"}, "llm.temprature: Extra inputs"),
    ({"FACTDEBATE_RETRIEVAL__K": "abc"}, "retrieval.k: Input should be a valid integer"),
    ({"FACTDEBATE_METHODS__NOPE__X": "1"}, "no method named nope"),
])
def test_a_bad_environment_is_one_line_naming_it(environ: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle) as caught:
        load_settings(environ=environ)
    assert "\n" not in str(caught.value)


def test_a_bad_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot read config file .*missing\.yaml"):
        load_settings(tmp_path / "missing.yaml", environ={})
    listed = tmp_path / "list.yaml"
    listed.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match=r"config file .*list\.yaml must hold a mapping"):
        load_settings(listed, environ={})
    broken = tmp_path / "broken.yaml"
    broken.write_text("llm: [\n")
    with pytest.raises(ConfigError, match=r"config file .*broken\.yaml is not valid YAML: line 2, column 1: "):
        load_settings(broken, environ={})
    typo = tmp_path / "typo.yaml"
    typo.write_text("retrieval: {k: 50}\n")
    with pytest.raises(ConfigError, match=r"invalid settings: retrieval\.k: Input should be less than or equal to 20"):
        load_settings(typo, environ={})
