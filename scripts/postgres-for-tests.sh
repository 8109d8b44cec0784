#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the test suite, reached over a Unix socket only (so it also serves
# tests running in a network namespace). Uses Debian's postgresql package (scripts/ci-system-deps.sh
# installs it). PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user.
#   scripts/postgres-for-tests.sh start DIR   # prints the URL (database "postgres", user "factdebate")
#   scripts/postgres-for-tests.sh stop DIR
set -euo pipefail
cmd=${1:?start or stop}
dir=${2:?a directory for the cluster}

bindir=""
for candidate in "$(pg_config --bindir 2>/dev/null || true)" /usr/lib/postgresql/*/bin; do
  if [ -n "$candidate" ] && [ -x "$candidate/initdb" ]; then bindir=$candidate; fi
done
if [ -z "$bindir" ]; then
  echo "no PostgreSQL server binaries (initdb) found: apt-get install postgresql" >&2
  exit 1
fi

as_owner=()
if [ "$(id -u)" = 0 ]; then
  as_owner=(runuser -u postgres --)
fi

case "$cmd" in
  start)
    mkdir -p "$dir"
    chmod 755 "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    "${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -A trust -U factdebate -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    # No TCP listener: the socket in $dir is the only way in. fsync off: a test cluster, thrown away.
    "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-k $dir -c listen_addresses='' -c fsync=off -c max_connections=200" start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql:///postgres?host=$dir&user=factdebate"
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
