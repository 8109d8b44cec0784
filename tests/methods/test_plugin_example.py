"""A new method is one folder: ``src/factdebate/methods/parrot/`` (its settings, its prompt file, its own
trace event, its scripted replies, its page view and its call probe) plus ``docs/methods/parrot.md``, and
no other file of ``src/`` names it. Registered, it is found in the settings, the flat options of the API,
the CLI flags of ``verify`` and ``eval --dry-run``, the service's request options and catalogue, the JSON
Schemas of a verdict and of a trace line, the trace, the terminal, the scripted backend and the call
bounds check. The example ships unregistered, so users' method lists stay real: this file registers it."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from pydantic import ValidationError
from rich.console import Console
from typer.testing import CliRunner

import factdebate
from factdebate.cli.render import LiveDebate
from factdebate.core.events import parse_event
from factdebate.core.types import Verdict
from factdebate.llm import make_backend
from factdebate.llm.base import GenParams
from factdebate.llm.calls import CallInfo, reset_call, set_call
from factdebate.methods.base import Method, register, unregister
from factdebate.methods.parrot.method import Parrot, ParrotTally
from factdebate.prompts import render, template_path
from factdebate.settings.load import load_settings
from factdebate.settings.options import all_options
from factdebate.util.errors import ConfigError
from tests.methods.test_call_bounds import lower_bound_holds, upper_bound_is_reached

ROOT = Path(__file__).parents[2]
FOLDER = ROOT / "src" / "factdebate" / "methods" / "parrot"
CLAIM = "Paris is the capital of France."


@pytest.fixture
def parrot() -> Iterator[None]:
    register(Parrot)
    yield
    unregister("parrot")


def test_only_its_folder_names_it() -> None:
    # The package's files only: an install's build metadata (src/*.egg-info/SOURCES.txt) lists every file.
    mentions = {path.relative_to(ROOT).as_posix() for path in (ROOT / "src" / "factdebate").rglob("*")
                if path.is_file() and "__pycache__" not in path.parts
                and re.search(rb"parrot", path.read_bytes(), re.I)}
    assert mentions and all(m.startswith("src/factdebate/methods/parrot/") for m in mentions), mentions
    assert {"src/factdebate/methods/parrot/method.py", "src/factdebate/methods/parrot/prompts/parrot.j2"} <= mentions
    assert (ROOT / "docs" / "methods" / "parrot.md").is_file()


def test_the_page_names_no_method() -> None:
    """Layouts are picked by the view each method declares (``Method.view``, served by GET /v1/views); the
    upgrade of schema-1 verdicts, which knows old methods' shapes by name, is the server's (core/schema.py)."""
    static = ROOT / "src" / "factdebate" / "server" / "static"
    # a method's name compared, not its type checked (typeof v.method === "string")
    compared = re.compile(r"method\s*[!=]==\s*[\"'](?!(string|object|undefined)[\"'])")
    named = {path.name for path in static.rglob("*.js") if compared.search(path.read_text(encoding="utf-8"))}
    assert named == set()


def test_the_folder_is_found_but_the_example_is_not_listed() -> None:
    assert "parrot" not in Method.registered()
    assert "factdebate.methods.parrot.method" in sys.modules  # discovery walks a new folder like any other
    assert template_path("parrot").parent == FOLDER / "prompts"  # and its prompts are found by name
    assert "This is answer 2 of 3" in render("parrot", claim=CLAIM, voice="plain", attempt=2, answers=3).text


@pytest.mark.usefixtures("parrot")
def test_settings_and_flat_options_come_from_its_model(tmp_path: Path) -> None:
    config = tmp_path / "fd.yaml"
    config.write_text("methods:\n  parrot:\n    answers: 3\n")
    assert load_settings(config, environ={}).methods["parrot"].answers == 3
    assert load_settings(environ={"FACTDEBATE_METHODS__PARROT__VOICE": "loud"}).methods["parrot"].voice == "loud"
    assert {"parrot_answers", "parrot_voice"} <= set(all_options())
    with pytest.raises(ConfigError, match=r"methods\.parrot\.answers"):
        load_settings(overrides={"methods": {"parrot": {"answers": 9}}}, environ={})


@pytest.mark.usefixtures("parrot")
def test_the_api_runs_it_and_the_trace_carries_its_own_event() -> None:
    events: list[dict[str, object]] = []
    verdict = factdebate.verify(CLAIM, method="parrot", parrot_answers=2, parrot_voice="loud", llm="scripted:agree",
                                cache=False, on_event=events.append)
    assert verdict.method == "parrot" and verdict.decided_by == "parrot" and verdict.usage.llm_calls == 2
    assert [t.role for t in verdict.rounds[0].turns] == ["loud", "loud"]
    assert verdict.config["methods"]["parrot"] == {"answers": 2, "voice": "loud"}
    assert [e["prompt"] for e in events if e["event"] == "llm_call"] == ["parrot", "parrot"]
    assert [e["event"] for e in events].count("answer") == 2  # streamed by the shared helpers
    (tally,) = [e for e in events if e["event"] == "parrot_tally"]
    assert tally["labels"] == ["SUPPORTS", "SUPPORTS"] and tally["agreed"] is True
    assert isinstance(parse_event(tally), ParrotTally)
    jsonschema.validate(json.loads(verdict.model_dump_json()), Verdict.model_json_schema())


@pytest.mark.usefixtures("parrot")
async def test_the_scripted_backend_answers_its_prompt_with_its_own_reply() -> None:
    prompt = render("parrot", claim=CLAIM, voice="plain", attempt=2, answers=2)
    for behaviour, label in (("agree", "SUPPORTS"), ("disagree", "REFUTES")):
        token = set_call(CallInfo(agent="parrot-2", prompt="parrot"))
        try:
            reply = await make_backend(f"scripted:{behaviour}").complete(
                [{"role": "user", "content": prompt.text}], GenParams())
        finally:
            reset_call(token)
        assert reply.text == f"I have heard that Paris is the capital of France.\n{label}"
    verdict = await factdebate.averify(CLAIM, method="parrot", parrot_answers=2, llm="scripted:disagree",
                                       cache=False)
    assert verdict.label is not None and verdict.label.value == "REFUTES"  # the last answer counts


@pytest.mark.usefixtures("parrot")
def test_the_cli_has_its_flags_in_verify_and_eval(tmp_path: Path) -> None:
    from factdebate.cli.main import app

    runner = CliRunner()
    result = runner.invoke(app, ["verify", CLAIM, "--method", "parrot", "--parrot-answers", "2", "--llm",
                                 "scripted:agree", "--no-cache", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["usage"]["llm_calls"] == 2
    dry = runner.invoke(app, ["eval", "--method", "parrot", "--parrot-answers", "3", "--dataset", "countries",
                              "--limit", "2", "--output", str(tmp_path / "run"), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "LLM calls per sample: 3 to 6" in dry.stdout
    listing = runner.invoke(app, ["methods"])
    assert "EXAMPLE" in listing.stdout and "--parrot-answers --parrot-voice" in listing.stdout
    schema = json.loads(runner.invoke(app, ["schema", "--events"]).stdout)
    assert "parrot_tally" in schema["discriminator"]["mapping"]


@pytest.mark.usefixtures("parrot")
def test_the_service_offers_it_with_its_view() -> None:
    from factdebate.server.catalogue import catalogue
    from factdebate.server.options import VerifyOptions

    options = VerifyOptions.model_validate({"method": "parrot", "parrot_answers": 2})
    assert options.chosen() == {"method": "parrot", "parrot_answers": 2}
    info = catalogue(load_settings(environ={}), ["scripted:agree"], False)
    (parrot,) = [m for m in info.methods if m.name == "parrot"]
    assert [o.name for o in parrot.options] == ["parrot_answers", "parrot_voice"]
    assert parrot.options[0].value_schema["maximum"] == 5 and parrot.options[1].value_schema["enum"] == ["plain",
                                                                                                          "loud"]
    assert parrot.view.layout == "debate"
    assert {m.name: m.view.layout for m in info.methods if m.view.layout != "debate"} == {"dpd": "teams",
                                                                                          "mermaid": "timeline"}


@pytest.mark.usefixtures("parrot")
def test_the_terminal_prints_its_event() -> None:
    out = io.StringIO()
    factdebate.verify(CLAIM, method="parrot", parrot_answers=2, llm="scripted:disagree", cache=False,
                      on_event=LiveDebate(Console(file=out, width=120), CLAIM))
    assert "parrot: SUPPORTS, REFUTES (split)" in out.getvalue()


@pytest.mark.usefixtures("parrot")
async def test_its_call_bounds_hold_by_its_own_probe() -> None:
    await upper_bound_is_reached("parrot")
    await lower_bound_holds("parrot")


def test_unregistering_forgets_it_everywhere(parrot: None) -> None:
    unregister("parrot")
    from factdebate.llm.scripted_library import REPLIES

    assert "parrot" not in Method.registered() and "parrot" not in REPLIES and "parrot_answers" not in all_options()
    with pytest.raises(ValidationError):
        parse_event({"event": "parrot_tally", "labels": []})
    with pytest.raises(ConfigError, match="parrot"):
        load_settings(overrides={"methods": {"parrot": {"answers": 2}}}, environ={})
