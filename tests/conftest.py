"""Shared test fixtures. The whole suite refuses outbound network connections: only loopback is allowed
(Milvus Lite, local servers), so a test that would reach the internet fails loudly instead of passing."""

from __future__ import annotations

import importlib
import ipaddress
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.parallel import SHARED_FIXTURES, build_once, run_folder, xdist_group_for
from tests.recorded_http import recorded  # noqa: F401  (the recorded answers of the search tools' tests)
from tests.tiers import is_full_only

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_local(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # unix socket
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        raise OSError(f"network access blocked in tests: {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        raise OSError(f"network access blocked in tests: {address!r}")
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]

# Property-based tests: ``ci`` (the default) draws a fixed sequence of examples (a fixed seed, no example
# database), so ``make test`` runs the same cases each time; ``pytest --hypothesis-profile=long`` draws many more
# (tests/guard/conformance/test_generated.py reads the loaded profile's count for its families).
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("long", max_examples=300, database=None, deadline=None, print_blob=True)
settings.load_profile("ci")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that share a server or a module-scoped fixture run in one worker (tests/parallel.py); a test's
    own ``xdist_group`` mark wins. The tests ``make test`` leaves to ``make test-all`` are marked ``full``
    (tests/tiers.py)."""
    for item in items:
        if is_full_only(item.nodeid.split("@")[0]):
            item.add_marker(pytest.mark.full)
        if item.get_closest_marker("xdist_group") is None and (group := xdist_group_for(item)):
            item.add_marker(pytest.mark.xdist_group(group))
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # The slow tests first, so that the run does not end waiting on one of them (a stable sort; groups
        # are then scheduled largest first by xdist itself). A single process keeps the files' order.
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own data directory unless it asks for another one: a fresh name in one folder of
    its own, not ``mktemp``'s numbered one, which lists every folder the run made so far to find the next
    number (each test paid for all those before it: about 3 ms a test after a thousand)."""
    folder = tmp_path_factory.getbasetemp() / "data"
    folder.mkdir(exist_ok=True)
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", tempfile.mkdtemp(prefix="data-", dir=folder))
    for name in ("TAVILY_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "FACTDEBATE_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def _held_secrets_restored() -> Iterator[None]:
    """The secrets and hosts the process holds (util/scrub/held.py keeps them for its life) as they were before,
    once the test or module that added some ends."""
    # The module, by its name: the package's own "held" is the function that reads it.
    held_values: Any = importlib.import_module("factdebate.util.scrub.held")
    before = held_values.held()
    yield
    with held_values._lock:
        held_values._held = before


@pytest.fixture(autouse=True, scope="module")
def _module_holds_its_own_secrets() -> Iterator[None]:
    """What a module's shared fixtures (a server made once) made the process hold is forgotten after it."""
    yield from _held_secrets_restored()


@pytest.fixture(autouse=True)
def _test_holds_its_own_secrets() -> Iterator[None]:
    """What a test made the process hold (its keys, its servers' hosts) is forgotten when it ends: one worker
    runs many tests, and a secret another test held would be masked in this one's text (a half of a key, met
    beside its other half in a digest or a path, say)."""
    yield from _held_secrets_restored()


@pytest.fixture(autouse=True)
def _servers_not_down() -> None:
    """No model server is down for a test because an earlier test's, on the same port, refused connections
    (llm/breaker.py keeps what it learned for the process)."""
    from factdebate.llm import breaker

    breaker.forget()


# The Milvus server while its tests run: (server, URI), or the reason it could not start (said by every test
# that asks for it, without a second try).
_milvus: list[tuple[Any, str]] = []
_milvus_unavailable: list[str] = []


@pytest.fixture
def milvus_server_uri() -> str:
    """A Milvus standalone server (tests/milvus_server.py), started by the first test that needs it and shared
    by the next ones; the tests that need one are skipped, with the reason, where it cannot start. Under xdist
    its tests are one group, run one after another on one worker, and the server stops when the group ends
    (``pytest_runtest_teardown``): idle, it still costs about 1.1 CPU-seconds a minute, and the worker may run
    other tests for minutes after. In one process it lives until the session ends."""
    from tests.milvus_server import MilvusServer, MilvusUnavailable

    if _milvus_unavailable:
        pytest.skip(_milvus_unavailable[0])
    if not _milvus:
        server = MilvusServer()
        try:
            _milvus.append((server, server.start()))
        except MilvusUnavailable as exc:
            _milvus_unavailable.append(str(exc))
            pytest.skip(str(exc))
    return _milvus[0][1]


def _in_milvus_group(item: pytest.Item | None) -> bool:
    mark = item.get_closest_marker("xdist_group") if item is not None else None
    return mark is not None and mark.args[:1] == (SHARED_FIXTURES["milvus_server_uri"],)


def _stop_milvus() -> None:
    while _milvus:
        _milvus.pop()[0].stop()


@pytest.hookimpl(trylast=True)  # after the test's own fixtures are torn down: they may still talk to Milvus
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if _milvus and os.environ.get("PYTEST_XDIST_WORKER") and not _in_milvus_group(nextitem):
        _stop_milvus()


def pytest_sessionfinish() -> None:
    _stop_milvus()


@pytest.fixture(scope="session")
def onnx_model_file(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The int8 encoder's model, exported once for the run (shared by the xdist workers): a test that runs
    the real encoder in several processes copies it into its data folder (``<data>/models/``) instead of
    exporting it again."""
    pytest.importorskip("onnxruntime")
    from factdebate.embeddings import onnx

    return build_once(run_folder(tmp_path_factory) / "onnx" / onnx.ONNX_FILE, onnx._export)


BUILTIN_DOCS = "40"  # the slice of the built-in corpus the tests that search it use


def _index_builtin(target: Path, model: Path) -> None:
    """A data folder holding the int8 encoder and both indexes of the built-in corpus's first articles, made
    by ``factdebate index --builtin`` beside ``target`` and then moved there (a half-built folder never
    looks finished)."""
    building = target.with_name(target.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    (building / "models").mkdir(parents=True)
    shutil.copy(model, building / "models" / model.name)
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(building), "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": BUILTIN_DOCS,
           "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([str(Path(sys.executable).with_name("factdebate")), "index", "--builtin"], env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"indexing the built-in corpus for the tests failed:\n{done.stderr[-3000:]}"
    building.rename(target)


@pytest.fixture(scope="session")
def builtin_index_folder(tmp_path_factory: pytest.TempPathFactory, onnx_model_file: Path) -> Path:
    """The built-in corpus's first 40 articles indexed (Milvus Lite and tantivy, int8 encoder) once for the
    run, in a data folder every worker copies from (``builtin_index``)."""
    return build_once(run_folder(tmp_path_factory) / f"builtin-{BUILTIN_DOCS}",
                      lambda target: _index_builtin(target, onnx_model_file))


@pytest.fixture
def builtin_index(builtin_index_folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own data folder with the built-in corpus's first 40 articles already indexed and the int8
    encoder exported (a copy of the run's, so a test may write to it): a test that searches the built-in
    corpus starts where the others' first search would have left it, instead of exporting the encoder
    (9-10 CPU-seconds) and indexing again. Sets ``FACTDEBATE_RETRIEVAL__BUILTIN_DOCS`` to match."""
    data = Path(os.environ["FACTDEBATE_DATA_DIR"])
    shutil.copytree(builtin_index_folder, data, dirs_exist_ok=True)
    monkeypatch.setenv("FACTDEBATE_RETRIEVAL__BUILTIN_DOCS", BUILTIN_DOCS)
    return data
