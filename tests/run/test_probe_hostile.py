"""The start-up probe (run/model_servers.py) and the per-call /props ask (llm/server_slots.py) against servers
that flood or trickle (tests/hostile_server.py): each returns within its deadline, having read no more than its
limit, so a broken server beside the service cannot keep ``serve`` from listening or ``verify`` from running."""

from __future__ import annotations

import time

import pytest

from factdebate.llm import server_slots
from factdebate.run import model_servers
from factdebate.settings.model import Settings
from tests.hostile_server import HostileServer

BUFFERS = 8 << 20


def settings_for(url: str) -> Settings:
    return Settings.model_validate({"llm": {"base_urls": [url], "debater": "openai:m"}})


@pytest.mark.parametrize("kind", ["flood", "lying_length", "gzip_bomb", "trickle", "trickle_head"])
def test_the_probe_of_a_hostile_server_ends_in_time_and_says_why(kind: str) -> None:
    with HostileServer(kind, pause=0.2) as server:
        started = time.monotonic()
        [answer] = model_servers.ask_servers(settings_for(server.url), timeout=1.0)
        assert time.monotonic() - started < 4
        assert answer.outcome in ("error", "unreachable"), answer
        time.sleep(0.2)
        assert server.sent <= model_servers.MODEL_LIST_BYTES + BUFFERS


@pytest.mark.parametrize("kind", ["flood", "trickle_head", "trickle"])
async def test_asking_a_hostile_servers_props_ends_in_time(kind: str) -> None:
    with HostileServer(kind, pause=0.2) as server:
        started = time.monotonic()
        with pytest.raises(OSError):
            await server_slots.ask(server.url, "", None)
        assert time.monotonic() - started < server_slots.ASK_TIMEOUT_S + 2
        assert server.sent <= server_slots.PROPS_BYTES + BUFFERS
