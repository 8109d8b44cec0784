"""Retry, backoff, redirects and error reporting of the shared HTTP helper, against recorded answers served on
loopback (tests/recorded_http.py) through the package's one client."""

from __future__ import annotations

import email.utils
import socket
import time
from typing import Any

import pytest

from factdebate.core.errors import EndpointUnavailableError
from factdebate.tools import http
from factdebate.tools.http import client_scope, public_url, request_json, request_text, with_params
from factdebate.util.errors import FactDebateError
from tests.recorded_http import DROP, STALL, RecordedServer, answer

PATH = "/v1/search"
SECRET = "sk-test-SECRET-0123456789"


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the waits instead of sleeping, so Retry-After handling is checked without slowing tests."""
    recorded: list[float] = []

    async def fake_sleep(delay: float) -> None:
        recorded.append(delay)

    monkeypatch.setattr(http, "_sleep", fake_sleep)
    return recorded


async def call(server: RecordedServer, method: str = "GET", path: str = PATH, **kwargs: Any) -> Any:
    async with client_scope(5.0) as client:
        return await request_json(client, method, f"{server.url}{path}", **kwargs)


async def test_success_returns_decoded_json(recorded: RecordedServer) -> None:
    route = recorded.get(PATH, answer(json={"ok": True}))
    assert await call(recorded, params={"q": "x y", "n": 3, "flag": True}) == {"ok": True}
    assert route.last.params == {"q": "x y", "n": "3", "flag": "true"}
    assert route.last.headers["Accept-Encoding"] == "identity"


async def test_none_params_are_not_sent(recorded: RecordedServer) -> None:
    route = recorded.get(PATH, answer(json={}))
    await call(recorded, params={"q": "x", "api_key": None})
    assert "api_key" not in route.last.params


async def test_a_json_body_is_posted_compact_with_its_headers(recorded: RecordedServer) -> None:
    route = recorded.post(PATH, answer(json={"ok": 1}))
    assert await call(recorded, "POST", json={"query": "Kármán", "k": 2},
                      headers={"Authorization": f"Bearer {SECRET}"}) == {"ok": 1}
    sent = route.last
    assert sent.body == '{"query":"Kármán","k":2}'.encode()
    assert sent.headers["Content-Type"] == "application/json"
    assert sent.headers["Authorization"] == f"Bearer {SECRET}"


async def test_429_honours_retry_after_then_succeeds(recorded: RecordedServer, sleeps: list[float]) -> None:
    route = recorded.get(PATH, [answer(429, headers={"Retry-After": "3"}, text="slow down"),
                                answer(json={"ok": 1})])
    assert await call(recorded, base_delay=0) == {"ok": 1}
    assert route.call_count == 2
    assert sleeps == [3.0]


async def test_retry_after_is_capped(recorded: RecordedServer, sleeps: list[float]) -> None:
    recorded.get(PATH, [answer(429, headers={"Retry-After": "3600"}), answer(json={})])
    await call(recorded, base_delay=0, max_delay=5)
    assert sleeps == [5]


async def test_retry_after_http_date(recorded: RecordedServer, sleeps: list[float]) -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    recorded.get(PATH, [answer(503, headers={"Retry-After": when}), answer(json={})])
    await call(recorded, base_delay=0, max_delay=60)
    assert len(sleeps) == 1 and 25 <= sleeps[0] <= 30


async def test_backoff_grows_exponentially_with_jitter(recorded: RecordedServer, sleeps: list[float]) -> None:
    recorded.get(PATH, answer(502))
    with pytest.raises(EndpointUnavailableError):
        await call(recorded, attempts=4, base_delay=1.0, max_delay=3.0)
    assert len(sleeps) == 3  # no wait after the last attempt
    for delay, step in zip(sleeps, [1.0, 2.0, 3.0], strict=True):
        assert step / 2 <= delay <= step


async def test_500_exhaustion_names_url_without_secrets(recorded: RecordedServer, sleeps: list[float]) -> None:
    route = recorded.get(PATH, answer(500, text=f"internal error for key {SECRET}"))
    with pytest.raises(EndpointUnavailableError) as info:
        await call(recorded, params={"q": "claim", "api_key": SECRET}, headers={"Authorization": f"Bearer {SECRET}"},
                   attempts=3, base_delay=0)
    assert route.call_count == 3
    assert info.value.url == f"{recorded.url}{PATH}"
    assert info.value.attempts == 3
    message = str(info.value)
    assert f"{recorded.url}{PATH}" in message and "HTTP 500" in message
    assert SECRET not in message and "api_key=" not in message
    assert sleeps == [0, 0]


async def test_broken_connections_are_retried(recorded: RecordedServer, sleeps: list[float]) -> None:
    route = recorded.get(PATH, [DROP, DROP, answer(json=[1, 2])])
    assert await call(recorded, base_delay=0) == [1, 2]
    assert route.call_count == 3


async def test_a_server_never_reached_becomes_endpoint_unavailable(sleeps: list[float]) -> None:
    with socket.socket() as unused:  # a port nothing listens on: each connection is refused
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}{PATH}"
        async with client_scope(5.0) as client:
            with pytest.raises(EndpointUnavailableError) as info:
                await request_json(client, "GET", url, attempts=2, base_delay=0)
    assert str(info.value) == (f"could not reach {url} after 2 attempt(s): "
                               "CannotConnect: no connection opened (Connection refused)")
    assert sleeps == [0]


async def test_an_answer_past_its_deadline_is_named_and_not_retried(recorded: RecordedServer) -> None:
    route = recorded.get(PATH, STALL)
    with pytest.raises(FactDebateError) as info:
        await call(recorded, timeout=0.3, base_delay=0)
    assert str(info.value) == f"GET {recorded.url}{PATH}: its answer did not end within 0.3 s, so it was not read"
    assert route.call_count == 1


async def test_400_is_a_clear_error_without_retry(recorded: RecordedServer, sleeps: list[float]) -> None:
    route = recorded.get(PATH, answer(400, json={"detail": {"error": f"Invalid query for {SECRET}"}}))
    with pytest.raises(FactDebateError) as info:
        await call(recorded, params={"api_key": SECRET}, base_delay=0)
    assert not isinstance(info.value, EndpointUnavailableError)
    assert route.call_count == 1 and sleeps == []
    message = str(info.value)
    assert "HTTP 400" in message and "Invalid query" in message and f"{recorded.url}{PATH}" in message
    assert SECRET not in message


async def test_long_error_body_is_truncated(recorded: RecordedServer) -> None:
    recorded.get(PATH, answer(404, text="x" * 5000))
    with pytest.raises(FactDebateError) as info:
        await call(recorded)
    assert len(str(info.value)) < 400


async def test_invalid_json_is_reported(recorded: RecordedServer) -> None:
    recorded.get(PATH, answer(200, text="<html>maintenance</html>"))
    with pytest.raises(FactDebateError, match="did not return JSON"):
        await call(recorded)


async def test_request_text(recorded: RecordedServer) -> None:
    recorded.get(PATH, answer(200, text="<a/>"))
    async with client_scope(5.0) as client:
        assert await request_text(client, "GET", f"{recorded.url}{PATH}") == "<a/>"


async def test_a_redirect_is_followed_on_its_host(recorded: RecordedServer) -> None:
    recorded.get(PATH, answer(302, headers={"Location": "/v2/search?page=1"}))
    moved = recorded.get("/v2/search", answer(json={"moved": True}))
    assert await call(recorded, params={"q": "x"}) == {"moved": True}
    assert moved.last.params == {"page": "1"}


async def test_a_303_after_a_post_asks_with_get(recorded: RecordedServer) -> None:
    recorded.post(PATH, answer(303, headers={"Location": "/result"}))
    result = recorded.get("/result", answer(json={"done": 1}))
    assert await call(recorded, "POST", json={"q": 1}) == {"done": 1}
    assert result.last.body == b""


async def test_authorization_goes_to_no_other_origin(recorded: RecordedServer) -> None:
    with RecordedServer() as other:
        elsewhere = other.get("/landing", answer(json={"there": True}))
        recorded.get(PATH, answer(307, headers={"Location": f"{other.url}/landing"}))
        assert await call(recorded, headers={"Authorization": f"Bearer {SECRET}", "X-Kept": "1"}) == {"there": True}
    assert elsewhere.last.headers["Authorization"] is None and elsewhere.last.headers["X-Kept"] == "1"


async def test_a_redirect_loop_ends_with_a_clear_error(recorded: RecordedServer) -> None:
    route = recorded.get(PATH, answer(302, headers={"Location": PATH}))
    with pytest.raises(FactDebateError, match="more than 20 redirects") as info:
        await call(recorded, attempts=3)
    assert route.call_count == 21 and not isinstance(info.value, EndpointUnavailableError)


async def test_a_url_that_is_not_http_is_not_retried(sleeps: list[float]) -> None:
    async with client_scope(5.0) as client:
        with pytest.raises(EndpointUnavailableError, match="not an http or https URL") as info:
            await request_json(client, "GET", f"ftp://files.example.test/{SECRET}")
    assert info.value.attempts == 1 and sleeps == []


async def test_a_header_with_a_line_break_is_never_sent(recorded: RecordedServer, sleeps: list[float]) -> None:
    route = recorded.get(PATH, answer(json={}))
    with pytest.raises(EndpointUnavailableError, match="UnsendableHeader") as info:
        await call(recorded, headers={"Authorization": f"Bearer {SECRET}\n"})
    assert route.call_count == 0 and SECRET not in str(info.value) and sleeps == []


def test_params_join_the_url_s_own_query() -> None:
    assert with_params("https://h.test/p?a=1", {"b": "x y", "c": None, "d": False}) == "https://h.test/p?a=1&b=x+y&d=false"
    assert with_params("https://h.test/p", None) == "https://h.test/p"


def test_public_url_drops_query_and_credentials() -> None:
    assert public_url(f"https://user:{SECRET}@host.test:8443/p/q?api_key={SECRET}#frag") == \
        "https://host.test:8443/p/q"
