#!/usr/bin/env bash
# Installs what tests/server/guard/test_openclaw.py runs against: Node 24 from npm (the `node` package; Debian's
# Node 20 is too old for OpenClaw) and the pinned `openclaw` package, each in a folder of its own under
# $FACTDEBATE_OPENCLAW_DIR (default ~/.cache/factdebate/openclaw-<version>). About 840 MB; measured on the shared
# 2-core machine at load 11-15: 48 s (21 CPU-s) with a cold npm cache, 30-33 s (18-20 CPU-s) with a warm one,
# which needs no network (--prefer-offline). `scripts/setup.sh --dev` (make test's setup) runs it in the
# background; until it has run, the tests are skipped, saying so.
# Prints the folder. Running it again with both in place does nothing (0.01 s).
set -euo pipefail
NODE_VERSION=24.21.0
OPENCLAW_VERSION=2026.9.6
# From the npm cache without asking the registry when it holds them; without a network, failing in seconds
# (split into words where it is used).
NPM_INSTALL="npm install --no-audit --no-fund --loglevel=error --prefer-offline --fetch-retries=1
  --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000"
dir=${FACTDEBATE_OPENCLAW_DIR:-$HOME/.cache/factdebate/openclaw-$OPENCLAW_VERSION}
mkdir -p "$dir/node" "$dir/claw"
if ! "$dir/node/node_modules/node/bin/node" --version 2>/dev/null | grep -qx "v$NODE_VERSION"; then
  (cd "$dir/node" && echo '{"name": "factdebate-test-node", "private": true}' > package.json &&
   $NPM_INSTALL "node@$NODE_VERSION" >&2)
fi
if [ ! -f "$dir/claw/node_modules/openclaw/package.json" ] ||
   ! grep -q "\"version\": \"$OPENCLAW_VERSION\"" "$dir/claw/node_modules/openclaw/package.json"; then
  # OpenClaw's own install checks the Node that runs npm: the one above.
  (cd "$dir/claw" && echo '{"name": "factdebate-test-openclaw", "private": true}' > package.json &&
   PATH="$dir/node/node_modules/node/bin:$PATH" $NPM_INSTALL "openclaw@$OPENCLAW_VERSION" >&2)
fi
echo "$dir"
