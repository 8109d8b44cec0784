"""``Settings.over`` with the operator's sections already validated: a section the overrides leave alone is the
operator's own object; one they change, by its name or with underscores, is validated again with the change in
it."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.settings.model import Settings
from factdebate.util.errors import ConfigError

OPERATOR = Settings.model_validate({"methods": {"tool-mad": {"rounds": 4}, "dpd": {"max_rounds": 3}}})
BASE = OPERATOR.model_dump(mode="json")


def over(nested: dict[str, Any]) -> Settings:
    return Settings.over(BASE, nested, OPERATOR.methods)


def test_a_section_left_alone_is_the_operators_own() -> None:
    settings = over({"method": "dpd"})
    assert settings.method == "dpd"
    assert all(settings.methods[name] is section for name, section in OPERATOR.methods.items())


@pytest.mark.parametrize("nested", [{"methods": {"tool-mad": {"rounds": 2}}},
                                    {"methods": {"tool_mad": {"rounds": 2}}}], ids=["name", "underscores"])
def test_a_changed_section_is_validated_with_the_change(nested: dict[str, Any]) -> None:
    settings = over(nested)
    assert settings.methods["tool-mad"].rounds == 2
    assert settings.methods["tool-mad"] is not OPERATOR.methods["tool-mad"]
    assert settings.methods["dpd"] is OPERATOR.methods["dpd"]


def test_a_changed_section_out_of_bounds_is_refused_in_words() -> None:
    with pytest.raises(ConfigError, match=r"methods\.dpd: min_rounds \(3\) exceeds max_rounds \(2\)"):
        over({"methods": {"dpd": {"min_rounds": 3, "max_rounds": 2}}})
