"""A checker whose answer's content nests JSON past Python's parser (a thousand brackets, 6 KB) is an unreadable
answer like any malformed one, on every face a caller reads: the chat proxy delivers its upstream's words with
the check marked degraded, /v1/guard/check answers degraded, /v1/verify answers a verdict decided by no label
read. It is never the caller's 422, which is for a request body that itself nests that deep; a RecursionError
of any other origin is the service's own fault (a 500), never the caller's."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.llm import make_backend
from factdebate.server.strict_json import DEEP_BODY, nests_past
from tests.fake_openai import FakeOpenAI
from tests.server.conftest import AUTH, AppFactory, LiveServer, offline_build
from tests.server.guard_support import ANSWER, Upstream, upstream_app

FAST = {"tier": "fast", "method": "single"}
CHECKER = {"llm": "openai:m", "agents": ["none", "none"], "scoring": False, "cache": False, "rounds": 1}
CHAT = {"model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}], "factdebate": FAST}
DEEP = {"list": "[" * 990 + "]" * 990, "object": '{"a":' * 990 + "1" + "}" * 990}


def streamed(body: str) -> tuple[str, dict[str, Any], str]:
    """A streamed answer as the client reads it: its text, its closing check object, its last line."""
    lines = [line[6:] for line in body.splitlines() if line.startswith("data: ")]
    chunks = [json.loads(line) for line in lines if line.startswith("{")]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c.get("choices"))
    check = next(c["factdebate"] for c in chunks if "factdebate" in c)
    return text, check, lines[-1]


@pytest.mark.parametrize("kind", DEEP)
def test_a_checker_answering_deep_json_leaves_every_face_its_words_and_a_degraded_check(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    with FakeOpenAI(reply=DEEP[kind]) as checker, LiveServer(upstream_app(Upstream())) as upstream:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
        backend = make_backend("openai:m", base_url=checker.base_url)
        app = make_app(defaults=CHECKER, rate_limit_per_minute=0,
                       build=lambda settings: offline_build(settings, backend))
        with TestClient(app, raise_server_exceptions=False) as client:
            chat = client.post("/v1/chat/completions", json=CHAT, headers=AUTH)
            stream = client.post("/v1/chat/completions", json={**CHAT, "stream": True}, headers=AUTH)
            check = client.post("/v1/guard/check", json={"text": ANSWER, "factdebate": FAST}, headers=AUTH)
            verify = client.post("/v1/verify", json={"claim": "Paris is in France."}, headers=AUTH)
    assert chat.status_code == 200, chat.text
    # the upstream's words, all of them, then the default policy's (flag's) footnote on the check it could not make
    assert chat.json()["choices"][0]["message"]["content"].startswith(ANSWER + "\n\n---\nFact check:\n")
    assert chat.json()["factdebate"]["degraded"] is True, chat.text
    assert stream.status_code == 200, stream.text
    text, streamed_check, last = streamed(stream.text)
    assert text.startswith(ANSWER + "\n\n---\nFact check:\n") and streamed_check["degraded"] is True, stream.text
    assert last == "[DONE]", stream.text
    assert check.status_code == 200 and check.json()["degraded"] is True, check.text
    assert "could not be read" in check.json()["degraded_reason"], check.text
    # the verdict says no label was read from the model's answers, and keeps the answer it could not read
    assert verify.status_code == 200, verify.text
    verdict = verify.json()
    assert verdict["label"] is None and verdict["decided_by"] == "unparsed", verify.text
    assert verdict["rounds"][0]["turns"][0]["response"] == DEEP[kind]
    assert len(checker.requests) >= 3


class RecursingModel:
    """A model call that fails with a RecursionError of its own: what a parse of an answer nested past
    Python's reader raised where no reader caught it."""

    name = "recursing"
    endpoint = ""
    max_parallel = 1

    async def complete(self, messages: Any, params: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array from a unicode string")


def test_a_recursion_error_not_from_the_callers_body_is_the_services_500_never_the_callers_422(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    with LiveServer(upstream_app(Upstream())) as upstream:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
        app = make_app(defaults=CHECKER, rate_limit_per_minute=0,
                       build=lambda settings: offline_build(settings, RecursingModel()))
        with TestClient(app, raise_server_exceptions=False) as client:
            answers = [client.post(path, json=body, headers=AUTH) for path, body in (
                ("/v1/chat/completions", CHAT), ("/v1/guard/check", {"text": ANSWER, "factdebate": FAST}),
                ("/v1/verify", {"claim": "Paris is in France."}))]
            deep = client.post("/v1/verify", content='{"claim": "x", "extra": ' + "[" * 990 + "]" * 990 + "}",
                               headers={**AUTH, "Content-Type": "application/json"})
    for answer in answers:
        assert answer.status_code == 500, answer.text
        assert answer.json()["detail"] == "the request failed unexpectedly; see the server log", answer.text
    assert deep.status_code == 422 and "nests lists or objects too deeply" in deep.json()["detail"], deep.text


def test_the_apps_422_for_a_recursion_error_follows_the_depth_of_the_body_the_route_was_sent(
        make_app: AppFactory) -> None:
    """A route that met a RecursionError in reading a body that passed the middleware's own parse (which runs
    higher in the stack) answers the caller's 422 only when that body nests deeply."""
    app = make_app()

    async def reads_deeply() -> None:
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array from a unicode string")

    app.add_api_route("/reads-deeply", reads_deeply, methods=["POST"])
    deep, shallow = "[" * (DEEP_BODY + 1) + "]" * (DEEP_BODY + 1), '{"text": "[[[[ a string ]]]]"}'
    with TestClient(app, raise_server_exceptions=False) as client:
        answers = [client.post("/reads-deeply", content=body, headers={"Content-Type": "application/json"})
                   for body in (deep, shallow)]
    assert answers[0].status_code == 422 and "nests lists or objects too deeply" in answers[0].json()["detail"]
    assert answers[1].status_code == 500, answers[1].text


def test_a_bodys_depth_counts_its_brackets_outside_strings() -> None:
    assert nests_past(b'{"a": [[[]]]}', 3) and not nests_past(b'{"a": [[[]]]}', 4)
    assert not nests_past(b'{"a": "[[[[[[\\"[[[[", "b": []}', 2)  # brackets inside a string, an escaped quote
    assert nests_past(b"[" * (DEEP_BODY + 1), DEEP_BODY) and not nests_past(b"[]" * 10_000, DEEP_BODY)
    assert not nests_past(b'["' + b"[" * 500, DEEP_BODY)  # an unclosed string holds the rest
