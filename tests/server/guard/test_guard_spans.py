"""``POST /v1/guard/check`` marks a refuted claim where the reply says it: for "The Eiffel
Tower is in Paris. It is in Berlin." the refuted "The Eiffel Tower is in Berlin." gets the span of "It is in
Berlin.", not of the true sentence before it; scripted checker models, the service as ``factdebate serve``
runs it."""

from __future__ import annotations

import json

import httpx

from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import script
from tests.server.conftest import AUTH
from tests.server.guard.test_guard_chat import FAST, Guard, guard  # noqa: F401 - the fixture

REPLY = "The Eiffel Tower is in Paris. It is in Berlin."
PARIS, BERLIN = "The Eiffel Tower is in Paris.", "The Eiffel Tower is in Berlin."


def _fast(claim: str) -> str:
    label = "REFUTES" if "Berlin" in claim else "SUPPORTS"
    return json.dumps({"label": label, "passage": 1, "quote": "The Eiffel Tower is a tower in Paris."})


def test_the_check_route_marks_it_is_in_berlin(guard: Guard) -> None:  # noqa: F811
    refute = script(claims=[PARIS, BERLIN], fast=_fast,
                    debate=lambda call, claim: "REFUTES" if "Berlin" in claim else "SUPPORTS")
    server, _ = guard(backend=ScriptedBackend(refute))
    reply = httpx.post(f"{server.url}/v1/guard/check", headers=AUTH, timeout=60,
                       json={"text": REPLY, "factdebate": {**FAST, "policy": "annotate"}})
    assert reply.status_code == 200, reply.text
    claims = {c["claim"]: c for c in reply.json()["claims"]}
    refuted = claims[BERLIN]
    assert refuted["label"] == "REFUTES", refuted
    assert REPLY[refuted["span"]["start"]:refuted["span"]["end"]] == "It is in Berlin."
    assert REPLY[claims[PARIS]["span"]["start"]:claims[PARIS]["span"]["end"]] == PARIS
