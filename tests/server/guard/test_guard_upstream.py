"""server/guard/upstream.py on its own: the SSE reader, the operator's key and nothing else on the way out,
the upstream's errors passed on in OpenAI's shape, and what the reviser asks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from factdebate.guard_engine import ClaimEvidence, Correction, GuardClaim
from factdebate.server.guard.revision import revise_instruction
from factdebate.server.guard.upstream import Upstream, UpstreamError, sse_events


async def _pieces(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def _read(*parts: bytes) -> list[Any]:
    async def go() -> list[Any]:
        return [(e.data, e.raw) async for e in sse_events(_pieces(*parts))]

    return asyncio.run(go())


def test_events_are_whole_whatever_the_network_cuts_them_into() -> None:
    events = _read(b'data: {"a"', b': 1}\r\n\r\n: keep-alive\n\ndata: x\ndata: y\n\n', b"data: [DONE]\n\n")
    assert [data for data, _ in events] == ['{"a": 1}', None, "x\ny", "[DONE]"]
    assert events[0][1] == b'data: {"a": 1}\n\n'  # passed on as it came (line ends made plain)


def _upstream(handler: Any, key: str | None = "operator-key") -> Upstream:
    return Upstream("http://model.test/v1", key, 5.0, transport=httpx.MockTransport(handler))


def test_only_the_operators_key_goes_out_and_errors_come_back_as_sent() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if json.loads(request.content).get("model") == "bad":
            return httpx.Response(400, json={"error": {"message": "no such model", "type": "invalid_request_error"}})
        if json.loads(request.content).get("model") == "plain":
            return httpx.Response(503, text="overloaded")
        return httpx.Response(200, json={"choices": [{"index": 0, "message": {"content": "hi"}}]})

    async def go() -> None:
        upstream = _upstream(handler)
        assert (await upstream.complete({"model": "m", "messages": []}))["choices"][0]["message"]["content"] == "hi"
        with pytest.raises(UpstreamError) as bad:
            await upstream.complete({"model": "bad", "messages": []})
        assert bad.value.status == 400 and bad.value.body["error"]["message"] == "no such model"
        with pytest.raises(UpstreamError) as plain:
            await upstream.complete({"model": "plain", "messages": []})
        assert plain.value.status == 503 and "overloaded" in plain.value.body["error"]["message"]
        await upstream.aclose()
        keyless = _upstream(handler, key=None)
        await keyless.complete({"model": "m", "messages": []})
        await keyless.aclose()

    asyncio.run(go())
    assert seen[0].headers["authorization"] == "Bearer operator-key" and "authorization" not in seen[-1].headers
    assert json.loads(seen[0].content)["stream"] is False


def test_an_unreachable_upstream_is_a_502_naming_no_credentials() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    async def go() -> UpstreamError:
        upstream = Upstream("http://user:secret@model.test/v1", None, 5.0, transport=httpx.MockTransport(handler))
        try:
            with pytest.raises(UpstreamError) as caught:
                await upstream.complete({"model": "m", "messages": []})
            return caught.value
        finally:
            await upstream.aclose()

    error = asyncio.run(go())
    assert error.status == 502 and error.body["error"]["code"] == "upstream_unreachable"
    assert "secret" not in json.dumps(error.body)


def test_the_revise_instruction_names_each_refuted_claim_its_evidence_and_correction() -> None:
    claim = GuardClaim(index=0, claim="The Eiffel Tower is in Rome.", label="REFUTES", status="checked",
                       evidence=[ClaimEvidence(title="Atlas", url="https://atlas.test", quote="It stands in Paris.")],
                       correction=Correction(text="The Eiffel Tower is in Paris.", quote_source="It stands in Paris."))
    text = revise_instruction([claim])
    for part in ("The Eiffel Tower is in Rome.", "Atlas", "https://atlas.test", "It stands in Paris.",
                 "The Eiffel Tower is in Paris.", "revised answer only"):
        assert part in text
