#!/usr/bin/env bash
# Builds each gateway's own environment, .venv-NAME (a link to a folder built once per machine, below), from its
# lock requirements/gateways/NAME.txt (LiteLLM's proxy server, NeMo Guardrails): the tests start them as separate services in front of the guard, as teams
# deploy them. Like .venv's step 1 in scripts/setup.sh: every file checked against the lock's sha256, no
# resolving, whatever no lock holds removed; skipped, saying so and where, when the environment already matches
# its lock (scripts/check_env.py --alone). scripts/setup.sh --dev runs this in the background, beside its own
# install.
#   scripts/setup-gateways.sh [NAME...]   (default: every requirements/gateways/*.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
. scripts/uv-tool.sh  # uv_ready, uv_install
names=("$@")
if [ ${#names[@]} = 0 ]; then
  for lock in requirements/gateways/*.txt; do names+=("$(basename "$lock" .txt)"); done
fi
# Each environment is built once per machine, as OpenClaw's folder is (scripts/openclaw-for-tests.sh), in a folder
# named by its lock's and the interpreter's digest under $FACTDEBATE_GATEWAYS_DIR, and .venv-NAME links to it: a
# fresh clone's setup then unpacks neither (942 MB beside .venv's own 2.5 GB: the two installs shared two cores
# and one disk), and the modules its tests compiled the first time are compiled already. A folder that no longer
# holds its lock is built again; a changed lock or interpreter gets a folder of its own.
cache=${FACTDEBATE_GATEWAYS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/factdebate/gateways}
# A machine whose cache folder cannot be written (a read-only home) builds them in the clone, as before.
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
  echo "note: $cache cannot be written; the gateways' environments are built in this clone (.venv-gateways)" >&2
  cache=$PWD/.venv-gateways
fi
interpreter=$("$PY" -c 'import sys; print(sys.executable, sys.version)')
for name in "${names[@]}"; do
  lock=requirements/gateways/$name.txt link=.venv-$name
  [ -f "$lock" ] || { echo "no lock $lock" >&2; exit 2; }
  # A real folder from an older setup is kept while it holds its lock
  if [ -d "$link" ] && [ ! -L "$link" ] && "$link/bin/python" scripts/check_env.py "$lock" --alone --quiet 2>/dev/null; then
    echo "$name: up to date in $PWD/$link (it holds $lock)"
    continue
  fi
  key=$( (cat "$lock"; echo "$interpreter") | sha256sum | cut -c1-16)
  venv=$cache/$name-$key
  mkdir -p "$cache"
  (
    flock 9  # two setups at once on one machine build it once; the second waits, then finds it built
    [ -x "$venv/bin/python" ] || "$PY" -m venv "$venv"
    check="$venv/bin/python scripts/check_env.py $lock --alone"
    # Said, not silent: a run that changes nothing still tells which environments it checked, and where.
    if $check --quiet; then echo "$name: up to date in $venv (it holds $lock)"; exit 0; fi
    pip="$venv/bin/python -m pip --disable-pip-version-check -q"
    # Not byte-compiled: a gateway's modules are compiled when a test first starts it (scripts/test.sh lets
    # Python write bytecode), only those it imports: about 25 CPU-s less here than pip compiling every module.
    # uv where it can be had (scripts/uv-tool.sh), else pip.
    if ! { uv_ready && uv_install "$venv/bin/python" --quiet --no-deps --require-hashes -r "$lock"; }; then
      echo "$name: pip installs it${UV_NOTE:+ ($UV_NOTE)}"
      $pip install --no-compile --no-deps --require-hashes -r "$lock"
    fi
    extra=$($check --extraneous)
    # shellcheck disable=SC2086  # one name a word
    if [ -n "$extra" ]; then $pip uninstall -y $extra; fi
    $check  # names what still differs, and fails
  ) 9>"$venv.lock"
  rm -rf "$link"
  ln -s "$venv" "$link"
done
# LiteLLM's proxy imports soundfile at start, which loads Debian's libsndfile1 (the lock holds the wheel without
# the library): without it `litellm` stops at start. scripts/ci-system-deps.sh installs it; this says so.
if [ -x .venv-litellm/bin/python ] && ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libsndfile\.so'; then
  echo "note: LiteLLM's proxy (.venv-litellm) needs Debian's libsndfile1 to start: sudo apt-get install" \
       "libsndfile1 (or scripts/ci-system-deps.sh)" >&2
fi
