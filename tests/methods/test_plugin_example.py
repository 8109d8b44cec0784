"""Adding a method touches its own module and nothing else: this file registers a small method and finds it
in the settings, the flat options of the API, the CLI flags of ``verify`` and ``eval --dry-run``, the
service's request options and catalogue, the JSON Schema check and the live trace."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest
from pydantic import Field
from typer.testing import CliRunner

import factdebate
from factdebate.core.types import Round, Verdict
from factdebate.methods.base import Method, MethodSettings, register, unregister
from factdebate.methods.kit.turns import answer_turn, end_round, finish
from factdebate.methods.resources import Resources
from factdebate.prompts import render
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings
from factdebate.settings.options import all_options


class EchoSettings(MethodSettings):
    answers: int = Field(default=1, ge=1, le=5, description="Independent answers; the last one counts.")
    voice: Literal["plain", "loud"] = Field(default="plain", description="How the example speaks.")


class Echo(Method[EchoSettings]):
    name = "echo"
    description = "Example plug-in: the single prompt asked N times"
    settings_model = EchoSettings

    def call_bounds(self, settings: Settings) -> tuple[int, int]:
        return self.cfg(settings).answers, 2 * self.cfg(settings).answers

    async def run(self, claim: str, resources: Resources) -> Verdict:
        cfg = self.cfg(resources.settings)
        turns = [await answer_turn(resources.debater, render("single", claim=claim), agent=f"echo-{i}",
                                   role=cfg.voice, round=1) for i in range(1, cfg.answers + 1)]
        rnd = Round(round=1, turns=turns)
        end_round(rnd, consensus=False, final=True)
        return finish(claim, self.name, turns[-1].label, "echo", [rnd])


@pytest.fixture(autouse=True)
def echo() -> Iterator[None]:
    register(Echo)
    yield
    unregister("echo")


def test_settings_and_flat_options_come_from_the_model(tmp_path: Path) -> None:
    config = tmp_path / "fd.yaml"
    config.write_text("methods:\n  echo:\n    answers: 3\n")
    assert load_settings(config, environ={}).methods["echo"].answers == 3
    assert load_settings(environ={"FACTDEBATE_METHODS__ECHO__VOICE": "loud"}).methods["echo"].voice == "loud"
    assert {"echo_answers", "echo_voice"} <= set(all_options())
    with pytest.raises(factdebate.core.errors.ConfigError, match=r"methods\.echo\.answers"):
        load_settings(overrides={"methods": {"echo": {"answers": 9}}}, environ={})


def test_the_api_runs_it_with_its_options() -> None:
    events: list[dict[str, object]] = []
    verdict = factdebate.verify("Paris is the capital of France.", method="echo", echo_answers=2,
                                echo_voice="loud", llm="scripted:agree", cache=False, on_event=events.append)
    assert verdict.method == "echo" and verdict.decided_by == "echo" and verdict.usage.llm_calls == 2
    assert [t.role for t in verdict.rounds[0].turns] == ["loud", "loud"]
    assert verdict.config["methods"]["echo"] == {"answers": 2, "voice": "loud"}
    assert [e["event"] for e in events].count("answer") == 2  # streamed by the shared helpers


def test_the_cli_has_its_flags_in_verify_and_eval(tmp_path: Path) -> None:
    from factdebate.cli.main import app

    runner = CliRunner()
    result = runner.invoke(app, ["verify", "Paris is the capital of France.", "--method", "echo", "--echo-answers",
                                 "2", "--llm", "scripted:agree", "--no-cache", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["usage"]["llm_calls"] == 2
    dry = runner.invoke(app, ["eval", "--method", "echo", "--echo-answers", "3", "--dataset", "countries",
                              "--limit", "2", "--output", str(tmp_path / "run"), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "LLM calls per sample: 3 to 6" in dry.stdout
    listing = runner.invoke(app, ["methods"])
    assert "echo" in listing.stdout and "--echo-answers --echo-voice" in listing.stdout


def test_the_service_offers_it() -> None:
    from factdebate.server.catalogue import catalogue
    from factdebate.server.options import VerifyOptions

    options = VerifyOptions.model_validate({"method": "echo", "echo_answers": 2})
    assert options.chosen() == {"method": "echo", "echo_answers": 2}
    info = catalogue(load_settings(environ={}), ["scripted:agree"], False)
    (echo,) = [m for m in info.methods if m.name == "echo"]
    assert [o.name for o in echo.options] == ["echo_answers", "echo_voice"]
    assert echo.options[0].value_schema["maximum"] == 5 and echo.options[1].value_schema["enum"] == ["plain", "loud"]
