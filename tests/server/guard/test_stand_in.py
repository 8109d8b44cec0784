"""The stand-in upstream (``factdebate stand-in-upstream``, server/guard/stand_in.py) and the offline quick start
of docs/ways/proxy.md that runs on it, as the page prints it (tests/server/proxy_quick_start.py): with a scripted
checker (``FACTDEBATE_LLM=scripted:disagree``) in make test, on the offline model that ``factdebate setup``
installs in make test-all (tests/tiers.py)."""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from factdebate.hub.offline_model import QWEN_CODER_1_5B
from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods import Resources
from factdebate.server.app import create_app
from factdebate.server.guard.stand_in import MODEL, StandIn, stand_in_app
from factdebate.settings.model import Settings
from tests.guard.support import script
from tests.readiness import wait_until_ready
from tests.server.conftest import KEY, PLAIN, LiveServer, free_port, offline_build
from tests.server.proxy_quick_start import (
    EXE,
    FALSE,
    NOTES,
    SAYS,
    installed_data_folder,
    marked,
    offline_data_folder,
    reader_env,
    run_quick_start,
)

TRUE = "It stands in Paris."
CAUTION = "flag comes from a small model that runs offline"
FLAGGED = f'{SAYS}{NOTES}- "{FALSE}" is contradicted by the evidence'


def _label(claim: str) -> str:
    return "REFUTES" if "1899" in claim else "SUPPORTS"


def _refuting_1899(claim: str) -> str:
    """The fast tier's double: 1899 refuted, the rest supported, each on the first passage."""
    return json.dumps({"label": _label(claim), "passage": 1, "quote": "The tower was completed in 1889."})


@contextlib.contextmanager
def _proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           checker: str | None = None) -> Iterator[tuple[LiveServer, StandIn]]:
    stand_in = StandIn(answer=SAYS)
    with LiveServer(stand_in_app(stand_in)) as model:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        backend = ScriptedBackend(script(claims=[FALSE, TRUE], fast=_refuting_1899,
                                         debate=lambda call, claim: _label(claim)))  # at whichever tier

        def build(settings: Settings) -> Resources:  # the checker's replies are the script's, its name ``checker``
            named = settings.llm.model_copy(update={"debater": checker}) if checker else settings.llm
            return offline_build(settings.model_copy(update={"llm": named}), backend)

        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite", rate_limit_per_minute=0,
                         build=build)
        with LiveServer(app) as server:
            yield server, stand_in


@pytest.fixture
def proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LiveServer, StandIn]]:
    """The stand-in (the library's app, as the command serves it) and the guard in front of it, with a checker
    double that refutes the 1899 sentence."""
    with _proxy(tmp_path, monkeypatch) as both:
        yield both


def test_through_the_proxy_the_client_receives_the_false_sentence_marked_plain_and_streamed(
        proxy: tuple[LiveServer, StandIn]) -> None:
    server, stand_in = proxy
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0, timeout=60)
    ask: dict[str, Any] = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Tell me about the Eiffel "
                                                                                            "Tower."}]}
    plain = client.chat.completions.create(**ask)
    assert (plain.choices[0].message.content or "").startswith(FLAGGED)
    assert plain.model == "gpt-4o-mini"  # the request's model, echoed by the stand-in as an upstream does
    assert plain.model_extra is not None and plain.model_extra["factdebate"]["action_taken"] == "flagged"
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in client.chat.completions.create(
        **ask, stream=True) if chunk.choices)
    assert streamed.startswith(FLAGGED)
    assert [body.get("stream", False) for body in stand_in.requests] == [False, True]  # both reached the stand-in
    assert CAUTION not in streamed  # a script's flag is no in-process model's


def test_under_the_offline_models_flag_the_client_reads_how_little_such_a_flag_is_worth(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chat client sees the text, not the ``warnings`` beside it: a flag the offline model decided says, in the
    footnote itself, that a small offline model decided it and how often its flags were right. The checker answers
    as scripted, under the offline model's name (the real model is the slow test below)."""
    with _proxy(tmp_path, monkeypatch, QWEN_CODER_1_5B.spec) as (server, _):
        client = openai.OpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0, timeout=60)
        ask: dict[str, Any] = {"model": "gpt-4o-mini", "messages": [  # a conversation of several turns
            {"role": "system", "content": "You answer questions about Paris."},
            {"role": "user", "content": "Which tower stands in Paris?"},
            {"role": "assistant", "content": "The Eiffel Tower stands in Paris."},
            {"role": "user", "content": "When was it finished?"}]}
        plain = client.chat.completions.create(**ask).choices[0].message.content or ""
        streamed = "".join(chunk.choices[0].delta.content or "" for chunk in client.chat.completions.create(
            **ask, stream=True) if chunk.choices)
    for text in (plain, streamed):
        flag, caution = text.split(NOTES, 1)[1].splitlines()[:2]
        assert flag.startswith(f'- "{FALSE}" is contradicted by the evidence'), text
        assert caution == (
            "- This flag comes from a small model that runs offline (Qwen2.5-Coder-1.5B), and about 1 in 6 of its "
            "flags was right on public fact-check passages: read it as a sentence to look at beside its quote, not "
            "as a finding."), text


def _start_command(*args: str) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    process = subprocess.Popen([EXE, "stand-in-upstream", "--port", str(port), *args], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return httpx.get(url + "/v1/models", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    wait_until_ready(up, process, "factdebate stand-in-upstream", every_s=0.1,
                     log=lambda: process.stdout.read() if process.stdout and process.poll() is not None else "")
    return process, url


def test_the_command_answers_every_request_with_its_text_plain_and_streamed() -> None:
    process, url = _start_command("--says", SAYS)
    try:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="none", max_retries=0, timeout=30)
        assert [model.id for model in client.models.list()] == [MODEL]
        for question in ("Tell me about the Eiffel Tower.", "What is 2 + 2?"):
            messages: list[Any] = [{"role": "user", "content": question}]
            done = client.chat.completions.create(model="any", messages=messages)
            assert done.choices[0].message.content == SAYS and done.choices[0].finish_reason == "stop"
            chunks = list(client.chat.completions.create(model="any", messages=messages, stream=True))
            assert "".join(c.choices[0].delta.content or "" for c in chunks) == SAYS
            assert chunks[-1].choices[0].finish_reason == "stop"
        refused = httpx.post(f"{url}/v1/chat/completions", content=b"not json", timeout=10)
        assert refused.status_code == 400 and "not JSON" in refused.json()["error"]["message"]
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert f"stand-in upstream on {url}/v1" in output and "Traceback" not in output


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    from factdebate.cli.main import run

    code = run(["stand-in-upstream", *args])
    said = capsys.readouterr()
    return code, said.out + said.err


def test_a_busy_port_and_empty_text_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        code, said = _cli(capsys, "--port", str(port), "--says", SAYS)
    assert code == 2 and said.strip().count("\n") == 0, said
    assert f"127.0.0.1:{port}: the address is already in use" in said and "--port" in said
    for empty in ("", "   "):
        code, said = _cli(capsys, "--says", empty)
        assert code == 2 and said.strip().count("\n") == 0, said
        assert "--says is empty" in said


@pytest.mark.skipif(shutil.which("curl") is None, reason="the quick start's lines use curl")
def test_the_offline_quick_start_runs_as_the_page_prints_it(builtin_index: Path, tmp_path: Path) -> None:
    """With a scripted checker that refutes every claim on the first passage found: the reply the curl prints is
    the stand-in's text, with the 1899 sentence marked under it."""
    # At the fast tier alone, where the offline checker starts and stays (a scripted one would start at the
    # standard tier, and its judge supports): the tests' 40 articles hold no passage on the tower, so the
    # double's REFUTES quotes words about something else, and both sentences are marked unchecked.
    reply, said, _ = run_quick_start(tmp_path, reader_env(FACTDEBATE_LLM="scripted:disagree",
                                                          FACTDEBATE_GUARD__TIER="fast",
                                                          FACTDEBATE_GUARD__MAX_TIER="fast"))
    content = reply["choices"][0]["message"]["content"]
    assert content.startswith(SAYS + NOTES) and marked(content), content
    assert reply["factdebate"]["action_taken"] == "flagged" and "Traceback" not in said


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("curl") is None
                    or not (installed_data_folder() / "models" / QWEN_CODER_1_5B.file).exists(),
                    reason="the offline model is not installed (factdebate setup) or curl is missing")
def test_the_offline_quick_start_marks_the_false_sentence_on_the_offline_model(tmp_path: Path) -> None:
    """The page's lines as a reader runs them after ``factdebate setup``: no --llm, so the checker is the offline
    model, in a data folder of the test's own with the installed models and index (no cache of earlier
    answers). Refuted or unchecked (the deadline may end first on a busy machine), the sentence is marked."""
    data = offline_data_folder(tmp_path / "data", installed_data_folder())
    reply, said, _ = run_quick_start(tmp_path, reader_env(FACTDEBATE_DATA_DIR=str(data)))
    content = reply["choices"][0]["message"]["content"]
    assert content.startswith(SAYS) and marked(content), content
    assert "Traceback" not in said
    if not reply["factdebate"]["deadline_missed"]:  # decided in time: the true sentence is not marked
        assert "It stands in Paris." not in content.split(NOTES, 1)[-1], content
    if "is contradicted by the evidence" in content:  # a flag of this model's says what such a flag is worth
        assert CAUTION in content, content
