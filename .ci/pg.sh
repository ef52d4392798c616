#!/usr/bin/env bash
# Throwaway PostgreSQL 15 for tests: `.ci/pg.sh start <dir> <port>` / `.ci/pg.sh stop <dir>`.
# PostgreSQL refuses to run as root, so the server runs as the postgres user.
set -euo pipefail
cmd=$1; dir=$2; port=${3:-55432}
bin=$(dirname "$(command -v pg_ctl || echo /usr/lib/postgresql/15/bin/pg_ctl)")
[ -x "$bin/pg_ctl" ] || bin=/usr/lib/postgresql/15/bin
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "$cmd" in
  start)
    rm -rf "$dir"; mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust >/dev/null
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null
    echo "postgresql://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_pg "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null || true
    rm -rf "$dir"
    ;;
esac
