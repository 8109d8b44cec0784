"""A real uvicorn server on a loopback port: the SSE stream arrives incrementally over the socket."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from tests.readiness import wait_until_ready
from tests.server.conftest import AUTH, LiveServer, parse_sse


def test_stream_over_a_real_socket(live_server: Callable[..., LiveServer]) -> None:
    defaults = {"llm": "scripted:disagree@0.05", "agents": ["none", "none"], "scoring": False, "cache": False}
    arrivals: list[tuple[float, str]] = []
    with live_server(defaults=defaults) as server, httpx.Client(base_url=server.url, timeout=20) as client:
        started = time.monotonic()
        with client.stream("POST", "/v1/verify/stream", headers=AUTH,
                           json={"claim": "Mount Everest is the highest mountain.", "rounds": 3}) as response:
            assert response.status_code == 200
            buffer = ""
            for chunk in response.iter_text():
                buffer += chunk
                while "\n\n" in buffer:
                    frame, buffer = buffer.split("\n\n", 1)
                    for name, _ in parse_sse(frame + "\n\n"):
                        arrivals.append((time.monotonic() - started, name))
        health = client.get("/v1/health").json()
    names = [name for _, name in arrivals]
    assert names[0] == "run_started" and names[-1] == "result"
    assert names.count("answer") == 6 and names.count("round") == 3
    # Events came while the debate ran (three rounds and a judge at 0.05 s a call), not all at the end.
    first_answer = next(t for t, n in arrivals if n == "answer")
    assert first_answer < arrivals[-1][0] - 0.1
    assert health["active_runs"] == 0


def test_a_client_that_leaves_frees_its_slot(live_server: Callable[..., LiveServer]) -> None:
    defaults = {"llm": "scripted:disagree@0.2", "agents": ["none", "none"], "scoring": False, "cache": False}
    with live_server(defaults=defaults) as server, httpx.Client(base_url=server.url, timeout=20) as client:
        with client.stream("POST", "/v1/verify/stream", headers=AUTH, json={"claim": "a b c"}) as response:
            for chunk in response.iter_text():
                if "turn_started" in chunk:
                    break  # hang up mid-debate
        # by the service's state, not a clock (5 s was its limit): this process's CPU, polls included, bounds it
        wait_until_ready(lambda: client.get("/v1/health").json()["active_runs"] == 0, server.thread,
                         "the hung-up run's slot freed", cpu_budget_s=20, every_s=0.05)
