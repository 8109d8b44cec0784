#!/usr/bin/env bash
# System packages the test suite uses beyond Python: Debian's Chromium for the web page test (Playwright
# drives it; `playwright install` is never used). Idempotent: does nothing when Chromium is present.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
/usr/bin/chromium --version >&2
