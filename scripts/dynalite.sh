#!/usr/bin/env bash
# Runs a private dynalite (a DynamoDB emulator, npm dynalite@4.0.0) for tests:
# installed under .build/tools/dynalite when missing, listening only on
# 127.0.0.1 on a free port. Its tables live in memory, or with
# MQPROBE_DYNALITE_ON_DISK=1 at start under DIR/data, so that they survive
# taking the server down and up again.
#
#   scripts/dynalite.sh start [DIR [PORT]]      start (or reuse) the server of DIR; prints its endpoint
#   scripts/dynalite.sh stop  [DIR]      stop it and remove DIR
#   scripts/dynalite.sh endpoint [DIR]   print the endpoint of a running server
#   scripts/dynalite.sh down  [DIR]      stop the server but keep DIR (port, on-disk tables)
#   scripts/dynalite.sh up    [DIR]      start a server taken down again, on the same port
#                                        (with the same tables if on disk); prints its endpoint
#
# DIR (pid, endpoint, log) defaults to $MQPROBE_DYNALITE_DIR or /tmp/mqprobe-dynalite.
set -euo pipefail

version=4.0.0
cmd=${1:-}
dir=${2:-${MQPROBE_DYNALITE_DIR:-/tmp/mqprobe-dynalite}}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
prefix=$root/.build/tools/dynalite
cli=$prefix/node_modules/dynalite/cli.js

install_dynalite() {
  if [ -f "$cli" ] && grep -qs "\"version\": \"$version\"" "$prefix/node_modules/dynalite/package.json"; then
    return 0
  fi
  command -v npm >/dev/null || { log "npm is needed to install dynalite"; return 1; }
  log "installing dynalite@$version into $prefix"
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "dynalite@$version" >&2
}


running() { [ -f "$dir/pid" ] && [ -f "$dir/endpoint" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; }

# launch starts the server on port $1 (with the options saved in $dir/args)
# and waits until it answers. It fails when the process dies first.
launch() {
  local port=$1 pid endpoint="http://127.0.0.1:$1"
  # shellcheck disable=SC2046 # the saved options are words without spaces
  # Through dynalite_server.js: an aborted request would end dynalite 4.0.0.
  node "$root/scripts/dynalite_server.js" "$cli" --host 127.0.0.1 --port "$port" $(cat "$dir/args") >>"$dir/server.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$dir/pid"
  # dynalite answers GET / with 200 once it listens.
  wait_ready "$pid" 10 "dynalite on port $port" http_ok "$endpoint/" || return 1
  echo "$endpoint" >"$dir/endpoint"
}

# halt stops the server of $dir, if any.
halt() { stop_pid "$dir/pid"; }

case "$cmd" in
start)
  install_dynalite
  if running; then
    cat "$dir/endpoint"
    exit 0
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  # Tables become ACTIVE at once: tests create one per case.
  echo "--createTableMs 0 --deleteTableMs 0 --updateTableMs 0" >"$dir/args"
  [ "${MQPROBE_DYNALITE_ON_DISK:-}" = 1 ] && echo "--path $dir/data" >>"$dir/args"
  for _ in $(seq 1 20); do
    port=${3:-$((20000 + RANDOM % 20000))}
    if ! port_free "$port"; then
      [ -n "${3:-}" ] && { log "port $port is taken"; exit 1; }
      continue
    fi
    : >"$dir/server.log"
    if launch "$port"; then
      cat "$dir/endpoint"
      exit 0
    fi
    if ! grep -q EADDRINUSE "$dir/server.log" || [ -n "${3:-}" ]; then
      cat "$dir/server.log" >&2
      log "dynalite did not start"
      exit 1
    fi
  done
  log "no free port found"
  exit 1
  ;;
stop)
  halt
  rm -rf "$dir"
  ;;
endpoint)
  running && cat "$dir/endpoint"
  ;;
down)
  [ -f "$dir/endpoint" ] || { log "no server was started in $dir"; exit 1; }
  halt
  ;;
up)
  [ -f "$dir/endpoint" ] || { log "no server was started in $dir"; exit 1; }
  if ! running; then
    endpoint=$(cat "$dir/endpoint")
    launch "${endpoint##*:}" || { cat "$dir/server.log" >&2; log "dynalite did not start again"; exit 1; }
  fi
  cat "$dir/endpoint"
  ;;
*)
  echo "usage: $0 start|stop|endpoint|down|up [DIR]" >&2
  exit 2
  ;;
esac
