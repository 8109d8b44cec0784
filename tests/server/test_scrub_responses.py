"""server/scrub_responses.py on its own: a whole body is scrubbed and its length set again; a stream's headers
pass before its first frame (a client may wait on them: the guard's check id), and each frame is scrubbed."""

from __future__ import annotations

import asyncio
from typing import Any

from factdebate.server.scrub_responses import ScrubResponses, scrubbed_body
from factdebate.util.scrub import remember_secrets

SECRET = "operator-secret-77aa55bb"


async def _run(app: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await ScrubResponses(app)({"type": "http", "path": "/v1/x", "method": "GET", "headers": []}, receive, send)
    return sent


async def test_a_whole_body_is_scrubbed_and_its_length_set_again() -> None:
    remember_secrets([SECRET])
    body = f'{{"detail": "refused {SECRET} at 10.0.0.7:8080"}}'.encode()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 500,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    start, sent = await _run(app)
    assert sent["body"] == b'{"detail": "refused *** at the operator\'s host"}'
    assert dict(start["headers"])[b"content-length"] == str(len(sent["body"])).encode()


async def test_a_streams_headers_pass_before_its_first_frame() -> None:
    remember_secrets([SECRET])
    seen: list[dict[str, Any]] = []
    gate = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        await gate.wait()  # the stream's first frame waits on the test: the headers must be out already
        await send({"type": "http.response.body", "body": f"data: {SECRET}\n\n".encode(), "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    async def send(message: dict[str, Any]) -> None:
        seen.append(message)
        if message["type"] == "http.response.start":
            gate.set()

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    await ScrubResponses(app)({"type": "http", "path": "/v1/s", "method": "POST", "headers": []}, receive, send)
    assert [m["type"] for m in seen] == ["http.response.start", "http.response.body", "http.response.body"]
    assert seen[1]["body"] == b"data: ***\n\n"


def test_a_body_that_is_not_utf8_is_scrubbed_and_keeps_its_other_bytes() -> None:
    """One byte that is not UTF-8 beside a key hid the key: the body went out untouched."""
    remember_secrets([SECRET])
    assert scrubbed_body(b": \xff " + SECRET.encode() + b" \xc3\n\n") == b": \xff *** \xc3\n\n"
    unrelated = b"\x00\xff\xfe binary \x80 bytes \xc3\xa9"
    assert scrubbed_body(unrelated) is unrelated


def _stream(frames: list[str]) -> Any:
    """An app that answers with ``frames`` as Server-Sent Events, one body message each."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        for frame in frames:
            await send({"type": "http.response.body", "body": frame.encode(), "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    return app


async def test_a_half_of_a_key_in_a_later_frame_than_its_other_half_is_masked() -> None:
    """Each frame of a stream is scrubbed as it goes, remembering the halves of keys the stream's earlier frames
    held: the half in the later frame is masked; a stream that holds one half alone passes byte for byte."""
    key = "chk-operator-Zx81Qw27Lm55"  # no provider's shape: only its value gives it away
    remember_secrets([key])
    half = len(key) // 2
    frames = [f'data: {{"note": "{key[:half]} and {key[half:]}"}}\n\n', 'data: {"note": "nothing"}\n\n',
              f'data: {{"note": "then {key[half:]} again"}}\n\n']
    sent = await _run(_stream(frames))
    assert [m["body"] for m in sent[1:]] == [b'data: {"note": "*** and ***"}\n\n', frames[1].encode(),
                                             b'data: {"note": "then *** again"}\n\n', b""]
    alone = [f'data: {{"note": "ticket {key[half:]}"}}\n\n', 'data: {"note": "closed"}\n\n']
    assert [m["body"] for m in (await _run(_stream(alone)))[1:]] == [*(f.encode() for f in alone), b""]
