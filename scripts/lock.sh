#!/usr/bin/env bash
# Refreshes the lock files that scripts/setup.sh installs (`make lock`), from pyproject.toml's ranges and
# requirements/lock.in, with uv's resolver (requirements/uv.txt pins it; scripts/uv-tool.sh installs it once per machine):
#   requirements/dev.txt  everything `make test` installs: the `all` and `dev` extras, CPU torch
#   requirements/all.txt  what `make demo` installs: the `all` extras (no torch), at dev.txt's versions
# Every pin carries the sha256 of its files (for llama-cpp-python, of the sdist that setup builds). It resolves
# against the sources pip is configured with here (`pip config list`: index, extra indexes, find-links), for
# this Python on this platform. It keeps the pins the files hold unless a range now excludes one;
# `scripts/lock.sh --upgrade` takes the newest releases, `--upgrade-package NAME` moves one. Then review the
# diff, run `make test` (setup installs the new pins) and commit requirements/.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
. scripts/lock-tool.sh  # uv and uv_compile
compile() { uv_compile "make lock" "$@"; }
compile pyproject.toml --extra all --extra dev requirements/lock.in -o requirements/dev.txt "$@"
# The demo's part, constrained to dev.txt so both hold the same versions and hashes.
# No requirements/lock.in here: its CPU torch is for the `torch` extra, which `all` leaves out.
compile pyproject.toml --extra all -c requirements/dev.txt -o requirements/all.txt
echo "locked: requirements/dev.txt ($(grep -c '^[A-Za-z]' requirements/dev.txt) packages)," \
     "requirements/all.txt ($(grep -c '^[A-Za-z]' requirements/all.txt))" >&2
