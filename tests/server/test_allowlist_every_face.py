"""One allow-list decision for every way a caller's run can reach an operator's MCP server.

MERMAID offers its executor every configured server, without naming one: ``{"method": "mermaid"}`` used to
start an operator-only server and return its token in the evidence. Every method is walked through every
face (``/v1/verify``, ``/v1/verify/stream``, ``/v1/batches``, ``/v1/guard/check``, ``factdebate mcp``'s
``verify_claim``) with two operator servers: ``secretsrv`` (holding a token, not on the allow-list) and
``opensrv`` (on it). The token never comes back and ``secretsrv`` is never started; MERMAID still runs, on
the server the operator offers. The operator's own runs (the CLI's settings) keep every configured server."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from factdebate.methods.base import METHODS
from factdebate.methods.mermaid.toolbox import build_toolbox
from factdebate.server.options import SettingsResolver
from factdebate.settings.load import load_settings
from factdebate.settings.options import Option
from tests.readiness import run as run_to_end
from tests.server.conftest import AUTH, PLAIN, AppFactory, offline_build, parse_sse

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

TOKEN = "ghp_operatorOnlyToken45"
SERVER = Path(__file__).parent / "mcp" / "operator_mcp_server.py"
CLAIM = "Paris is in France."


def _server(name: str, mark: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER), name, str(mark)], "env": env or {}}


@pytest.fixture
def marks(tmp_path: Path) -> dict[str, Path]:
    return {"secretsrv": tmp_path / "secretsrv-started", "opensrv": tmp_path / "opensrv-started"}


@pytest.fixture
def operator_config(tmp_path: Path, marks: dict[str, Path]) -> Path:
    """The operator's settings: scripted models, no retrieval, MERMAID with no shipped server and no memory,
    and two MCP servers, the token holder first (so that an executor offered both would search it first)."""
    settings = Option.overrides(PLAIN)
    settings.setdefault("methods", {})["mermaid"] = {"servers": [], "memory": "off"}
    settings["mcp_servers"] = {"secretsrv": _server("secretsrv", marks["secretsrv"], {"GITHUB_TOKEN": TOKEN}),
                               "opensrv": _server("opensrv", marks["opensrv"])}
    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump(settings, sort_keys=False), encoding="utf-8")
    return path


def _http_faces(client: TestClient, method: str, wait_for: Callable[..., None]) -> dict[str, str]:
    """What each HTTP face answers to a request that only chooses ``method``."""
    answers = {"verify": client.post("/v1/verify", json={"claim": CLAIM, "method": method}, headers=AUTH),
               "stream": client.post("/v1/verify/stream", json={"claim": CLAIM, "method": method}, headers=AUTH),
               "guard": client.post("/v1/guard/check", headers=AUTH, json={
                   "text": CLAIM, "factdebate": {"method": method, "tier": "standard"}})}
    texts = {name: reply.text for name, reply in answers.items()}
    batch = client.post("/v1/batches", params={"method": method}, content=json.dumps(CLAIM), headers=AUTH)
    texts["batch"] = batch.text
    if batch.status_code in (200, 201, 202):
        url = f"/v1/batches/{batch.json()['id']}"
        wait_for(lambda: client.get(url, headers=AUTH).json()["status"] in ("done", "failed"), timeout=60)
        texts["batch"] += client.get(f"{url}/results", headers=AUTH).text
    for name, reply in answers.items():
        assert reply.status_code != 500, (name, reply.text)
    return texts


async def _mcp_face(config: Path, method: str) -> str:
    from mcp.server.mcpserver.exceptions import ToolError

    from factdebate.scale.resource_pool import ResourcePool
    from factdebate.server.mcp.server import build_server

    server = build_server(config, pool=ResourcePool(2, offline_build))
    try:
        return str(await server.call_tool("verify_claim", {"claim": CLAIM, "method": method}))
    except ToolError as exc:
        return str(exc)


@pytest.mark.parametrize("method", sorted(METHODS))
async def test_no_method_reaches_an_operator_only_server_on_any_face(
        make_app: AppFactory, operator_config: Path, marks: dict[str, Path], method: str,
        wait_for: Callable[..., None]) -> None:
    app = make_app(config_file=operator_config, defaults={}, allowed_mcp_tools=["mcp:opensrv/*"],
                   rate_limit_per_minute=0)
    with TestClient(app) as client:
        texts = _http_faces(client, method, wait_for)
    texts["mcp"] = await _mcp_face(operator_config, method)
    for face, text in texts.items():
        assert TOKEN not in text, f"{method} via {face} returned the operator's token"
        assert "secretsrv" not in text, f"{method} via {face} named the operator-only server"
    assert not marks["secretsrv"].exists(), f"{method} started the operator-only server for a caller"
    if method == "mermaid":  # not vacuous: MERMAID ran, on the server the operator offers
        assert marks["opensrv"].exists()
        assert "search_opensrv" in texts["verify"], texts["verify"]


def test_a_listed_servers_other_tools_are_not_offered(make_app: AppFactory, operator_config: Path,
                                                     marks: dict[str, Path]) -> None:
    app = make_app(config_file=operator_config, defaults={}, allowed_mcp_tools=["mcp:opensrv/search_opensrv"])
    with TestClient(app) as client:
        reply = client.post("/v1/verify/stream", headers=AUTH,
                            json={"claim": CLAIM, "method": "mermaid", "transcript": True})
    assert reply.status_code == 200, reply.text
    prompts = " ".join(json.dumps(data.get("messages", "")) for name, data in parse_sse(reply.text)
                       if name == "llm_call")
    assert "search_opensrv" in prompts  # the executor's prompt lists the tools it is offered
    assert "read_opensrv" not in prompts and "secretsrv" not in reply.text
    assert not marks["secretsrv"].exists()


def test_callers_settings_hold_only_callable_servers_and_the_operators_hold_all(operator_config: Path) -> None:
    # The service's settings: the unlisted server is gone, the listed one narrowed to its listed tool.
    served = SettingsResolver({}, operator_config, [], allowed_mcp_tools=["mcp:opensrv/read_opensrv"]).base
    assert list(served.mcp_servers) == ["opensrv"] and served.mcp_servers["opensrv"].tools == ["read_opensrv"]
    assert SettingsResolver({}, operator_config, []).base.mcp_servers == {}
    # An operator's own default agent keeps its server (for that tool only), as before.
    named = SettingsResolver({"agents": ["mcp:secretsrv/read_secretsrv", "none"]}, operator_config, []).base
    assert list(named.mcp_servers) == ["secretsrv"] and named.mcp_servers["secretsrv"].tools == ["read_secretsrv"]
    # The CLI's settings (the operator's own runs): MERMAID gets every configured server, every tool.
    own = load_settings(operator_config, environ={})
    assert [toolset.name for toolset in build_toolbox(own, []).toolsets] == ["secretsrv", "opensrv"]
    assert all(server.tools is None for server in own.mcp_servers.values())


async def test_factdebate_mcp_offers_an_operator_server_only_when_allowed(operator_config: Path,
                                                                         marks: dict[str, Path]) -> None:
    """``factdebate mcp --allow-mcp-tool``: the stdio server's operator names what its callers may reach."""
    from factdebate.scale.resource_pool import ResourcePool
    from factdebate.server.mcp.server import build_server

    server = build_server(operator_config, pool=ResourcePool(2, offline_build), allowed_mcp_tools=["mcp:opensrv/*"])
    text = str(await server.call_tool("verify_claim", {"claim": CLAIM, "method": "mermaid"}))
    assert marks["opensrv"].exists() and "search_opensrv" in text, text
    assert TOKEN not in text and not marks["secretsrv"].exists()
    with pytest.raises(ValueError, match="must look like mcp:<server>/<tool>"):
        build_server(operator_config, allowed_mcp_tools=["secretsrv"])


def test_mcp_command_refuses_a_malformed_allow_entry_in_one_line(tmp_path: Path) -> None:
    import subprocess

    from tests.server.test_commands import EXE, _env

    done = run_to_end([EXE, "mcp", "--allow-mcp-tool", "secretsrv"], env=_env(tmp_path), stdin=subprocess.DEVNULL,
                      what="factdebate mcp with a bad --allow-mcp-tool")
    assert done.returncode == 2, done.stderr
    assert "--allow-mcp-tool" in done.stderr and "mcp:<server>/<tool>" in done.stderr, done.stderr
