"""Settings written before the method plug-ins load into their new places; a name with no new place fails
with a message that points to where the method settings live now."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.settings.load import load_settings, settings_from
from factdebate.util.errors import ConfigError


def test_an_old_config_file_loads_into_the_new_places(tmp_path: Path) -> None:
    config = tmp_path / "old.yaml"
    config.write_text("toolmad:\n  rounds: 2\n  k: 4\n  max_doc_chars: 500\n  agents: [rag, none]\n"
                      "baselines:\n  react_max_steps: 7\n  mad_rounds: 4\n  madke_tools: [rag]\n"
                      "  vote_samples: 9\n  vote_temperature: 0.3\n")
    settings = load_settings(config, environ={})
    methods = settings.methods
    assert (methods["tool-mad"].rounds, methods["tool-mad"].agents) == (2, ["rag", "none"])
    assert (settings.retrieval.k, settings.retrieval.max_doc_chars) == (4, 500)
    assert methods["react"].max_steps == 7 and methods["mad"].rounds == 4 and methods["madke"].rounds == 4
    assert methods["madke"].tools == ["rag"] and (methods["vote"].samples, methods["vote"].temperature) == (9, 0.3)


def test_new_names_win_over_old_ones_within_a_layer_and_layers_keep_their_order(tmp_path: Path) -> None:
    config = tmp_path / "mixed.yaml"
    config.write_text("toolmad: {rounds: 2}\nmethods: {tool-mad: {rounds: 5}}\n")
    assert load_settings(config, environ={}).methods["tool-mad"].rounds == 5
    env = {"FACTDEBATE_TOOLMAD__ROUNDS": "4"}
    assert load_settings(config, environ=env).methods["tool-mad"].rounds == 4  # env above the file


def test_old_flat_options_still_work() -> None:
    settings = settings_from({"mad_rounds": 2, "react_max_steps": 3, "vote_samples": 4, "madke_tools": ["search"],
                              "rounds": 1, "k": 6})
    methods = settings.methods
    assert methods["mad"].rounds == methods["madke"].rounds == 2 and methods["react"].max_steps == 3
    assert methods["vote"].samples == 4 and methods["madke"].tools == ["search"]
    assert methods["tool-mad"].rounds == 1 and settings.retrieval.k == 6


def test_a_name_with_no_new_place_says_where_to_look() -> None:
    with pytest.raises(ConfigError, match=r"baselines\.judge_rounds .*methods\.<name>"):
        load_settings(overrides={"baselines": {"judge_rounds": 2}}, environ={})
    with pytest.raises(ConfigError, match="no method named nope"):
        load_settings(overrides={"methods": {"nope": {"rounds": 1}}}, environ={})
