"""The wheel on its own, as a user outside the repository meets it: built from this checkout, installed with
its extras into a new virtual environment (nothing from .venv), then the one documented command,
`factdebate setup`, and a verdict with the network cut off.

It takes minutes and needs PyPI for the extras' dependencies (pip's cache makes it cheaper: the
llama-cpp-python wheel that scripts/setup.sh built is reused), while the suite runs without a network, so it
runs only when asked: `make test-install` (FACTDEBATE_TEST_INSTALL=1). It indexes 40 of the built-in
corpus's articles (retrieval.builtin_docs) to stay short; the full index is the same code on more rows."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.paths import ROOT

pytestmark = [
    pytest.mark.install,
    pytest.mark.timeout(3600),  # minutes: llama.cpp is built from source when pip's cache holds no wheel of it
    pytest.mark.skipif(not os.environ.get("FACTDEBATE_TEST_INSTALL"),
                       reason="installs a wheel into a new environment (minutes, needs PyPI): make test-install"),
]
CLAIM = "The Eiffel Tower is located in Rome."
# The same portable flags as scripts/setup.sh, should pip's cache not hold a llama-cpp-python wheel.
PORTABLE = "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"


def offline(command: list[str]) -> list[str]:
    """``command`` in a network namespace of its own with only loopback, where the machine allows it."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-rn", "sh", "-c", 'ip link set lo up 2>/dev/null; exec "$@"', "sh", *command]
    return command


def test_a_new_environment_with_only_the_wheel_gets_an_offline_verdict_after_factdebate_setup(
        tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
                   check=True)
    wheel = next(dist.glob("factdebate-*.whl"))
    with zipfile.ZipFile(wheel) as built:  # the license the metadata declares travels with the code
        assert "Apache License" in built.read("factdebate-0.1.0.dist-info/licenses/LICENSE").decode()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)  # from the base interpreter: empty
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FACTDEBATE_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}:{env.get('PATH', '')}", CMAKE_ARGS=PORTABLE,
               FACTDEBATE_DATA_DIR=str(tmp_path / "data"), FACTDEBATE_RETRIEVAL__BUILTIN_DOCS="40")
    # --no-compile: byte-compiling is much of the install's time, and this environment is thrown away. The
    # README's line as written: `[all]` holds no torch (it once pulled CUDA torch, 6.5 GB in 31 min).
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile"]
    subprocess.run([*pip, f"{wheel}[all]"], env=env, check=True, cwd=tmp_path)
    listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"], env=env,
                            check=True, cwd=tmp_path, capture_output=True, text=True).stdout.lower()
    assert not [line for line in listed.splitlines() if line.startswith(("torch", "nvidia-", "sentence-"))], listed
    exe = str(venv / "bin" / "factdebate")

    def factdebate(*args: str, network: bool = True) -> subprocess.CompletedProcess[str]:
        command = [exe, *args] if network else offline([exe, *args])
        return subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900)

    shipped = factdebate("docs", "guard#streaming", network=False)  # messages cite it: the wheel carries docs/
    assert shipped.returncode == 0 and shipped.stdout.startswith("### Streaming\n"), shipped.stderr
    use = factdebate("docs", "readme#use", network=False)  # written for a clone, read as this reader has it
    assert use.returncode == 0 and "\nfactdebate verify " in use.stdout and ".venv/" not in use.stdout, use.stdout
    before = factdebate("doctor")
    assert before.returncode == 1 and "run `factdebate setup`" in before.stdout, before.stdout
    setup = factdebate("setup", "--no-model")  # the offline chat model's 1.1 GB: tests/hub/test_parts.py
    assert setup.returncode == 0, setup.stderr
    assert "installing 5 package(s)" in setup.stderr and "indexed the built-in corpus: 40 articles" in setup.stderr
    after = factdebate("doctor")
    still = [line for line in after.stdout.splitlines() if "factdebate setup" in line]
    assert after.returncode == 0 and all("offline model" in line for line in still), after.stdout

    env["HF_HUB_OFFLINE"] = "1"
    verdict = factdebate("verify", CLAIM, network=False)
    assert verdict.returncode == 0, verdict.stderr
    assert "Verdict:" in verdict.stdout and "decided by" in verdict.stdout
    lines = verdict.stdout.strip().splitlines()
    # the verdict's panel (the debaters' own answers above it write "Verdict:" too), then the note right under it
    label_at = next(n for n, line in enumerate(lines) if "Verdict:" in line and "decided by" in line)
    under = next(line for line in lines[label_at:] if not line.startswith(("│", "╰")))
    assert under.startswith("note: the embedded model"), verdict.stdout
