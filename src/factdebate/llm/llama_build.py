"""Whether the installed llama-cpp-python runs on other CPUs than the one that compiled it, and its rebuild.

``pip install 'factdebate[all]'`` compiles llama-cpp-python with ``-march=native``, so the environment copied
to a CPU without the builder's instructions dies with SIGILL on import. Setup builds it with
``PORTABLE_CMAKE_ARGS`` (x86-64 with AVX2, FMA and F16C) and rebuilds a native one (cli/setup.py), told apart by
``llama_print_system_info`` (a native build adds AVX-512, AVX-VNNI or AMX), asked in a child process, since a
library built for another CPU kills the process that loads it."""

from __future__ import annotations

import platform
import re
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from factdebate.util.child_python import python_command, python_env

DIST = "llama-cpp-python"
VERSION = "0.3.36"  # pyproject.toml's [local] pin
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"  # the lock's, of the sdist
# The setup script's flags, word for word (tests/cli/test_setup.py holds the two together).
PORTABLE_CMAKE_ARGS = "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
LEAN_HOOK = "llama_lean.cmake"  # beside this module; the setup script names it too
# What a build with those flags reports as on (GGML_NATIVE=OFF also turns BMI2 on, as measured here).
PORTABLE_FEATURES = frozenset({"SSE3", "SSSE3", "AVX", "AVX2", "F16C", "FMA", "BMI2"})
_X86_FEATURE_ON = re.compile(r"\b(SSE\w*|SSSE3|AVX\w*|F16C|FMA|BMI2|AMX\w*)\s*=\s*1\b")
_ASK = "import llama_cpp; print(llama_cpp.llama_print_system_info().decode())"
ASK_TIMEOUT_S = 120.0  # loading the library takes about a second; a loaded machine may take longer


@dataclass(frozen=True)
class Build:
    kind: Literal["absent", "portable", "native", "broken", "other-cpu"]
    detail: str = ""

    @property
    def needs_rebuild(self) -> bool:
        return self.kind in ("native", "broken")


def beyond_portable(system_info: str) -> list[str]:
    """The x86 instruction sets ``system_info`` reports on that the portable flags never enable."""
    return sorted({m.group(1) for m in _X86_FEATURE_ON.finditer(system_info)} - PORTABLE_FEATURES)


def installed_build() -> Build:
    """What the llama-cpp-python of this environment was compiled for, asked in a child process."""
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None:
        return Build("absent")
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return Build("other-cpu", platform.machine())  # the portable flags are x86's
    try:
        done = subprocess.run(python_command("-c", _ASK), capture_output=True, text=True, env=python_env(),
                              timeout=ASK_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return Build("broken", f"loading it took over {ASK_TIMEOUT_S:.0f} s")
    if done.returncode == -signal.SIGILL:
        return Build("broken", "it does not load here: an instruction this CPU lacks (SIGILL), built for another")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return Build("broken", f"it does not load here ({last[:200]})")
    extra = beyond_portable(done.stdout)
    return Build("native", ", ".join(extra)) if extra else Build("portable")


def rebuild_requirement() -> str:
    """The pin as a line of a hash-checking requirements file: the sdist, as the lock has it."""
    return f"{DIST}=={VERSION} --hash=sha256:{SDIST_SHA256}"


def rebuild_command(requirements: str) -> list[str]:
    """pip's command line that compiles the pinned sdist again, bypassing pip's cache (the native wheel)."""
    return python_command("-m", "pip", "install", "--no-deps", "--require-hashes", "--force-reinstall",
                          "--no-cache-dir", "--no-binary", DIST, "--disable-pip-version-check", "-r", requirements)


def lean_cmake_arg() -> str:
    """The argument that leaves llama.cpp's ``common`` library out of the build (llama_lean.cmake: the package
    never loads it; half the compile), or "" where the path has a space (CMAKE_ARGS is split at spaces)."""
    hook = Path(__file__).with_name(LEAN_HOOK)
    return "" if any(c.isspace() for c in str(hook)) else f"-DCMAKE_PROJECT_llama.cpp_INCLUDE_BEFORE={hook}"


def rebuild_env() -> dict[str, str]:
    return {**python_env(), "CMAKE_ARGS": f"{PORTABLE_CMAKE_ARGS} {lean_cmake_arg()}".strip()}
