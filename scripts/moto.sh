#!/usr/bin/env bash
# Runs a private moto server for tests, listening only on 127.0.0.1 on a
# free port: the second, independent AWS emulator beside goaws and dynalite
# (SQS, SNS, DynamoDB, EventBridge, Secrets Manager, CloudFormation). moto 5
# comes from the machine's Python when it has it; otherwise pip installs
# moto[server] into .build/tools/moto. It runs through moto_server.py, which
# makes moto's DynamoDB writes to one item atomic, as DynamoDB's are.
#
#   scripts/moto.sh start [DIR]   start (or reuse) the server of DIR; prints its endpoint
#   scripts/moto.sh stop  [DIR]   stop it and remove DIR
#
# Exits 3 when no moto 5 can be had (no Python, or no package index).
set -euo pipefail

version=5.2.1
cmd=${1:-}
dir=${2:-${MQPROBE_MOTO_DIR:-/tmp/mqprobe-moto}}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
venv=$root/.build/tools/moto

# moto_command prints the command line that runs moto's server.
moto_command() {
  local launcher=$root/scripts/moto_server.py
  if python3 -c 'import sys, moto, moto.server; sys.exit(not moto.__version__.startswith("5."))' 2>/dev/null; then
    echo "python3 $launcher"
  elif [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import moto.server' 2>/dev/null; then
    echo "$venv/bin/python $launcher"
  else
    command -v python3 >/dev/null || return 3
    log "installing moto[server]==$version into $venv"
    python3 -m venv "$venv" >&2 && "$venv/bin/pip" install --quiet "moto[server]==$version" >&2 || return 3
    echo "$venv/bin/python $launcher"
  fi
}

running() { [ -f "$dir/pid" ] && [ -f "$dir/endpoint" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; }

case "$cmd" in
start)
  if running; then
    cat "$dir/endpoint"
    exit 0
  fi
  run=$(moto_command) || { log "moto 5 is not available: python3 has no moto 5.x with its server, and pip could not install moto[server]==$version into $venv"; exit 3; }
  rm -rf "$dir"
  mkdir -p "$dir"
  for _ in $(seq 1 20); do
    port=$((20000 + RANDOM % 20000))
    port_free "$port" || continue
    # shellcheck disable=SC2086 # run is a command line
    $run -H 127.0.0.1 -p "$port" >"$dir/server.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$dir/pid"
    endpoint="http://127.0.0.1:$port"
    if wait_ready "$pid" 15 "moto on port $port" http_ok "$endpoint/moto-api/"; then
      echo "$endpoint" >"$dir/endpoint"
      echo "$endpoint"
      exit 0
    fi
    grep -q "Address already in use" "$dir/server.log" || { cat "$dir/server.log" >&2; log "moto did not start"; exit 1; }
  done
  log "no free port found"
  exit 1
  ;;
stop)
  stop_pid "$dir/pid"
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop [DIR]" >&2
  exit 2
  ;;
esac
