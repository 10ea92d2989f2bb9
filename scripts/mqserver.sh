#!/usr/bin/env bash
# Runs the project's queue manager server (cmd/mqserver) for tests and for
# trying the ibmmq backend: IBM's developer objects (QM1, DEV.APP.SVRCONN,
# DEV.QUEUE.1-3, ...), listening only on 127.0.0.1. The binary is built into
# DIR.
#
#   scripts/mqserver.sh start DIR [PORT]  start (or reuse) the server of DIR, on PORT
#                                          or a free port; prints export lines
#   scripts/mqserver.sh stop  DIR         stop it and remove DIR
#   scripts/mqserver.sh down  DIR         stop it but keep DIR and its port
#   scripts/mqserver.sh up    DIR         start a server taken down again, on the
#                                          same port; prints export lines
#
# The export lines set MQSERVER (the client's channel definition) and the
# MQPROBE_TEST_IBMMQ_* variables the real-queue-manager tests read:
#
#   eval "$(scripts/mqserver.sh start /tmp/mqserver)"
#
# MQ_APP_PASSWORD and MQ_ADMIN_PASSWORD, when set at start or up, are the
# passwords of the users app and admin, as in IBM's developer container; the
# export lines refer to $MQ_APP_PASSWORD rather than print it. Committed
# persistent messages are kept in DIR/data: down and up keep them, and lose
# the others, as a queue manager restarting does; start and stop begin and
# end with an empty DIR.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  echo "usage: $0 start DIR [PORT] | stop DIR | down DIR | up DIR" >&2
  exit 2
}

[ -n "$dir" ] || usage

running() { [ -f "$dir/pid" ] && [ -f "$dir/port" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; }

# announced reports whether the server has said it listens.
announced() { grep -q '^mqserver listening on ' "$dir/server.log" 2>/dev/null; }

# exports prints the export lines for the server on port $1.
exports() {
  local port=$1
  cat <<EOF
export MQSERVER='DEV.APP.SVRCONN/TCP/127.0.0.1($port)'
export MQPROBE_TEST_IBMMQ_QMGR=QM1
export MQPROBE_TEST_IBMMQ_CHANNEL=DEV.APP.SVRCONN
export MQPROBE_TEST_IBMMQ_CONNNAME='127.0.0.1($port)'
export MQPROBE_TEST_IBMMQ_USER=app
export MQPROBE_TEST_IBMMQ_PASSWORD="\${MQ_APP_PASSWORD:-}"
export MQPROBE_TEST_IBMMQ_QUEUE=DEV.QUEUE.1
export MQPROBE_TEST_IBMMQ_QUEUE2=DEV.QUEUE.2
EOF
}

# launch starts the server of $dir on port $1 and waits until it listens.
launch() {
  local port=$1 pid
  "$dir/mqserver" -listen "127.0.0.1:$port" -data "$dir/data" >"$dir/server.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$dir/pid"
  if wait_ready "$pid" 15 "mqserver on port $port" announced; then
    echo "$port" >"$dir/port"
    return 0
  fi
  rm -f "$dir/pid"
  return 1
}

case "$cmd" in
start)
  port=${3:-}
  if running; then
    exports "$(cat "$dir/port")"
    exit 0
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  log "building $dir/mqserver"
  (cd "$root" && go build -o "$dir/mqserver" ./cmd/mqserver) >&2
  if [ -n "$port" ]; then
    port_free "$port" || { log "port $port is in use"; exit 1; }
    launch "$port" || { cat "$dir/server.log" >&2; log "mqserver did not start"; exit 1; }
    exports "$port"
    exit 0
  fi
  for _ in $(seq 1 20); do
    port=$((20000 + RANDOM % 20000))
    port_free "$port" || continue
    if launch "$port"; then
      exports "$port"
      exit 0
    fi
    grep -q "address already in use" "$dir/server.log" || { cat "$dir/server.log" >&2; log "mqserver did not start"; exit 1; }
  done
  log "no free port found"
  exit 1
  ;;
stop)
  stop_pid "$dir/pid"
  rm -rf "$dir"
  ;;
down)
  [ -f "$dir/port" ] || { log "no server was started in $dir"; exit 1; }
  stop_pid "$dir/pid"
  ;;
up)
  [ -f "$dir/port" ] || { log "no server was started in $dir"; exit 1; }
  if ! running; then
    launch "$(cat "$dir/port")" || { cat "$dir/server.log" >&2; log "mqserver did not start"; exit 1; }
  fi
  exports "$(cat "$dir/port")"
  ;;
*)
  usage
  ;;
esac
