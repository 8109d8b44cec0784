"""A streamed reply the service had no room to check (``guard.on_overload: pass``,
server/guard/openai_chat/overloaded_stream.py)
holds what waits within the bytes a checked stream may hold (held chunks bounded by bytes):
under ``hold`` an answer past four times what the guard keeps of a streamed answer ends with an
``answer_too_long`` error chunk, never a growing buffer; under ``flag`` the same answer streams whole."""

from __future__ import annotations

import json
import threading
import time

import pytest

from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import SlowBackend, script
from tests.server.guard.test_guard_chat import PARIS, ROME, Guard, guard  # noqa: F401 - the fixture
from tests.server.guard_support import ANSWER, Upstream
from tests.server.ops.test_overload import CHECK_S, _chat, _service, _streamed

LONG = " ".join([ANSWER] * 12)  # about 1,000 characters: past 4 x 2 x guard.max_message_chars (100) in chunks


def test_an_overloaded_stream_holds_no_more_than_a_checked_one(guard: Guard,  # noqa: F811
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_GUARD__CHECKS_AT_ONCE", "1")
    monkeypatch.setenv("FACTDEBATE_GUARD__ON_OVERLOAD", "pass")
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_MESSAGE_CHARS", "100")
    backend: ScriptedBackend = SlowBackend(script(claims=[PARIS, ROME]), {"Rome": CHECK_S})
    server, _ = guard(Upstream(answer=LONG), backend=backend)
    assert _chat(server, 30).status_code == 200  # what one check takes alone is learnt from it
    service = _service(server)
    assert service.load.alone_s is not None
    deadline = 1.5 * service.load.alone_s
    running = threading.Thread(target=_chat, args=(server, 30))
    running.start()
    started = time.monotonic()
    while service.load.running < 1:
        assert time.monotonic() - started < 30, "the running check never began"
        time.sleep(0.01)
    held = _chat(server, deadline, stream=True, policy="hold")
    flagged = _chat(server, deadline, stream=True)
    running.join()
    chunks = [json.loads(line[6:]) for line in held.text.splitlines()
              if line.startswith("data: ") and line != "data: [DONE]"]
    assert chunks[-1]["error"]["code"] == "answer_too_long", held.text[-500:]
    assert "800 bytes" in chunks[-1]["error"]["message"]
    assert not any((c.get("choices") or [{}])[0].get("delta", {}).get("content") for c in chunks[:-1])  # nothing shown
    words, last = _streamed(flagged)  # under flag the chunks went out as they came: the answer whole
    assert words.startswith(LONG) and last["claims"][0]["reason"].startswith("overloaded:")
