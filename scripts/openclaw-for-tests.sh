#!/usr/bin/env bash
# Installs what tests/integrations/test_openclaw.py runs against: Node 24 from npm (the `node` package; Debian's
# Node 20 is too old for OpenClaw) and the pinned `openclaw` package, each in a folder of its own under
# $FACTDEBATE_OPENCLAW_DIR (default ~/.cache/factdebate/openclaw-<version>). About 650 MB and 2-3 minutes with a
# cold npm cache, so it is not part of `make test`: the test is skipped, saying so, until this has run.
# Prints the folder. Running it again with both in place does nothing.
set -euo pipefail
NODE_VERSION=24.21.0
OPENCLAW_VERSION=2026.9.6
dir=${FACTDEBATE_OPENCLAW_DIR:-$HOME/.cache/factdebate/openclaw-$OPENCLAW_VERSION}
mkdir -p "$dir/node" "$dir/claw"
if ! "$dir/node/node_modules/node/bin/node" --version 2>/dev/null | grep -qx "v$NODE_VERSION"; then
  (cd "$dir/node" && echo '{"name": "factdebate-test-node", "private": true}' > package.json &&
   npm install --no-audit --no-fund --silent "node@$NODE_VERSION" >&2)
fi
if [ ! -f "$dir/claw/node_modules/openclaw/package.json" ] ||
   ! grep -q "\"version\": \"$OPENCLAW_VERSION\"" "$dir/claw/node_modules/openclaw/package.json"; then
  # OpenClaw's own install checks the Node that runs npm: the one above.
  (cd "$dir/claw" && echo '{"name": "factdebate-test-openclaw", "private": true}' > package.json &&
   PATH="$dir/node/node_modules/node/bin:$PATH" npm install --no-audit --no-fund --silent \
     "openclaw@$OPENCLAW_VERSION" >&2)
fi
echo "$dir"
