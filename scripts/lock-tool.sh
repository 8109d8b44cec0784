# Sourced by scripts/lock.sh and scripts/lock-gateways.sh: `uv_compile COMMAND ARGS...`, a hashed
# `uv pip compile` with the pinned uv and pip's sources (scripts/uv-tool.sh), taking the best version any source
# offers as pip does. COMMAND is the command the lock file names as the way to refresh it.
. scripts/uv-tool.sh
uv_ready || { echo "make lock needs uv: $UV_NOTE" >&2; exit 1; }
uv_compile() {
  local command=$1
  shift
  uv_run pip compile --quiet --python "$PY" --generate-hashes --custom-compile-command "$command" "$@"
}
