"""``medical.search`` swaps the search agent's engine for the scholarly pipeline in every entry point
(verify, batch, service, eval), not only in evaluation."""

from __future__ import annotations

import json

import pytest

from factdebate.api import averify
from factdebate.llm.scripted_library import scripted_backend
from factdebate.run.build import make_tool
from factdebate.settings.load import load_settings
from factdebate.tools.openalex import OpenAlexTool
from factdebate.tools.pubmed import PubMedTool
from factdebate.tools.scholar import ScholarPipeline
from factdebate.util.errors import ConfigError
from tests.paths import FIXTURES
from tests.recorded_http import RecordedServer, answer

FIXTURE = FIXTURES / "http" / "openalex_works.json"


def test_make_tool_builds_the_scholarly_pipeline_and_needs_the_debater() -> None:
    settings = load_settings(overrides={"medical": {"search": "pubmed"}}, environ={})
    with pytest.raises(ConfigError, match="debater model"):
        make_tool("search", settings)
    plain = load_settings(environ={})
    assert not isinstance(make_tool("search", plain), ScholarPipeline)


async def test_verify_uses_openalex_abstracts_for_the_search_agent(recorded: RecordedServer,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(OpenAlexTool, "default_url", recorded.url)  # the engine the settings build, served here
    route = recorded.get("/works", answer(json=json.loads(FIXTURE.read_text())))
    backend = scripted_backend("agree")
    verdict = await averify("Vitamin C prevents the common cold.", agents=["search", "none"], rounds=1,
                            medical_search="openalex", cache=False,
                            backends={"debater": backend, "judge": backend, "scorer": backend})
    assert route.called
    search_turn = verdict.rounds[0].turns[0]
    assert search_turn.agent.startswith("search")
    assert [d.title for d in search_turn.evidence] == ["Vitamin C for preventing and treating the common cold",
                                                       "Zinc lozenges and the duration of common cold symptoms"]
    assert verdict.config["medical"]["search"] == "openalex"


def test_scholarly_inner_tools_by_setting() -> None:
    from factdebate.llm import LLM

    llm = LLM(scripted_backend("agree"), "debater")
    for engine, inner in (("openalex", OpenAlexTool), ("pubmed", PubMedTool)):
        settings = load_settings(overrides={"medical": {"search": engine}}, environ={})
        tool = make_tool("search", settings, llm)
        assert isinstance(tool, ScholarPipeline) and isinstance(tool.inner, inner)
