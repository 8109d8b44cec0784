"""scripts/uv-tool.sh, the installer setup uses: uv installs a hash-pinned lock from the sources pip is configured
with (uv reads no pip configuration of its own), and where uv cannot be had the caller is told why, to fall back
to pip. The install runs the real uv that setup put in the machine's tools folder, from a local find-links folder
and an empty local index, so nothing is fetched."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.paths import ROOT

TOOLS = Path(os.environ.get("FACTDEBATE_TOOLS_DIR") or
             Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "factdebate" / "tools")


def _wheel(folder: Path, name: str, version: str) -> Path:
    """A one-module wheel, written as a build backend writes one (METADATA, WHEEL, RECORD)."""
    path = folder / f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": f"VERSION = {version!r}\n",
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = []
    for file, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{file},sha256={digest},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    with zipfile.ZipFile(path, "w") as archive:
        for file, text in files.items():
            archive.writestr(file, text)
        archive.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path


def _source(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", f"set -euo pipefail; PY={sys.executable}; . scripts/uv-tool.sh; {script}"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_uv_installs_a_hashed_lock_from_the_find_links_pip_is_configured_with(tmp_path: Path) -> None:
    uv_home = next(iter(sorted(TOOLS.glob("uv-*/bin/uv"))), None)
    if uv_home is None:
        pytest.skip(f"no uv in {TOOLS}: scripts/setup.sh installs it there")
    wheels, index = tmp_path / "wheels", tmp_path / "index"
    wheels.mkdir()
    index.mkdir()  # an empty simple index: the only other source, so that nothing is asked of the network
    wheel = _wheel(wheels, "tinypkg", "1.2.0")
    lock = tmp_path / "lock.txt"
    lock.write_text(f"tinypkg==1.2.0 \\\n    --hash=sha256:{hashlib.sha256(wheel.read_bytes()).hexdigest()}\n")
    config = tmp_path / "pip.conf"
    config.write_text(f"[global]\nindex-url = file://{index}\nfind-links = {wheels}\n")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = {**os.environ, "PIP_CONFIG_FILE": str(config), "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    env.pop("PIP_FIND_LINKS", None)
    done = _source(f'uv_ready; uv_install {venv}/bin/python --no-deps --require-hashes -r {lock}', env)
    assert done.returncode == 0, done.stderr
    got = subprocess.run([str(venv / "bin" / "python"), "-c", "import tinypkg; print(tinypkg.VERSION)"],
                         capture_output=True, text=True, check=True)
    assert got.stdout == "1.2.0\n"
    # a file whose digest is not the lock's is refused, as pip refuses it
    lock.write_text("tinypkg==1.2.0 \\\n    --hash=sha256:" + "0" * 64 + "\n")
    refused = _source(f'uv_ready; uv_install {venv}/bin/python --reinstall --no-deps --require-hashes -r {lock}', env)
    assert refused.returncode != 0 and "hash" in refused.stderr.lower(), refused.stderr


def test_where_uv_cannot_be_had_the_caller_is_told_why(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    env = {**os.environ, "FACTDEBATE_TOOLS_DIR": str(blocked / "tools")}
    done = _source('if uv_ready; then echo ready; else echo "no: $UV_NOTE"; fi', env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"no: {blocked / 'tools'} cannot be written\n"
