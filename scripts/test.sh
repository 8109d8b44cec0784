#!/usr/bin/env bash
# Runs lint, types and the test suite with outbound network blocked (loopback still works).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check src tests benchmarks
.venv/bin/mypy
# The suite itself forbids non-loopback sockets (tests/conftest.py); `unshare -n` adds a kernel-level
# guarantee where the machine allows it — loopback must be up for Milvus Lite and the local servers.
if command -v unshare >/dev/null && unshare -rn true 2>/dev/null; then
  exec unshare -rn sh -c 'ip link set lo up 2>/dev/null; exec .venv/bin/python -m pytest -q "$@"' sh "$@"
fi
exec .venv/bin/python -m pytest -q "$@"
