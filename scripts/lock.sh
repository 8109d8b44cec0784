#!/usr/bin/env bash
# Refreshes the lock files that scripts/setup.sh installs (`make lock`), from pyproject.toml's ranges and
# requirements/lock.in, with uv's resolver (pinned below, installed into .venv/lock-tool on first use):
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
UV_VERSION=0.13.9
TOOL=.venv/lock-tool
if ! [ -x "$TOOL/bin/uv" ] || [ "$("$TOOL/bin/uv" --version | cut -d' ' -f2)" != "$UV_VERSION" ]; then
  "$PY" -m venv --clear "$TOOL"
  "$TOOL/bin/python" -m pip install --disable-pip-version-check -q "uv==$UV_VERSION"
fi
# pip's sources, for uv: it reads no pip configuration of its own.
pip_config() { "$PY" -m pip config list 2>/dev/null | sed -n "s/^[^.]*\.$1='\(.*\)'$/\1/p" | tail -n 1; }
SOURCES=()
index=$(pip_config index-url); [ -n "$index" ] && SOURCES+=(--index-url "$index")
for url in $(pip_config extra-index-url); do SOURCES+=(--extra-index-url "$url"); done
for dir in $(pip_config find-links); do SOURCES+=(--find-links "$dir"); done
# Like pip, take the best version any source offers (uv's default stops at the first source that has a name).
compile() {
  "$TOOL/bin/uv" pip compile --quiet --python "$PY" "${SOURCES[@]}" --index-strategy unsafe-best-match \
    --generate-hashes --custom-compile-command "make lock" "$@"
}
compile pyproject.toml --extra all --extra dev requirements/lock.in -o requirements/dev.txt "$@"
# The demo's part, constrained to dev.txt so both hold the same versions and hashes.
# No requirements/lock.in here: its CPU torch is for the `torch` extra, which `all` leaves out.
compile pyproject.toml --extra all -c requirements/dev.txt -o requirements/all.txt
echo "locked: requirements/dev.txt ($(grep -c '^[A-Za-z]' requirements/dev.txt) packages)," \
     "requirements/all.txt ($(grep -c '^[A-Za-z]' requirements/all.txt))" >&2
