"""Limits that fit a chatbot: a key's replies per minute (``rate_limit_per_minute``, every request)
and its claims per minute (``claims_per_minute``) are two buckets, each refused with its own 429 and reason.
With the defaults (60 requests, 600 claims a minute), a chatbot of one key sends 20 replies of two claims in a
row; with one bucket for both, as before, each reply's claims took the tokens of its later requests."""

from __future__ import annotations

import httpx
import pytest

from tests.server.conftest import AUTH, LiveServer
from tests.server.guard.test_guard_chat import FAST, Guard, guard  # noqa: F401 - the fixture

METRICS_KEY = "metrics-key-0123456789abcdef"


def _reply(server: LiveServer) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, timeout=60, json={
        "model": "scripted", "messages": [{"role": "user", "content": "Tell me about Paris."}], "factdebate": FAST})


def test_a_chatbot_of_one_key_works_under_the_default_limits(guard: Guard) -> None:  # noqa: F811
    server, _ = guard(rate_limit_per_minute=60)  # the default (the fixture turns it off)
    statuses = [_reply(server).status_code for _ in range(20)]
    assert statuses == [200] * 20


@pytest.mark.parametrize(("limits", "refusal", "expected"), [
    # 3 requests: the fourth is refused
    ({"rate_limit_per_minute": 3, "claims_per_minute": 600}, "rate limit exceeded", [200, 200, 200, 429]),
    # 4 claims: two replies of two claims each, then the third is refused
    ({"rate_limit_per_minute": 600, "claims_per_minute": 4}, "claims per minute", [200, 200, 429, 429]),
])
def test_replies_and_claims_are_limited_apart(guard: Guard, limits: dict[str, float], refusal: str,  # noqa: F811
                                              expected: list[int]) -> None:
    server, _ = guard(metrics_key=METRICS_KEY, **limits)
    statuses = [_reply(server) for _ in range(4)]
    assert [r.status_code for r in statuses] == expected
    body = statuses[3].json()
    assert refusal in body["detail"] and body["error"]["code"] == "rate_limit_exceeded"
    assert int(statuses[3].headers["Retry-After"]) >= 1
    scraped = httpx.get(f"{server.url}/metrics", headers={"Authorization": f"Bearer {METRICS_KEY}"}).text
    limit = "claims" if "claims" in refusal else "requests"
    assert f'factdebate_rate_limit_refusals_total{{limit="{limit}"}}' in scraped
