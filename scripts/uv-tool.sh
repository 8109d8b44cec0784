# Sourced by scripts/setup.sh, scripts/setup-gateways.sh and scripts/lock-tool.sh (needs $PY): uv, the pinned
# release in requirements/uv.txt (every file checked against its sha256), installed once per machine beside the
# gateways' environments, and the sources pip is configured with here, told to uv (it reads no pip configuration
# of its own).
#   uv_ready                      true when $UV can be run, installing it first if needed (false, and a line in
#                                 $UV_NOTE, where it cannot be had: no network and no cache)
#   uv_venv FOLDER                a virtual environment for $PY with pip in it, pip from those sources
#   uv_install PYTHON ARGS...     `uv pip install` into PYTHON's environment from those sources
# uv unpacks a lock into an environment about seven times faster than pip (the test lock, 2.5 GB: 10 s against
# 73 s with two pips at once, on the 2-core machine; benchmarks/decisions/installer.md), because it unpacks each
# wheel once into its cache and links the files from there. The callers fall back to pip where uv fails.
UV_VERSION=0.13.9
UV_HOME=${FACTDEBATE_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/factdebate/tools}/uv-$UV_VERSION
UV=$UV_HOME/bin/uv
UV_NOTE=""
PIP_CONFIG=$("$PY" -m pip config list 2>/dev/null || true)  # read once: pip starts in about half a second
pip_config() { printf '%s\n' "$PIP_CONFIG" | sed -n "s/^[^.]*\.$1='\(.*\)'$/\1/p" | tail -n 1; }
UV_SOURCES=()
index=$(pip_config index-url); [ -n "$index" ] && UV_SOURCES+=(--index-url "$index")
for url in $(pip_config extra-index-url); do UV_SOURCES+=(--extra-index-url "$url"); done
for dir in $(pip_config find-links); do UV_SOURCES+=(--find-links "$dir"); done
# pip's certificate bundle, where one is configured (a proxy's own CA), for uv's downloads too
UV_CERT=$(pip_config cert)
uv_ready() {
  if [ -x "$UV" ] && [ "$("$UV" --version 2>/dev/null | cut -d' ' -f2)" = "$UV_VERSION" ]; then return 0; fi
  if ! mkdir -p "$(dirname "$UV_HOME")" 2>/dev/null; then
    UV_NOTE="$(dirname "$UV_HOME") cannot be written"
    return 1
  fi
  (
    flock 9  # two setups at once install it once
    [ -x "$UV" ] && exit 0
    rm -rf "$UV_HOME.partial"
    # one retry and a short timeout: a machine without a network falls back to pip in seconds, not minutes
    timeout 120 "$PY" -m pip install --disable-pip-version-check -q --retries 1 --timeout 15 --no-deps \
      --require-hashes --target "$UV_HOME.partial" -r requirements/uv.txt &&
      rm -rf "$UV_HOME" && mv "$UV_HOME.partial" "$UV_HOME"
  ) 9>"$UV_HOME.lock" >/dev/null 2>&1 || true
  if [ -x "$UV" ]; then return 0; fi
  UV_NOTE="uv $UV_VERSION could not be installed from pip's sources"
  return 1
}
uv_run() {  # uv_run SUBCOMMAND... : uv with pip's certificate bundle, SUBCOMMAND then pip's sources and ARGS
  local words=()
  while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do words+=("$1"); shift; done
  # the best version any source offers, as pip takes it (uv's default stops at the first source holding a name)
  SSL_CERT_FILE=${SSL_CERT_FILE:-$UV_CERT} "$UV" "${words[@]}" "${UV_SOURCES[@]}" \
    --index-strategy unsafe-best-match "$@"
}
uv_venv() { uv_run venv --quiet --seed --allow-existing --python "$PY" "$1"; }
uv_install() {
  local python=$1
  shift
  uv_run pip install --python "$python" "$@"
}
