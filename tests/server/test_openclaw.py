"""The OpenClaw plug-in (integrations/openclaw) against a real ``factdebate serve``, its hooks called by the real
Node 24 as OpenClaw calls them (tests/server/openclaw_drive.mjs).

It needs ``scripts/openclaw-for-tests.sh`` to have installed Node 24 and OpenClaw (650 MB, 1-2 minutes, so not
part of ``make test``); until then it is skipped, saying so. Slow (about 30 s on a loaded 2-core machine, almost
all of it ``factdebate serve`` starting; the eight scenarios take 3 s in one Node process). The plug-in inside
OpenClaw's own gateway is not tested here: ``openclaw gateway run`` took 60 s to come up and 40 s per turn on
this machine (docs/guard/openclaw.md says what was tried by hand)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.paths import ROOT
from tests.server.conftest import free_port
from tests.server.test_commands import EXE, _env, _wait_until_up

OPENCLAW_VERSION = "2026.9.6"
INSTALL = Path(os.environ.get("FACTDEBATE_OPENCLAW_DIR",
                              Path.home() / ".cache" / "factdebate" / f"openclaw-{OPENCLAW_VERSION}"))
NODE = INSTALL / "node" / "node_modules" / "node" / "bin" / "node"
OPENCLAW = INSTALL / "claw" / "node_modules" / "openclaw" / "openclaw.mjs"
PLUGIN = ROOT / "integrations" / "openclaw"
KEY = "plugin-key-0123456789"
WRONG = "The Eiffel Tower is in Berlin."
# The scripted checker refutes every claim it is given, so the revision that passes is one with no claim in it.
REVISED = "Thanks for asking!"
PASSAGE = {"title": "Eiffel Tower", "text": "The Eiffel Tower is in Paris. It was completed in 1889."}

pytestmark = pytest.mark.skipif(not (NODE.exists() and OPENCLAW.exists()),
                                reason="Node 24 and OpenClaw are not installed: run scripts/openclaw-for-tests.sh")


@pytest.fixture(scope="module")
def factdebate_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``factdebate serve`` whose scripted checker refutes what the given passage does not say."""
    tmp = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = _env(tmp, FACTDEBATE_API_KEYS=KEY, FACTDEBATE_LLM="scripted:disagree", FACTDEBATE_GUARD__MAX_TIER="fast",
               FACTDEBATE_GUARD__TIER="fast", FACTDEBATE_LLM__CACHE="false")
    # --agents none,none: no search engine to index at start; the plug-in sends the evidence.
    process = subprocess.Popen([EXE, "serve", "--port", str(port), "--agents", "none,none", "--no-scoring"],
                               env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process, 90)
        yield url
    finally:
        process.terminate()
        process.wait(30)


def _config(url: str, policy: str, **extra: Any) -> dict[str, Any]:
    return {"baseUrl": url, "apiKey": KEY, "policy": policy, "tier": "fast", "deadlineS": 30,
            "evidence": [PASSAGE], "evidenceMode": "given", **extra}


def test_the_plugin_footnotes_revises_and_refuses_under_real_node(factdebate_url: str) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    scenarios = [
        {"name": "flag", "config": _config(factdebate_url, "flag"), "answers": [WRONG]},
        {"name": "rewrite", "config": _config(factdebate_url, "rewrite"), "answers": [WRONG, REVISED]},
        {"name": "stubborn", "config": _config(factdebate_url, "rewrite"), "answers": [WRONG, WRONG]},
        {"name": "block", "config": _config(factdebate_url, "block"), "answers": [WRONG]},
        {"name": "heartbeat", "config": _config(factdebate_url, "block"), "answers": [WRONG],
         "trigger": "heartbeat"},
        {"name": "toolonly", "config": _config(factdebate_url, "block"), "answers": [""]},
        {"name": "closed", "config": _config(closed, "flag", failClosed=True), "answers": [WRONG]},
        {"name": "open", "config": _config(closed, "block"), "answers": [WRONG]},
    ]
    done = subprocess.run([str(NODE), str(ROOT / "tests" / "server" / "openclaw_drive.mjs"), json.dumps(scenarios),
                           str(PLUGIN / "index.js")], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    turns = {turn["name"]: turn for turn in json.loads(done.stdout)}

    flag = turns["flag"]
    assert flag["shown"].startswith(WRONG) and "Fact check:" in flag["shown"] and "Paris" in flag["shown"]
    assert flag["decisions"] == [None]  # nothing asked of the agent

    rewrite = turns["rewrite"]
    asked = rewrite["decisions"][0]
    assert asked["action"] == "revise" and WRONG in asked["retry"]["instruction"]
    assert '"The Eiffel Tower is in Paris"' in asked["retry"]["instruction"]  # the passage against it
    assert "Correction: The Eiffel Tower is in Paris" in asked["retry"]["instruction"]
    assert rewrite["decisions"][1] is None and rewrite["shown"] == REVISED  # the revision, checked again: clean

    stubborn = turns["stubborn"]  # one revision only; one still wrong goes out footnoted
    assert [d and d["action"] for d in stubborn["decisions"]] == ["revise", None]
    assert stubborn["shown"].startswith(WRONG) and "Fact check:" in stubborn["shown"]

    block = turns["block"]
    assert block["shown"].startswith("This answer was withheld") and WRONG in block["shown"]

    for skipped in ("heartbeat", "toolonly"):
        assert turns[skipped]["checked"] == 0 and turns[skipped]["decisions"] == [None]
    assert turns["heartbeat"]["shown"] == WRONG

    closed_turn = turns["closed"]["shown"]
    assert closed_turn.startswith("This answer was withheld: it could not be fact-checked")
    assert "Berlin" not in closed_turn
    assert turns["open"]["shown"].startswith(WRONG) and "Not fact-checked: factdebate could not be reached" in \
        turns["open"]["shown"]
