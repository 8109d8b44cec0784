#!/usr/bin/env bash
# Refreshes the gateways' lock files (requirements/gateways/NAME.txt) from requirements/gateways/NAME.in, with
# the resolver and sources scripts/lock.sh uses (scripts/lock-tool.sh: the pinned uv; pip's sources),
# for this Python on this platform, every pin with its sha256. Each gateway (LiteLLM's proxy, NeMo Guardrails)
# gets its own environment, .venv-NAME, which scripts/setup.sh --dev installs from its lock: their pins
# conflict with factdebate's, as they would in a team's deployment, where each runs as its own service.
#   scripts/lock-gateways.sh            keep the pins unless a .in file moved one
#   scripts/lock-gateways.sh --upgrade  the newest releases the .in files allow
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
. scripts/lock-tool.sh  # uv and uv_compile
for input in requirements/gateways/*.in; do
  lock=${input%.in}.txt
  uv_compile scripts/lock-gateways.sh "$input" -o "$lock" "$@"
  echo "locked: $lock ($(grep -c '^[A-Za-z]' "$lock") packages)" >&2
done
