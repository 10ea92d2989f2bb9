#!/usr/bin/env bash
# Runs a private PostgreSQL for tests: installed from Debian's package when
# missing, initialised under a temporary directory, listening only on
# 127.0.0.1 on a free port, with trust auth for the loopback test user.
#
#   scripts/postgres.sh start [DIR]   start (or reuse) the server in DIR; prints its DSN
#   scripts/postgres.sh stop  [DIR]   stop it and remove DIR
#   scripts/postgres.sh dsn   [DIR]   print the DSN of a running server
#   scripts/postgres.sh down  [DIR]   stop the server but keep DIR: its data, port and DSN
#   scripts/postgres.sh up    [DIR]   start a server taken down again, on the same port
#                                     with the same data; prints its DSN
#
# DIR defaults to $MQPROBE_PG_DIR or /tmp/mqprobe-pg.
set -euo pipefail

cmd=${1:-}
dir=${2:-${MQPROBE_PG_DIR:-/tmp/mqprobe-pg}}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

find_bindir() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  return 1
}

install_postgres() {
  find_bindir >/dev/null && return 0
  [ "$(id -u)" = 0 ] || { log "PostgreSQL is not installed and installing needs root"; return 1; }
  log "installing PostgreSQL from Debian's packages"
  # Keep the package from creating and starting its own cluster on port 5432.
  mkdir -p /etc/postgresql-common
  grep -qs '^create_main_cluster' /etc/postgresql-common/createcluster.conf ||
    echo 'create_main_cluster = false' >>/etc/postgresql-common/createcluster.conf
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends postgresql >&2
  find_bindir >/dev/null
}

# as_owner runs a server command as the unprivileged owner: PostgreSQL
# refuses to run as root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}


running() { [ -f "$dir/dsn" ] && as_owner "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; }

# launch starts the server in $dir on port $1 and waits until it accepts
# connections.
launch() {
  as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $1 -k $dir -c fsync=off -c max_connections=200" start >/dev/null
}

case "$cmd" in
start)
  install_postgres
  bindir=$(find_bindir)
  if running; then
    cat "$dir/dsn"
    exit 0
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 20000))
    port_free "$port" || continue
    if launch "$port"; then
      dsn="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
      echo "$dsn" >"$dir/dsn"
      echo "$port" >"$dir/port"
      echo "$dsn"
      exit 0
    fi
    grep -q "could not bind" "$dir/server.log" 2>/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  done
  log "no free port found"
  exit 1
  ;;
stop)
  bindir=$(find_bindir) || exit 0
  if [ -d "$dir/data" ]; then
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  ;;
dsn)
  bindir=$(find_bindir)
  running && cat "$dir/dsn"
  ;;
down)
  bindir=$(find_bindir)
  [ -f "$dir/port" ] || { log "no server was started in $dir"; exit 1; }
  if running; then
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  fi
  ;;
up)
  bindir=$(find_bindir)
  [ -f "$dir/port" ] || { log "no server was started in $dir"; exit 1; }
  if ! running; then
    launch "$(cat "$dir/port")" || { cat "$dir/server.log" >&2; exit 1; }
  fi
  cat "$dir/dsn"
  ;;
*)
  echo "usage: $0 start|stop|dsn|down|up [DIR]" >&2
  exit 2
  ;;
esac
