"""server/guard/upstream.py on its own: the SSE reader, the operator's key and nothing else on the way out,
the upstream's errors passed on in OpenAI's shape, and what the reviser asks."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from factdebate.guard_engine import ClaimEvidence, Correction, GuardClaim
from factdebate.guard_engine.policy import revise_instruction
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


Answer = tuple[int, str, bytes]  # status, content type, body


async def _serve(answer: Callable[[dict[str, str], bytes], Answer],
                 seen: list[tuple[dict[str, str], bytes]]) -> tuple[asyncio.Server, str]:
    """A loopback model server: each request's headers and body noted, answered as ``answer`` says."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                fields = (line.partition(":") for line in head[1:] if line)
                headers = {name.strip().lower(): value.strip() for name, _, value in fields}
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                seen.append((headers, body))
                status, kind, content = answer(headers, body)
                writer.write(b"HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
                             % (status, kind.encode(), len(content)) + content)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"


def test_only_the_operators_key_goes_out_and_errors_come_back_as_sent() -> None:
    seen: list[tuple[dict[str, str], bytes]] = []

    def answer(headers: dict[str, str], body: bytes) -> Answer:
        model = json.loads(body).get("model")
        if model == "bad":
            return 400, "application/json", json.dumps(
                {"error": {"message": "no such model", "type": "invalid_request_error"}}).encode()
        if model == "plain":
            return 503, "text/plain", b"overloaded"
        return 200, "application/json", json.dumps({"choices": [{"index": 0, "message": {"content": "hi"}}]}).encode()

    async def go() -> None:
        server, url = await _serve(answer, seen)
        upstream = Upstream(url, "operator-key", 5.0)
        assert (await upstream.complete({"model": "m", "messages": []}))["choices"][0]["message"]["content"] == "hi"
        with pytest.raises(UpstreamError) as bad:
            await upstream.complete({"model": "bad", "messages": []})
        assert bad.value.status == 400 and bad.value.body["error"]["message"] == "no such model"
        with pytest.raises(UpstreamError) as plain:
            await upstream.complete({"model": "plain", "messages": []})
        assert plain.value.status == 503 and "overloaded" in plain.value.body["error"]["message"]
        await upstream.aclose()
        keyless = Upstream(url, None, 5.0)
        await keyless.complete({"model": "m", "messages": []})
        await keyless.aclose()
        server.close()

    asyncio.run(go())
    assert seen[0][0]["authorization"] == "Bearer operator-key" and "authorization" not in seen[-1][0]
    assert json.loads(seen[0][1])["stream"] is False


def test_an_unreachable_upstream_is_a_502_naming_no_credentials() -> None:
    with socket.socket() as probe:  # a port nothing listens on: the connection is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def go() -> UpstreamError:
        upstream = Upstream(f"http://user:secret@127.0.0.1:{port}/v1", None, 5.0)
        try:
            with pytest.raises(UpstreamError) as caught:
                await upstream.complete({"model": "m", "messages": []})
            return caught.value
        finally:
            await upstream.aclose()

    error = asyncio.run(go())
    assert error.status == 502 and error.body["error"]["code"] == "upstream_unreachable"
    assert "ConnectError" in error.body["error"]["message"] and "secret" not in json.dumps(error.body)


def test_the_revise_instruction_names_each_refuted_claim_its_evidence_and_correction() -> None:
    claim = GuardClaim(index=0, claim="The Eiffel Tower is in Rome.", label="REFUTES", status="checked",
                       evidence=[ClaimEvidence(title="Atlas", url="https://atlas.test", quote="It stands in Paris.")],
                       correction=Correction(text="The Eiffel Tower is in Paris.", quote_source="It stands in Paris."))
    text = revise_instruction([claim])
    for part in ("The Eiffel Tower is in Rome.", "Atlas", "https://atlas.test", "It stands in Paris.",
                 "The Eiffel Tower is in Paris.", "revised answer only"):
        assert part in text
