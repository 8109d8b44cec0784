"""Roles as a map (any role a method names, falling back to the debater's model) and services with an async
lifecycle on Resources."""

from __future__ import annotations

from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.resources import Services
from factdebate.run.build import build_resources
from factdebate.settings.load import load_settings
from tests.helpers import BagOfWordsEncoder


def _backend(text: str) -> ScriptedBackend:
    return ScriptedBackend(lambda call, messages, params: text)


def test_roles_map_to_models_and_fall_back_to_the_debater() -> None:
    settings = load_settings(overrides={"llm": {"debater": "scripted:agree", "judge": "scripted:disagree",
                                                "roles": {"judge-2": "scripted:echo"}, "cache": False}},
                             environ={})
    assert settings.llm_for("judge-2") == "scripted:echo" and settings.llm_for("judge") == "scripted:disagree"
    assert settings.llm_for("moderator") == "scripted:agree"  # unnamed roles use the debater's model
    debater, other = _backend("d"), _backend("o")
    resources = build_resources(settings, backends={"debater": debater, "judge-2": other},
                                encoder_factory=BagOfWordsEncoder)
    assert resources.llm("moderator").backend is debater and resources.llm("moderator").role == "moderator"
    assert resources.llm("judge-2").backend is other and resources.llm("judge-2") is resources.llm("judge-2")
    assert resources.llm("judge").backend.name != debater.name  # its own model: scripted:disagree


def test_the_old_flags_are_shorthands_for_roles() -> None:
    settings = load_settings(overrides={"llm": {"judge": "openai:j", "roles": {"judge": "openai:k"}}}, environ={})
    assert settings.llm_for("judge") == "openai:k"  # the map wins over the shorthand
    assert load_settings(environ={"FACTDEBATE_SCORER_LLM": "openai:s"}).llm_for("scorer") == "openai:s"


class Memory:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def aopen(self) -> None:
        self.log.append("open")

    async def aclose(self) -> None:
        self.log.append("close")


async def test_services_open_once_and_close_with_the_resources() -> None:
    log: list[str] = []
    settings = load_settings(overrides={"llm": {"debater": "scripted:agree", "cache": False}}, environ={})
    shared = Services()
    first = build_resources(settings, encoder_factory=BagOfWordsEncoder, services=shared)
    second = build_resources(settings, encoder_factory=BagOfWordsEncoder, services=shared)
    async with first:
        one = await first.service("memory", lambda: Memory(log))
        two = await second.service("memory", lambda: Memory(log))
        assert one is two and log == ["open"] and "memory" in shared
    assert log == ["open", "close"] and "memory" not in shared
