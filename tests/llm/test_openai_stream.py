"""Calls that end when their claim does: with ``llm.stream`` the OpenAI-compatible backend
asks for its answers as streams, so a call cancelled (a deadline, a given-up try, a failed sibling, a client
that left) closes the connection and the server stops generating; a plain request ran on at
llama-cpp-python's server for minutes. A server here writes one chunk every 20 ms and notes when the client
is gone; benchmarks/served_cancel.py measures the same against llama-cpp-python's server."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from factdebate.core.runtime import RunRecorder, recording
from factdebate.llm.base import GenParams, TransientLLMError
from factdebate.llm.cache import ResponseCache
from factdebate.llm.model import LLM
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.run.build import build_resources
from factdebate.settings.load import load_settings

MESSAGES = [{"role": "user", "content": "Say something long."}]


class StreamingServer:
    """Streams ``chunks`` pieces of text, one every ``every`` seconds, then a finish chunk (``finish``, or
    none: an answer cut by the server as llama-cpp-python's ``--interrupt_requests`` cuts it; ``cut_first``:
    only the first so many streams are cut) and ``[DONE]``; ``written`` counts the chunks sent, ``gone`` is set
    when a write finds the client gone. A request not asked as a stream gets the whole text in one reply.
    ``owner`` is what ``GET /models`` says owns the model (None: no model list, as many gateways); ``streams``:
    ``refused``, a stream request is answered HTTP 400 naming ``stream_options`` (as some gateways answer
    parameters they do not know), ``ignored``, with the whole text as one JSON reply."""

    def __init__(self, chunks: int, every: float = 0.02, finish: str | None = "stop",
                 usage: dict[str, int] | None = None, owner: str | None = None, cut_first: int = 0,
                 streams: str = "served") -> None:
        self.bodies: list[dict[str, Any]] = []
        owned_by = owner
        self.written = 0
        self.gone = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if not self.path.endswith("/models") or owned_by is None:
                    self.send_error(404)
                    return
                self.send_json({"object": "list", "data": [{"id": "m", "object": "model", "owned_by": owned_by}]})

            def send_json(self, data: dict[str, Any], status: int = 200) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_POST(self) -> None:
                owner.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                if owner.bodies[-1].get("stream") and streams == "refused":
                    self.send_json({"error": {"message": "Unrecognized request argument supplied: stream_options",
                                              "type": "invalid_request_error", "param": None}}, 400)
                    return
                if not owner.bodies[-1].get("stream") or streams == "ignored":
                    text = "".join(f"w{n} " for n in range(chunks))
                    self.send_json({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                    "choices": [{"index": 0, "finish_reason": "stop",
                                                 "message": {"role": "assistant", "content": text}}]})
                    return
                streamed = sum(1 for body in owner.bodies if body.get("stream"))
                ends = finish if cut_first == 0 or streamed > cut_first else None
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    for n in range(chunks):
                        self.event({"choices": [{"index": 0, "delta": {"content": f"w{n} "}, "finish_reason": None}]})
                        owner.written += 1
                        threading.Event().wait(every)
                    if ends is not None:
                        self.event({"choices": [{"index": 0, "delta": {}, "finish_reason": ends}]})
                    if usage is not None:
                        self.event({"choices": [], "usage": usage})
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    owner.gone.set()  # the server stops here: what llama.cpp's servers do between tokens

            def event(self, data: dict[str, Any]) -> None:
                chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", **data}
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def backend(server: StreamingServer, timeout: float = 30.0) -> OpenAIBackend:
    return OpenAIBackend("m", base_url=server.url, timeout=timeout, constrain="none", stream=True)


async def test_a_streamed_answer_is_read_whole() -> None:
    server = StreamingServer(5)
    try:
        model = backend(server)
        completion = await model.complete(MESSAGES, GenParams(max_tokens=50))
        await model.aclose()
    finally:
        server.close()
    assert completion.text == "w0 w1 w2 w3 w4 " and completion.finish_reason == "stop"
    assert completion.completion_tokens == 5  # no usage sent: one token a chunk, as llama.cpp's servers send
    assert completion.prompt_tokens == 0 and completion.usage_known is False  # a 0 for want of a count
    (body,) = server.bodies
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


async def test_the_servers_usage_is_read_when_it_sends_it() -> None:
    server = StreamingServer(2, usage={"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19})
    try:
        completion = await backend(server).complete(MESSAGES, GenParams(max_tokens=50))
    finally:
        server.close()
    assert (completion.prompt_tokens, completion.completion_tokens) == (12, 7) and completion.usage_known


@pytest.mark.parametrize("usage", [None, {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14}],
                         ids=["no usage", "usage"])
async def test_a_count_the_server_did_not_report_is_said_unknown_in_the_call_record_and_the_cache(
        tmp_path: Path, usage: dict[str, int] | None) -> None:
    """The llm_call event (a trace's line, the page's "N tokens in") and a cached answer replayed later say
    the counts are unknown rather than show 0 prompt tokens as measured."""
    server = StreamingServer(2, every=0, usage=usage)
    events: list[dict[str, Any]] = []
    cache = ResponseCache(tmp_path / "cache.sqlite")
    try:
        llm = LLM(backend(server), "debater", cache=cache)
        with recording(RunRecorder([events.append])):
            await llm.complete(MESSAGES, GenParams(max_tokens=50))
            await llm.complete(MESSAGES, GenParams(max_tokens=50))  # the cache's answer
    finally:
        server.close()
    fresh, cached = [e for e in events if e["event"] == "llm_call"]
    assert not fresh["cached"] and cached["cached"] and len(server.bodies) == 1
    for call in (fresh, cached):
        if usage is None:
            assert call["usage_known"] is False
        else:
            assert "usage_known" not in call and call["prompt_tokens"] == 12


async def test_a_cancelled_call_stops_the_server_generating() -> None:
    server = StreamingServer(2000)  # 40 s of answer
    try:
        model = backend(server)
        call = asyncio.create_task(model.complete(MESSAGES, GenParams(max_tokens=4000)))
        while server.written < 5:
            await asyncio.sleep(0.02)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert await asyncio.to_thread(server.gone.wait, 10)  # the server saw the connection close
        assert server.written < 2000
    finally:
        server.close()


async def test_an_answer_the_server_cut_is_an_error_that_says_why() -> None:
    server = StreamingServer(3, finish=None)
    try:
        with pytest.raises(TransientLLMError, match="--interrupt_requests False"):
            await backend(server).complete(MESSAGES, GenParams(max_tokens=50))
    finally:
        server.close()


async def test_the_whole_stream_is_held_to_the_request_timeout() -> None:
    server = StreamingServer(2000, every=0.05)  # a chunk well within any read timeout, but no end in sight
    try:
        with pytest.raises(TransientLLMError, match=r"no answer within 0\.5 s") as caught:
            await backend(server, timeout=0.5).complete(MESSAGES, GenParams(max_tokens=4000))
        assert caught.value.timed_out
    finally:
        server.close()


def test_the_setting_reaches_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")

    def model(**llm: Any) -> Any:
        settings = load_settings(overrides={"llm": {"debater": "openai:m", "cache": False, **llm}}, environ={})
        return build_resources(settings).llm("debater").backend

    streamed = model(stream=True)
    assert isinstance(streamed, OpenAIBackend) and streamed.stream is True
    assert model().stream == "auto" and model(stream=False).stream is False


def test_a_setting_other_than_true_false_or_auto_is_refused() -> None:
    with pytest.raises(Exception, match="stream"):
        load_settings(overrides={"llm": {"stream": "sometimes"}}, environ={})


def auto(server: StreamingServer) -> OpenAIBackend:
    return OpenAIBackend("m", base_url=server.url, timeout=30.0, constrain="none")  # llm.stream as by default


@pytest.mark.parametrize("owner", ["me", "llamacpp", "vllm"])
async def test_by_default_a_cancelled_call_stops_a_server_that_stops_on_a_closed_stream(owner: str) -> None:
    """llama-cpp-python's server says "me", llama.cpp's "llamacpp", vLLM "vllm": asked as streams by default,
    so a call cut short (here cancelled, as a deadline or a given-up try cancels it) stops there."""
    server = StreamingServer(2000, owner=owner)
    try:
        call = asyncio.create_task(auto(server).complete(MESSAGES, GenParams(max_tokens=4000)))
        while server.written < 5:
            await asyncio.sleep(0.02)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert await asyncio.to_thread(server.gone.wait, 10)
        assert server.bodies[0]["stream"] is True and server.written < 2000
    finally:
        server.close()


async def test_by_default_a_cancelled_call_stops_a_server_that_does_not_name_itself() -> None:
    """No model list naming the server (OpenAI's API, Ollama and most gateways name none): asked as a
    stream all the same, so a call cut short stops there too."""
    server = StreamingServer(2000)
    try:
        call = asyncio.create_task(auto(server).complete(MESSAGES, GenParams(max_tokens=4000)))
        while server.written < 5:
            await asyncio.sleep(0.02)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert await asyncio.to_thread(server.gone.wait, 10)
        assert server.bodies[0]["stream"] is True and server.written < 2000
    finally:
        server.close()


async def test_a_server_answering_a_stream_request_with_one_reply_is_read_as_that_reply() -> None:
    server = StreamingServer(3, streams="ignored")
    try:
        model = auto(server)
        completion = await model.complete(MESSAGES, GenParams(max_tokens=50))
    finally:
        server.close()
    assert completion.text == "w0 w1 w2 " and completion.finish_reason == "stop"
    assert server.bodies[0]["stream"] is True and not model.constraint_notes


async def test_by_default_a_server_that_refuses_the_stream_parameters_is_asked_plainly_from_then_on() -> None:
    """A gateway answering HTTP 400 to ``stream_options``: that request is tried again at once, plainly (both
    sent and counted), and so is every later one, with a note saying why."""
    server = StreamingServer(3, streams="refused")
    try:
        model = auto(server)
        with pytest.raises(TransientLLMError, match="refused a streamed request") as caught:
            await model.complete(MESSAGES, GenParams(max_tokens=50))
        assert caught.value.retry_after == 0
        first = await model.complete(MESSAGES, GenParams(max_tokens=50))
        again = await auto(server).complete(MESSAGES, GenParams(max_tokens=50))  # another backend of the process
    finally:
        server.close()
    assert first.text == again.text == "w0 w1 w2 "
    assert [body.get("stream", False) for body in server.bodies] == [True, False, False]
    (note,) = model.constraint_notes
    assert "asking it plainly from now on" in note


async def test_by_default_a_server_that_cuts_streams_is_asked_plainly_from_then_on() -> None:
    """llama-cpp-python's server started without --interrupt_requests False cuts a stream when another request
    arrives: that request fails (a retried error, sent and counted) saying what to start the server with, and
    every later request goes plainly, so answers are never cut again."""
    server = StreamingServer(3, owner="me", cut_first=1)
    try:
        model = auto(server)
        with pytest.raises(TransientLLMError, match="--interrupt_requests False") as caught:
            await model.complete(MESSAGES, GenParams(max_tokens=50))
        assert caught.value.retry_after == 0  # tried again at once, plainly
        first = await model.complete(MESSAGES, GenParams(max_tokens=50))
        again = await auto(server).complete(MESSAGES, GenParams(max_tokens=50))  # another backend of the process
    finally:
        server.close()
    assert first.text == again.text == "w0 w1 w2 " and first.finish_reason == "stop"
    assert [body.get("stream", False) for body in server.bodies] == [True, False, False]
    (note,) = model.constraint_notes
    assert "asking it plainly from now on" in note and "--interrupt_requests False" in note
