"""Retry, backoff and error reporting of the shared HTTP helper (no network: respx serves everything)."""

from __future__ import annotations

import email.utils
import time
from typing import Any

import httpx
import pytest
import respx

from factdebate.core.errors import EndpointUnavailableError
from factdebate.tools import http
from factdebate.tools.http import public_url, request_json, request_text
from factdebate.util.errors import FactDebateError

URL = "https://api.example.test/v1/search"
SECRET = "sk-test-SECRET-0123456789"


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the waits instead of sleeping, so Retry-After handling is checked without slowing tests."""
    recorded: list[float] = []

    async def fake_sleep(delay: float) -> None:
        recorded.append(delay)

    monkeypatch.setattr(http, "_sleep", fake_sleep)
    return recorded


async def call(**kwargs: Any) -> Any:
    async with httpx.AsyncClient() as client:
        return await request_json(client, "GET", URL, **kwargs)


async def test_success_returns_decoded_json(respx_mock: respx.MockRouter) -> None:
    route = respx_mock.get(URL).mock(return_value=httpx.Response(200, json={"ok": True}))
    assert await call(params={"q": "x"}) == {"ok": True}
    assert route.calls.last.request.url.params["q"] == "x"


async def test_none_params_are_not_sent(respx_mock: respx.MockRouter) -> None:
    route = respx_mock.get(URL).mock(return_value=httpx.Response(200, json={}))
    await call(params={"q": "x", "api_key": None})
    assert "api_key" not in route.calls.last.request.url.params


async def test_429_honours_retry_after_then_succeeds(respx_mock: respx.MockRouter,
                                                     sleeps: list[float]) -> None:
    route = respx_mock.get(URL).mock(side_effect=[
        httpx.Response(429, headers={"Retry-After": "3"}, text="slow down"),
        httpx.Response(200, json={"ok": 1}),
    ])
    assert await call(base_delay=0) == {"ok": 1}
    assert route.call_count == 2
    assert sleeps == [3.0]


async def test_retry_after_is_capped(respx_mock: respx.MockRouter, sleeps: list[float]) -> None:
    respx_mock.get(URL).mock(side_effect=[
        httpx.Response(429, headers={"Retry-After": "3600"}),
        httpx.Response(200, json={}),
    ])
    await call(base_delay=0, max_delay=5)
    assert sleeps == [5]


async def test_retry_after_http_date(respx_mock: respx.MockRouter, sleeps: list[float]) -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    respx_mock.get(URL).mock(side_effect=[
        httpx.Response(503, headers={"Retry-After": when}),
        httpx.Response(200, json={}),
    ])
    await call(base_delay=0, max_delay=60)
    assert len(sleeps) == 1 and 25 <= sleeps[0] <= 30


async def test_backoff_grows_exponentially_with_jitter(respx_mock: respx.MockRouter,
                                                       sleeps: list[float]) -> None:
    respx_mock.get(URL).mock(return_value=httpx.Response(502))
    with pytest.raises(EndpointUnavailableError):
        await call(attempts=4, base_delay=1.0, max_delay=3.0)
    assert len(sleeps) == 3  # no wait after the last attempt
    for delay, step in zip(sleeps, [1.0, 2.0, 3.0], strict=True):
        assert step / 2 <= delay <= step


async def test_500_exhaustion_names_url_without_secrets(respx_mock: respx.MockRouter,
                                                        sleeps: list[float]) -> None:
    route = respx_mock.get(URL).mock(
        return_value=httpx.Response(500, text=f"internal error for key {SECRET}"))
    with pytest.raises(EndpointUnavailableError) as info:
        await call(params={"q": "claim", "api_key": SECRET}, headers={"Authorization": f"Bearer {SECRET}"},
                   attempts=3, base_delay=0)
    assert route.call_count == 3
    assert info.value.url == URL
    assert info.value.attempts == 3
    message = str(info.value)
    assert URL in message and "HTTP 500" in message
    assert SECRET not in message and "api_key=" not in message
    assert sleeps == [0, 0]


async def test_timeouts_and_connection_errors_are_retried(respx_mock: respx.MockRouter,
                                                         sleeps: list[float]) -> None:
    route = respx_mock.get(URL).mock(side_effect=[
        httpx.ConnectError("connection refused"),
        httpx.ReadTimeout("timed out"),
        httpx.Response(200, json=[1, 2]),
    ])
    assert await call(base_delay=0) == [1, 2]
    assert route.call_count == 3


async def test_persistent_timeout_becomes_endpoint_unavailable(respx_mock: respx.MockRouter,
                                                               sleeps: list[float]) -> None:
    respx_mock.get(URL).mock(side_effect=httpx.ConnectTimeout("timed out"))
    with pytest.raises(EndpointUnavailableError, match="ConnectTimeout"):
        await call(attempts=2, base_delay=0)


async def test_400_is_a_clear_error_without_retry(respx_mock: respx.MockRouter, sleeps: list[float]) -> None:
    route = respx_mock.get(URL).mock(
        return_value=httpx.Response(400, json={"detail": {"error": f"Invalid query for {SECRET}"}}))
    with pytest.raises(FactDebateError) as info:
        await call(params={"api_key": SECRET}, base_delay=0)
    assert not isinstance(info.value, EndpointUnavailableError)
    assert route.call_count == 1 and sleeps == []
    message = str(info.value)
    assert "HTTP 400" in message and "Invalid query" in message and URL in message
    assert SECRET not in message


async def test_long_error_body_is_truncated(respx_mock: respx.MockRouter) -> None:
    respx_mock.get(URL).mock(return_value=httpx.Response(404, text="x" * 5000))
    with pytest.raises(FactDebateError) as info:
        await call()
    assert len(str(info.value)) < 400


async def test_invalid_json_is_reported(respx_mock: respx.MockRouter) -> None:
    respx_mock.get(URL).mock(return_value=httpx.Response(200, text="<html>maintenance</html>"))
    with pytest.raises(FactDebateError, match="did not return JSON"):
        await call()


async def test_request_text(respx_mock: respx.MockRouter) -> None:
    respx_mock.get(URL).mock(return_value=httpx.Response(200, text="<a/>"))
    async with httpx.AsyncClient() as client:
        assert await request_text(client, "GET", URL) == "<a/>"


def test_public_url_drops_query_and_credentials() -> None:
    assert public_url(f"https://user:{SECRET}@host.test:8443/p/q?api_key={SECRET}#frag") == \
        "https://host.test:8443/p/q"
