"""The start-up probe (run/model_servers.py) and the per-call /props ask (llm/server_slots.py) against servers
that flood or trickle (tests/hostile_server.py): each returns within its deadline, having read no more than its
limit, so a broken server beside the service cannot keep ``serve`` from listening or ``verify`` from running."""

from __future__ import annotations

import socket
import time

import pytest

from factdebate.llm import server_slots
from factdebate.run import model_servers
from factdebate.settings.model import Settings
from tests.hostile_server import BUFFERS, HostileServer


def settings_for(url: str) -> Settings:
    return Settings.model_validate({"llm": {"base_urls": [url], "debater": "openai:m"}})


@pytest.mark.parametrize(("kind", "outcome"), [("flood", "error"), ("lying_length", "error"), ("gzip_bomb", "error"),
                                               ("trickle", "busy"), ("trickle_head", "busy")])
def test_the_probe_of_a_hostile_server_ends_in_time_and_says_why(kind: str, outcome: str) -> None:
    with HostileServer(kind, pause=0.2) as server:
        started = time.monotonic()
        [answer] = model_servers.ask_servers(settings_for(server.url), timeout=1.0)
        assert time.monotonic() - started < 4
        assert answer.outcome == outcome, answer
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


def test_a_server_that_took_the_connection_but_is_busy_runs_and_is_never_told_to_start() -> None:
    """llama-cpp-python answers its model list only between generations: a server generating for another
    client took the probe's connection and said nothing in time. It runs: the command goes on with a note, and
    serve does not say it declined to tell how many requests it serves (it was not asked yet)."""
    with HostileServer("trickle_head", pause=0.5) as server:
        settings = settings_for(server.url)
        [busy] = model_servers.check_model_servers(settings, timeout=1.0)
        note = model_servers.busy_note(busy)
        assert note.startswith(f"note: the model server at {server.url} runs but is busy (it took the connection")
        assert "start it" not in note
        assert model_servers.sent_one_at_a_time(settings, [busy]) == []
        assert model_servers.sent_one_at_a_time(settings) == [server.url]


def test_a_refused_connection_is_said_in_the_sockets_words() -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on (bound, then released)
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    [answer] = model_servers.ask_servers(settings_for(url), timeout=1.0)
    assert answer.outcome == "unreachable" and answer.detail.startswith("cannot connect: Connection refused")
