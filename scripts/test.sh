#!/usr/bin/env bash
# Runs lint, types and the test suite with outbound network blocked (loopback still works).
# Lint and types run beside pytest (most of pytest's time is spent waiting on subprocesses and sockets); their
# output is printed after pytest's. The end prints the 25 slowest tests and each step's seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# Bytecode caches written: pytest caches each test module's rewritten asserts there, and the suite's few hundred
# `factdebate` subprocesses reuse the compiled modules (a machine that sets this variable compiled them per
# process and per pytest worker).
unset PYTHONDONTWRITEBYTECODE
# The tests run in the locked environment or not at all: a difference (an older .venv, a package installed by
# hand) is named here, with the command that fixes it.
.venv/bin/python scripts/check_env.py requirements/dev.txt
# The tests' temporary folders reach about 2 GB at their peak (the built-in model's F16 copies, the indexes). A
# disk that fills mid-run fails hundreds of tests at once with errors that do not say why, so a short disk is
# named before the run and again after a failed one.
free_mb() { df -Pk "${TMPDIR:-/tmp}" | awk 'NR == 2 {print int($4 / 1024)}'; }
if [ "$(free_mb)" -lt 3072 ]; then
  echo "warning: ${TMPDIR:-/tmp} has $(free_mb) MB free; the tests' temporary folders need about 2 GB" >&2
fi
# The package's bytecode and pytest's rewritten test modules, made once before the workers start (each would
# make its own on a fresh clone: about 8 CPU-seconds a worker); beside npm and PostgreSQL, which wait on disk.
.venv/bin/python scripts/precompile.py &
precompile_pid=$!
# package-lock.json's TypeScript (the type check below) and axe-core (the browser tests' accessibility audit,
# tests/server/axe.py); when only pytest is timed, installed only where missing.
# Started here and waited for before lint and pytest, so it overlaps PostgreSQL's start (it mostly waits on disk).
npm_pid=""
if [ -z "${FACTDEBATE_TEST_ONLY_PYTEST:-}" ] || [ ! -f node_modules/axe-core/axe.min.js ]; then
  npm ci --no-audit --no-fund --silent &
  npm_pid=$!
fi
# The state-database tests run against a real PostgreSQL server: a throwaway cluster on a Unix socket,
# started here (outside the network namespace below, which its socket still reaches) and removed at exit.
cleanup() {
  if [ -n "${pg_dir:-}" ]; then scripts/postgres-for-tests.sh stop "$pg_dir"; fi
  if [ -n "${lint_log:-}" ]; then rm -f "$lint_log"; fi
}
trap cleanup EXIT
if [ -z "${FACTDEBATE_TEST_POSTGRES:-}" ]; then
  pg_dir=$(mktemp -d -u /tmp/factdebate-pg.XXXXXX)
  if url=$(scripts/postgres-for-tests.sh start "$pg_dir"); then
    export FACTDEBATE_TEST_POSTGRES=$url
  else
    pg_dir=""
    echo "warning: could not start PostgreSQL; its tests will be skipped" >&2
  fi
fi
if [ -n "$npm_pid" ]; then wait "$npm_pid"; fi
wait "$precompile_pid" || true  # only an optimisation: the workers compile for themselves if it failed
lint_pid="" lint_log=""
if [ -z "${FACTDEBATE_TEST_ONLY_PYTEST:-}" ]; then  # set by benchmarks/test_suite.py, which times pytest alone
  lint_log=$(mktemp /tmp/factdebate-lint.XXXXXX)
  (
    renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true  # pytest's tests wait on timeouts; these do not
    start=$SECONDS
    .venv/bin/ruff check src tests benchmarks
    # mypy's cache lives with the machine's other caches (as pip's does), so a fresh clone checks only what
    # differs from the last run here: mypy compares each file's hash before it reuses a module's entry.
    MYPY_CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/factdebate-tests/mypy/package" .venv/bin/mypy
    .venv/bin/lint-imports  # the layers contract in pyproject.toml (docs/architecture.md)
    # The web page's scripts: // @ts-check JSDoc types, checked by the TypeScript pinned in package-lock.json
    # (nothing is built: the page is served as it is).
    npx --no-install tsc --noEmit -p tsconfig.json
    echo "lint and types: $((SECONDS - start)) s"
  ) >"$lint_log" 2>&1 &
  lint_pid=$!
fi
# Most tests wait on subprocesses and sockets, not on the CPU, so the suite runs on several pytest-xdist
# workers even on two cores; tests that share a server or a module's fixture keep to one worker
# (tests/parallel.py). FACTDEBATE_TEST_WORKERS=0 runs it in one process; arguments after it still win.
# --durations=25: the slowest tests, so that a new slow one is seen (docs/performance.md has the budget).
# make test leaves the tests tests/tiers.py lists (a real part's long variants) to make test-all, which sets
# FACTDEBATE_TEST_ALL=1 (benchmarks/decisions/test_tiers.md).
tier=(-m "not full")
if [ -n "${FACTDEBATE_TEST_ALL:-}" ]; then tier=(); fi
set -- -n "${FACTDEBATE_TEST_WORKERS:-3}" --dist loadgroup --durations=25 "${tier[@]}" "$@"
# The suite itself forbids non-loopback sockets (tests/conftest.py); `unshare -n` adds a kernel-level
# guarantee where the machine allows it — loopback must be up for Milvus Lite and the local servers.
pytest_start=$SECONDS
pytest_rc=0
if command -v unshare >/dev/null && unshare -rn true 2>/dev/null; then
  unshare -rn sh -c 'ip link set lo up 2>/dev/null; exec .venv/bin/python -m pytest -q "$@"' sh "$@" || pytest_rc=$?
else
  .venv/bin/python -m pytest -q "$@" || pytest_rc=$?
fi
pytest_s=$((SECONDS - pytest_start))
lint_rc=0
if [ -n "$lint_pid" ]; then
  wait "$lint_pid" || lint_rc=$?
  echo "--- lint and types (ran beside pytest)"
  cat "$lint_log"
  [ "$lint_rc" = 0 ] || echo "lint and types FAILED (exit $lint_rc)"
fi
echo "scripts/test.sh: pytest ${pytest_s} s, whole script ${SECONDS} s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
if [ "$pytest_rc" != 0 ]; then
  if [ "$(free_mb)" -lt 512 ]; then echo "the disk is about full: ${TMPDIR:-/tmp} has $(free_mb) MB free" >&2; fi
  exit "$pytest_rc"
fi
exit "$lint_rc"
