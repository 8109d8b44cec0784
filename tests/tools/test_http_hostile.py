"""The search engines' shared client (tools/http.py) against a server that floods, lies about its length,
sends a gzip bomb or trickles (tests/hostile_server.py): one try, ended at its size or its timeout with an
error that says which, never the whole flood read or the time spent on retries of it."""

from __future__ import annotations

import time

import pytest

from factdebate.tools import http
from factdebate.util.errors import FactDebateError
from tests.hostile_server import BUFFERS, HostileServer


@pytest.mark.parametrize("kind", ["flood", "lying_length", "gzip_bomb", "trickle", "trickle_head"])
async def test_a_hostile_search_answer_is_cut_and_named(kind: str) -> None:
    with HostileServer(kind, pause=0.1) as server:
        started = time.monotonic()
        async with http.client_scope(1.0) as client:
            with pytest.raises(FactDebateError) as caught:
                await http.request_json(client, "GET", f"{server.root}/search", attempts=3, base_delay=0.01)
        assert time.monotonic() - started < 4
        assert "larger than" in str(caught.value) or "did not end within 1 s" in str(caught.value)
        assert server.requests == 1  # the same again would cost as much: not retried
        time.sleep(0.2)
        assert server.sent <= http.MAX_ANSWER_BYTES + BUFFERS
