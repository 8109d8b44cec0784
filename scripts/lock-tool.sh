# Sourced by scripts/lock.sh and scripts/lock-gateways.sh: uv, at the version pinned here, in .venv/lock-tool,
# and `uv_compile COMMAND ARGS...`, a hashed `uv pip compile` against the sources pip is configured with here
# (`pip config list`: index, extra indexes, find-links; uv reads no pip configuration of its own), taking the
# best version any source offers as pip does (uv's default stops at the first source that has a name).
# COMMAND is the command the lock file names as the way to refresh it.
UV_VERSION=0.13.9
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
uv_compile() {
  local command=$1
  shift
  "$TOOL/bin/uv" pip compile --quiet --python "$PY" "${SOURCES[@]}" --index-strategy unsafe-best-match \
    --generate-hashes --custom-compile-command "$command" "$@"
}
