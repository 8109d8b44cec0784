#!/usr/bin/env bash
# System packages the test suite uses beyond Python, from Debian: Node.js and npm for the type check of the
# web page's scripts, Chromium for the web page test
# (Playwright drives it; `playwright install` is never used) and PostgreSQL for the state-database tests
# (scripts/postgres-for-tests.sh starts a throwaway cluster), and libsndfile, which LiteLLM's proxy imports at
# start (its `soundfile` is locked as the wheel without the library: requirements/gateways/litellm.txt; without
# it `litellm` dies at import and tests/guard/conformance/test_gateways.py fails), and the Prometheus server,
# which tests/server/ops/test_metrics.py starts on loopback to scrape the service's /metrics (its package recommends
# node-exporter, a daemon the tests never use: recommends are not installed). Idempotent: installs only what is
# missing.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium chromium-driver)
command -v npm >/dev/null || missing+=(nodejs npm)  # tsc checks the web page's scripts (scripts/test.sh)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
/sbin/ldconfig -p | grep -q 'libsndfile\.so' || missing+=(libsndfile1)
lean=()  # installed without their recommends
command -v prometheus >/dev/null || lean+=(prometheus)
if [ ${#missing[@]} = 0 ] && [ ${#lean[@]} = 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ ${#missing[@]} != 0 ]; then $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null; fi
if [ ${#lean[@]} != 0 ]; then $SUDO apt-get install -y -qq --no-install-recommends "${lean[@]}" >/dev/null; fi
echo "installed: ${missing[*]} ${lean[*]}" >&2
