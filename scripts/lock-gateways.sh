#!/usr/bin/env bash
# Refreshes the gateways' lock files (requirements/gateways/NAME.txt) from requirements/gateways/NAME.in, with
# the resolver and sources scripts/lock.sh uses (uv, pinned there; pip's index, extra indexes and find-links),
# for this Python on this platform, every pin with its sha256. Each gateway (LiteLLM's proxy, NeMo Guardrails)
# gets its own environment, .venv-NAME, which scripts/setup.sh --dev installs from its lock: their pins
# conflict with factdebate's, as they would in a team's deployment, where each runs as its own service.
#   scripts/lock-gateways.sh            keep the pins unless a .in file moved one
#   scripts/lock-gateways.sh --upgrade  the newest releases the .in files allow
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
UV_VERSION=$(sed -n 's/^UV_VERSION=//p' scripts/lock.sh)
TOOL=.venv/lock-tool
if ! [ -x "$TOOL/bin/uv" ] || [ "$("$TOOL/bin/uv" --version | cut -d' ' -f2)" != "$UV_VERSION" ]; then
  "$PY" -m venv --clear "$TOOL"
  "$TOOL/bin/python" -m pip install --disable-pip-version-check -q "uv==$UV_VERSION"
fi
pip_config() { "$PY" -m pip config list 2>/dev/null | sed -n "s/^[^.]*\.$1='\(.*\)'$/\1/p" | tail -n 1; }
SOURCES=()
index=$(pip_config index-url); [ -n "$index" ] && SOURCES+=(--index-url "$index")
for url in $(pip_config extra-index-url); do SOURCES+=(--extra-index-url "$url"); done
for dir in $(pip_config find-links); do SOURCES+=(--find-links "$dir"); done
for input in requirements/gateways/*.in; do
  lock=${input%.in}.txt
  "$TOOL/bin/uv" pip compile --quiet --python "$PY" "${SOURCES[@]}" --index-strategy unsafe-best-match \
    --generate-hashes --custom-compile-command "scripts/lock-gateways.sh" "$input" -o "$lock" "$@"
  echo "locked: $lock ($(grep -c '^[A-Za-z]' "$lock") packages)" >&2
done
