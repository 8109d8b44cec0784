"""Settings that reach outside (an endpoint, a command, the executor, a key, a path) are marked where they are
declared, and the lists of what a found ``factdebate.yaml`` or a run folder's ``run.json`` may not set come
from those marks, so a new field of that kind cannot be forgotten. The one setting that builds a
host name, ``retrieval.wikipedia_lang``, takes a language code and nothing else."""

from __future__ import annotations

import json
import re
import socket
import threading
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

from factdebate.cli.main import run
from factdebate.core.fields import exposure, offered, walk
from factdebate.methods.base import Method
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings
from factdebate.settings.operator_paths import commands_and_endpoints, operator_paths, path_settings
from factdebate.util.errors import ConfigError
from tests.eval.reproduce.test_cells import claims_file

# Names that say a value is a URL, a host, a command, a path, a key or an executor.
SUSPECT = re.compile(r"(^|_)(urls?|uris?|hosts?|endpoints?|address(es)?|commands?|cmds?|paths?|dirs?|folders?|"
                     r"files?|keys?|executors?|upstream)(_|$)")
PROGRAM_FIELDS = {"command", "url", "args", "cwd"}  # a model holding these starts or reaches a program


def _types(annotation: Any) -> Iterator[Any]:
    yield annotation
    for arg in typing.get_args(annotation):
        yield from _types(arg)


def _numbers_only(annotation: Any) -> bool:
    """A value that can only be a number or a flag names nothing outside (``upstream_timeout_s``)."""
    leaves = [t for t in _types(annotation) if not typing.get_args(t) and t is not type(None)]
    return bool(leaves) and all(t in (int, float, bool) for t in leaves) and typing.get_origin(annotation) in (
        None, typing.Union, types.UnionType)


def _holds_programs(annotation: Any) -> bool:
    return any(isinstance(t, type) and issubclass(t, BaseModel) and PROGRAM_FIELDS & set(t.model_fields)
               for t in _types(annotation))


def looks_outside(name: str, info: FieldInfo) -> bool:
    return (bool(SUSPECT.search(name)) and not _numbers_only(info.annotation)) or _holds_programs(info.annotation)


def every_field() -> list[tuple[tuple[str, ...], FieldInfo]]:
    fields = list(walk(Settings))
    for name, method in Method.registered().items():
        fields += list(walk(method.settings_model, ("methods", name)))
    return fields


def unmarked(fields: list[tuple[tuple[str, ...], FieldInfo]]) -> list[str]:
    return [".".join(path) for path, info in fields
            if looks_outside(path[-1], info) and not exposure(info).get("reaches")]


def test_every_setting_that_reaches_outside_is_marked_where_it_is_declared() -> None:
    assert unmarked(every_field()) == []


def test_the_walk_finds_an_unmarked_field_of_each_kind() -> None:
    class Server(BaseModel):
        command: str = ""

    class Added(BaseModel):
        callback_url: str = ""
        proxy_host: str | None = None
        report_dir: str = ""
        signing_key: str = ""
        tools: dict[str, Server] = Field(default_factory=dict)
        executor: Literal["here", "there"] = "here"
        marked_url: str = Field(default="", json_schema_extra=offered(reaches="endpoint"))
        upstream_timeout_s: float = 1.0
        label_file_count: int = 0

    assert unmarked(list(walk(Added))) == ["callback_url", "proxy_host", "report_dir", "signing_key", "tools",
                                           "executor"]


def test_the_operator_lists_are_read_off_the_marks() -> None:
    refused = set(commands_and_endpoints())
    assert {("mcp_servers",), ("llm", "base_urls"), ("retrieval", "milvus_uri"), ("scale", "ray_address"),
            ("scale", "executor"), ("guard", "upstream"), ("guard", "upstream_key_env")} <= refused
    assert set(path_settings()) == {("methods", "mermaid", "memory_path"), ("methods", "mermaid", "memory_from")}
    rerun = operator_paths()
    assert ("scale",) in rerun and ("scale", "executor") not in rerun  # the section covers its fields
    assert all(any(path[:len(own)] == own for own in rerun) for path in refused)
    marked = {path for path, info in every_field() if exposure(info).get("reaches")}
    assert marked == refused | set(path_settings())
    assert all(exposure(info).get("operator_only") for path, info in every_field() if path in marked)


@pytest.mark.parametrize("lang", ["en", "de", "simple", "zh-yue", "zh-min-nan", "zh-classical", "be-tarask"])
def test_wikipedia_language_codes_are_taken(lang: str) -> None:
    assert Settings.model_validate({"retrieval": {"wikipedia_lang": lang}}).retrieval.wikipedia_lang == lang


@pytest.mark.parametrize("lang", ["127.0.0.1:8080/#", "evil.example", "en/", "en#", "", "-en", "en-",
                                  "abcdefghijklm", "en\n", "e n"])
def test_anything_but_a_language_code_is_refused_in_one_line(lang: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_settings(overrides={"retrieval": {"wikipedia_lang": lang}}, environ={})
    message = str(refused.value)
    assert "retrieval.wikipedia_lang: not a Wikipedia language code" in message and "\n" not in message


@pytest.fixture
def listener() -> Iterator[list[int]]:
    """A loopback port that counts the connections made to it (the host a hostile setting would name)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    seen: list[int] = [server.getsockname()[1]]
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            seen.append(1)
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield seen
    stop.set()
    thread.join(2)
    server.close()


WIKI_SEARCH = ["--agents", "search,none", "--search", "wikipedia", "--no-scoring", "--rounds", "1",
               "--llm", "scripted:agree", "--no-cache"]


def test_a_found_file_cannot_send_queries_to_another_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str],
                                                          listener: list[int]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "factdebate.yaml").write_text(f"retrieval:\n  wikipedia_lang: '127.0.0.1:{listener[0]}/#'\n",
                                              encoding="utf-8")
    code = run(["verify", "Paris is the capital of France.", *WIKI_SEARCH])
    lines = [line for line in capsys.readouterr().err.splitlines() if "reading settings from" not in line]
    assert code == 2, lines
    assert len(lines) == 1 and "retrieval.wikipedia_lang: not a Wikipedia language code" in lines[0], lines
    assert listener[1:] == [], "a query went to the host the file named"


def test_a_run_folder_cannot_send_queries_to_another_host(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          listener: list[int]) -> None:
    first = tmp_path / "first"
    code = run(["eval", "--method", "tool-mad", "--dataset", f"claims:{claims_file(tmp_path / 'c.jsonl', n=1)}",
                "-o", str(first), "--agents", "none,none", "--no-scoring", "--rounds", "1", "--llm", "scripted:agree",
                "--no-cache"])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    record = json.loads((first / "run.json").read_text(encoding="utf-8"))
    record["settings"]["retrieval"].update({"search": "wikipedia", "wikipedia_lang": f"127.0.0.1:{listener[0]}/#"})
    record["settings"]["methods"]["tool-mad"]["agents"] = ["search", "none"]
    (first / "run.json").write_text(json.dumps(record), encoding="utf-8")
    code = run(["reproduce", "--from", str(first), "-o", str(tmp_path / "again")])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert "retrieval.wikipedia_lang: not a Wikipedia language code" in err and len(err.splitlines()) == 1, err
    assert listener[1:] == [], "the rerun sent a query to the host the run folder named"
