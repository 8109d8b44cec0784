"""Callers of the service reach an operator's MCP server only through the operator's allow-list
(``allowed_mcp_tools``, empty by default), and a refusal names no server the caller may not use."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from factdebate.run.build import build_resources, make_tool
from factdebate.server.config import ServiceConfig
from factdebate.settings.model import Settings
from tests.helpers import BagOfWordsEncoder
from tests.server.conftest import AUTH, PLAIN, AppFactory

TOKEN = "ghp_operatorOnlyToken42"
SERVER = Path(__file__).with_name("secret_mcp_server.py")


@pytest.fixture
def operator_config(tmp_path: Path) -> tuple[Path, Path]:
    """Settings naming two MCP servers, one holding a token; and the file its start would create."""
    mark = tmp_path / "secretsrv-started"
    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump({"mcp_servers": {
        "secretsrv": {"command": sys.executable, "args": [str(SERVER), str(mark)], "env": {"GITHUB_TOKEN": TOKEN}},
        "internalwiki": {"command": sys.executable, "args": [str(SERVER), str(mark)]}}}), encoding="utf-8")
    return path, mark


def _build(settings: Settings, backend: object = None) -> object:
    # Scripted models; MCP tools built for real (the server process is started on first search).
    return build_resources(settings, tool_factory=lambda kind: make_tool(kind, settings),
                           encoder_factory=BagOfWordsEncoder)


@pytest.mark.parametrize("option", [{"agents": ["none", "mcp:secretsrv/lookup"]},
                                    {"method": "madke", "madke_tools": ["mcp:secretsrv/lookup"]},
                                    {"method": "factool", "factool_tool": "mcp:secretsrv/lookup"},
                                    {"method": "wecheck", "wecheck_tool": "mcp:secretsrv/lookup"},
                                    {"agents": ["none", "mcp:nosuch/lookup"]}])
def test_a_caller_names_no_mcp_tool_off_the_allow_list(make_app: AppFactory, operator_config: tuple[Path, Path],
                                                      option: dict[str, object]) -> None:
    config, mark = operator_config
    with TestClient(make_app(config_file=config, build=_build)) as client:
        answer = client.post("/v1/verify", json={"claim": "Paris is in France.", **option}, headers=AUTH)
        streamed = client.post("/v1/verify/stream", json={"claim": "Paris is in France.", **option}, headers=AUTH)
        batch = client.post("/v1/batches", params=option, content='"Paris is in France."', headers=AUTH)
    for reply in (answer, streamed):
        assert reply.status_code == 422, reply.text
        assert "not offered to callers" in reply.text
        # Neither the configured server names nor the token: only what the caller sent comes back.
        assert "internalwiki" not in reply.text and TOKEN not in reply.text
    assert batch.status_code in (400, 422), batch.text
    assert "internalwiki" not in batch.text
    assert not mark.exists(), "the service started the operator's MCP server for a caller"


def test_an_allowed_mcp_tool_reaches_its_server(make_app: AppFactory, operator_config: tuple[Path, Path]) -> None:
    config, mark = operator_config
    app = make_app(config_file=config, build=_build, allowed_mcp_tools=["mcp:secretsrv/lookup"],
                   defaults={**PLAIN, "scoring": False})
    with TestClient(app) as client:
        allowed = client.post("/v1/verify", json={"claim": "Paris is in France.", "rounds": 1,
                                                  "agents": ["none", "mcp:secretsrv/lookup"]}, headers=AUTH)
        other = client.post("/v1/verify", json={"claim": "Paris is in France.",
                                                "agents": ["none", "mcp:internalwiki/lookup"]}, headers=AUTH)
    assert allowed.status_code == 200, allowed.text
    assert mark.exists()  # the operator allowed it: the server ran and its tool answered
    assert "for " in str(allowed.json()["rounds"])  # the tool's answer is the agent's evidence
    assert other.status_code == 422 and "offered: mcp:secretsrv/lookup" in other.text


def test_allow_list_entries_are_checked() -> None:
    assert ServiceConfig(allowed_mcp_tools=["mcp:srv/*"]).allowed_mcp_tools == ["mcp:srv/*"]
    with pytest.raises(ValueError, match="mcp:<server>/<tool>"):
        ServiceConfig(allowed_mcp_tools=["secretsrv"])


@pytest.mark.parametrize("tool, arguments", [
    ("search_evidence", {"query": "Paris", "tool": "mcp:secretsrv/lookup"}),
    ("verify_claim", {"claim": "Paris is in France.", "agents": ["none", "mcp:secretsrv/lookup"]})])
async def test_the_mcp_faces_tools_take_the_same_allow_list(operator_config: tuple[Path, Path], tool: str,
                                                            arguments: dict[str, object]) -> None:
    pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")
    from mcp.server.mcpserver.exceptions import ToolError

    from factdebate.server.mcp.server import build_server

    config, mark = operator_config
    with pytest.raises(ToolError, match="not offered to callers") as info:
        await build_server(config).call_tool(tool, arguments)
    assert "internalwiki" not in str(info.value) and TOKEN not in str(info.value)
    assert not mark.exists(), "factdebate mcp started the operator's MCP server for a caller"
