"""`factdebate serve --guard-upstream URL` as an operator starts it: a real process in front of a scripted model
server, and a URL the guard refuses before anything starts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx

from tests.readiness import run
from tests.server.conftest import LiveServer, free_port
from tests.server.guard_support import ANSWER, Upstream, upstream_app
from tests.server.test_commands import EXE, _env, _wait_until_up


def test_serve_with_a_guard_upstream_answers_chat_completions(tmp_path: Path) -> None:
    upstream = Upstream()
    with LiveServer(upstream_app(upstream)) as model:
        port = free_port()
        env = {k: v for k, v in _env(tmp_path, FACTDEBATE_GUARD_UPSTREAM_KEY="operator-key-0123").items()
               if k != "FACTDEBATE_LLM"}
        process = subprocess.Popen([EXE, "serve", "--no-auth", "--port", str(port), "--llm", "scripted:agree",
                                    "--agents", "none,none", "--no-scoring", "--no-cache",
                                    "--guard-upstream", f"{model.url}/v1"],
                                   env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_until_up(url, process)
            reply = httpx.post(f"{url}/v1/chat/completions", timeout=60, json={
                "model": "scripted", "messages": [{"role": "user", "content": "Tell me about Paris."}],
                "factdebate": {"tier": "standard", "deadline_s": 30}})
        finally:
            process.terminate()
            output, _ = process.communicate(timeout=20)
    assert reply.status_code == 200, reply.text
    answer = reply.json()
    assert answer["choices"][0]["message"]["content"] == ANSWER and answer["factdebate"]["claims"]
    assert upstream.headers[0]["authorization"] == "Bearer operator-key-0123"
    assert "operator-key" not in output


def test_serve_refuses_a_guard_upstream_that_is_not_a_v1_base_url(tmp_path: Path) -> None:
    result = run([EXE, "serve", "--no-auth", "--port", str(free_port()), "--guard-upstream",
                  "ftp://model.example/chat"], what="factdebate serve with an ftp upstream", env=_env(tmp_path))
    assert result.returncode == 2 and "guard.upstream" in result.stderr and "Traceback" not in result.stderr
