"""What a command settles before its long work: a model server that does not answer is named in
one line before any index is built, a data folder that cannot be written is a usage error naming
``FACTDEBATE_DATA_DIR``, and a process that waits for another's build says so. Real processes and sockets;
the console script's own refusals are verify's and serve's, and the others are the same ``run()`` in this
process (``here``), where a start of the script would cost about a CPU-second the test worker has paid."""

from __future__ import annotations

import fcntl
import io
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from factdebate.corpus.builtin_index import build_lock
from tests.fake_openai import FakeOpenAI
from tests.readiness import run

EXE = str(Path(sys.executable).with_name("factdebate"))


def here(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: dict[str, str],
         *args: str) -> subprocess.CompletedProcess[str]:
    """``factdebate ARGS`` through factdebate.cli.main.run in this process with ``env`` set for it: its exit
    code and what it printed, as the console script's would be."""
    from factdebate.cli.main import run as cli_run

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    code = cli_run(list(args))
    said = capsys.readouterr()
    return subprocess.CompletedProcess(["factdebate", *args], code, said.out, said.err)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_dead_model_server_is_named_before_the_index_is_built(tmp_path: Path) -> None:
    data = tmp_path / "new-data"
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1",
           "OPENAI_BASE_URL": f"http://127.0.0.1:{closed_port()}/v1", "OPENAI_API_KEY": "sk-test"}
    done = run([EXE, "verify", "--llm", "openai:mymodel", "The Eiffel Tower is in Rome."], env=env,
               what="factdebate verify with a dead model server")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "does not answer" in lines[0] and "OPENAI_BASE_URL" in lines[0], done.stderr
    assert "indexing" not in done.stderr and not (data / "indexed.json").exists()


def test_a_server_that_answers_lets_the_run_go_on_and_spends_no_completion(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe asks the model list only: the fake (which has none) counts no extra chat request."""
    from factdebate.run.model_servers import check_model_servers
    from factdebate.settings.load import settings_from

    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        check_model_servers(settings_from({"llm": "openai:x", "method": "single"}, None))
        assert server.requests == []


def test_only_a_server_on_this_machine_with_the_in_flight_limit_unset_is_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What `serve`'s note names: the loopback servers that get one request at a time, credentials removed."""
    from factdebate.run.model_servers import sent_one_at_a_time
    from factdebate.settings.load import settings_from

    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:secret-pass@127.0.0.1:8080/v1")
    named = sent_one_at_a_time(settings_from({"llm": "openai:x", "method": "single"}, None))
    assert len(named) == 1 and "127.0.0.1:8080/v1" in named[0] and "secret-pass" not in named[0]
    assert sent_one_at_a_time(settings_from({"llm": "openai:x", "method": "single",
                                             "llm_max_in_flight": 4}, None)) == []  # the operator set it
    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.1.2.3:8000/v1")  # elsewhere: 64 at once already
    assert sent_one_at_a_time(settings_from({"llm": "openai:x", "method": "single"}, None)) == []
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
    assert sent_one_at_a_time(settings_from({"llm": "llama-cpp:builtin", "method": "single"}, None)) == []


def test_the_probe_keeps_what_a_server_on_this_machine_says_it_serves_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the run, a llama-server's slots (its /props) become the limit its models are sent, and `serve`'s
    notes name it as sent that many at once, not one at a time (llm/server_slots.py)."""
    from factdebate.llm import in_flight
    from factdebate.run.model_servers import check_model_servers, said_several_at_once, sent_one_at_a_time
    from factdebate.settings.load import settings_from

    monkeypatch.setattr(in_flight, "_learned", {})  # what a server said is kept per process, by its address
    with FakeOpenAI(owner="llamacpp", props={"total_slots": 4, "model_path": "/m.gguf"}) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        settings = settings_from({"llm": "openai:x", "method": "single"}, None)
        check_model_servers(settings)
        assert server.gets == ["/v1/models", "/props"] and server.requests == []  # no completion spent
    assert in_flight.default_limit(server.base_url) == 4
    [(where, said)] = said_several_at_once(settings)
    assert where == server.base_url.rstrip("/") and said.count == 4 and "total_slots 4" in said.said_by
    assert sent_one_at_a_time(settings) == []
    # the operator's setting wins: nothing is said of the server then
    assert said_several_at_once(settings_from({"llm": "openai:x", "method": "single",
                                               "llm_max_in_flight": 2}, None)) == []


def test_a_key_the_server_refuses_is_named_before_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from factdebate.run.model_servers import check_model_servers
    from factdebate.settings.load import settings_from
    from factdebate.util.errors import ConfigError

    class Refuses(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(401)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Refuses) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
        try:
            with pytest.raises(ConfigError, match=r"refused the key.*OPENAI_API_KEY"):
                check_model_servers(settings_from({"llm": "openai:x", "method": "single"}, None))
        finally:
            server.shutdown()


@pytest.mark.parametrize("place", ["under-a-file", "read-only"])
def test_an_unwritable_data_folder_is_one_line_naming_the_variable(tmp_path: Path, place: str,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    if place == "under-a-file":
        (tmp_path / "a-file").write_text("x")
        data = tmp_path / "a-file" / "data"
    else:
        data = Path("/proc/factdebate-data")  # nothing can be made there, root included
    env = {"FACTDEBATE_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1"}
    done = here(monkeypatch, capsys, env, "verify", "--llm", "scripted:agree", "The Eiffel Tower is in Rome.")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "FACTDEBATE_DATA_DIR" in lines[0] and "bug" not in lines[0], done.stderr


def test_a_process_waiting_for_another_build_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path))
    # Its own stderr, read without truncating: capfd.readouterr() reads then truncates, so a line the thread
    # wrote between the two was lost and the loop waited for it until pytest-timeout (CI, stop 70).
    said = io.StringIO()
    monkeypatch.setattr(sys, "stderr", said)
    holder = (tmp_path / ".build-builtin.lock").open("w")
    fcntl.flock(holder, fcntl.LOCK_EX)  # another open file: to flock, another process
    entered = threading.Event()

    def build() -> None:
        with build_lock("build-builtin"):
            entered.set()

    waiter = threading.Thread(target=build)
    waiter.start()
    while "waiting for another factdebate process" not in said.getvalue():  # (pytest-timeout: none said)
        assert waiter.is_alive() and not entered.is_set(), "it went on while the other build held the lock"
        time.sleep(0.02)
    fcntl.flock(holder, fcntl.LOCK_UN)
    holder.close()
    waiter.join(timeout=60)
    assert entered.is_set()


def test_reproduce_names_a_dead_model_server_once_before_any_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Each cell used to start up (datasets, indexes) and fail on its own; the probe runs before the first."""
    env = {"FACTDEBATE_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1",
           "OPENAI_BASE_URL": f"http://127.0.0.1:{closed_port()}/v1", "OPENAI_API_KEY": "sk-test"}
    done = here(monkeypatch, capsys, env, "reproduce", "dpd", "--llm", "openai:mymodel", "--limit", "2", "-o",
                str(tmp_path / "run"))
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "does not answer" in errors[0] and "OPENAI_BASE_URL" in errors[0], done.stderr
    assert "failed" not in done.stderr and not (tmp_path / "data" / "indexed.json").exists()


def serve_start(tmp_path: Path, base_url: str) -> list[str]:
    """What the real `factdebate serve` prints, its model server at ``base_url``, until it listens; then it stops."""
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(tmp_path), "HF_HUB_OFFLINE": "1",
           "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": "10", "FACTDEBATE_METHOD": "cot", "FACTDEBATE_LLM": "openai:m",
           "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-test"}
    server = subprocess.Popen([EXE, "serve", "--no-auth", "--port", str(closed_port())], env=env, text=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert server.stderr is not None
    said = []
    try:
        for line in server.stderr:
            said.append(line)
            if line.startswith("factdebate serving on"):
                break
    finally:
        server.terminate()
        server.communicate(timeout=60)
    assert said and said[-1].startswith("factdebate serving on"), said
    return said


def test_serve_says_a_server_that_batches_is_sent_many_at_once(tmp_path: Path) -> None:
    """The real `serve` asks a vLLM on this machine what it is, and says what it will be sent."""
    with FakeOpenAI(owner="vllm") as model_server:
        said = serve_start(tmp_path, model_server.base_url)
    notes = [line for line in said if line.startswith("note: the model server at")]
    assert len(notes) == 1, said
    assert notes[0].startswith(f"note: the model server at {model_server.base_url.rstrip('/')} is sent up "
                               "to 64 requests at once, as it said (vLLM batches requests"), said
    assert model_server.gets == ["/v1/models"] and model_server.requests == []


def test_serve_says_a_dead_model_server_in_one_line_and_starts(tmp_path: Path) -> None:
    """A service may start before its model server: one warning line, then it serves."""
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    said = serve_start(tmp_path, base_url)
    warnings = [line for line in said if "does not answer" in line]
    assert len(warnings) == 1 and warnings[0].startswith("warning:") and "the service starts" in warnings[0], said
    # the server is on loopback and llm.max_in_flight unset: the operator is told it gets one request at a time
    notes = [line for line in said if "one request at a time" in line]
    assert len(notes) == 1 and notes[0].startswith(f"note: the model server at {base_url} "), said
    assert "FACTDEBATE_LLM__MAX_IN_FLIGHT" in notes[0] and "factdebate docs service#sizing" in notes[0], said
