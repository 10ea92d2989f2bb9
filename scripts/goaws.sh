#!/usr/bin/env bash
# Runs a private goaws (SQS/SNS emulator) for tests, built from the module
# proxy by tools/goaws (its own Go module, outside mqprobe's dependency graph)
# into .build/tools/goaws, listening only on 127.0.0.1.
#
#   scripts/goaws.sh start DIR [PORT]   start (or reuse) the server whose state is in DIR;
#                                       prints its endpoint http://127.0.0.1:PORT
#   scripts/goaws.sh stop  DIR          stop it and remove DIR
#   scripts/goaws.sh down  DIR          stop the server but keep DIR (its port)
#   scripts/goaws.sh up    DIR          start a server taken down again on the same port;
#                                       prints its endpoint. goaws keeps its queues, topics
#                                       and messages in memory: they do not survive
#   scripts/goaws.sh build              only build (or refresh) the binary
#
# With MQPROBE_GOAWS_EXIT_WITH=PID set, the server also exits by itself once
# process PID is gone (tests pass their own id, in case they die unstopped).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
src="$root/tools/goaws"
bin="$root/.build/tools/goaws"
cmd=${1:-}
dir=${2:-}

build() { build_tool goaws; }

healthy() { http_ok "http://127.0.0.1:$1/health"; }

running() {
  [ -f "$dir/pid" ] && [ -f "$dir/port" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null && healthy "$(cat "$dir/port")"
}

# launch starts the server on port $1 and waits until it answers; it fails
# when the process dies first (typically: the port was taken meanwhile).
launch() {
  local port=$1 pid
  "$bin" -config "$src/goaws.yaml" -host 127.0.0.1 -port "$port" \
    -exit-with "${MQPROBE_GOAWS_EXIT_WITH:-0}" >>"$dir/goaws.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/pid"
  echo "$port" >"$dir/port"
  wait_ready "$pid" 10 "goaws on port $port" healthy "$port"
}

# halt stops the server of $dir, if any.
halt() { stop_pid "$dir/pid"; }

case "$cmd" in
build)
  build
  ;;
start)
  [ -n "$dir" ] || { echo "usage: $0 start DIR [PORT]" >&2; exit 2; }
  build
  mkdir -p "$dir"
  if running; then
    echo "http://127.0.0.1:$(cat "$dir/port")"
    exit 0
  fi
  if [ -n "${3:-}" ]; then
    launch "$3" || { cat "$dir/goaws.log" >&2; exit 1; }
    echo "http://127.0.0.1:$3"
    exit 0
  fi
  for _ in $(seq 1 20); do
    port=$((20000 + RANDOM % 20000))
    port_free "$port" || continue
    if launch "$port"; then
      echo "http://127.0.0.1:$port"
      exit 0
    fi
    grep -q "address already in use" "$dir/goaws.log" 2>/dev/null || { cat "$dir/goaws.log" >&2; exit 1; }
  done
  log "no free port found"
  exit 1
  ;;
stop)
  [ -n "$dir" ] || { echo "usage: $0 stop DIR" >&2; exit 2; }
  halt
  rm -rf "$dir"
  ;;
down)
  if [ -z "$dir" ] || [ ! -f "$dir/port" ]; then echo "usage: $0 down DIR (of a started server)" >&2; exit 2; fi
  halt
  ;;
up)
  if [ -z "$dir" ] || [ ! -f "$dir/port" ]; then echo "usage: $0 up DIR (of a server taken down)" >&2; exit 2; fi
  port=$(cat "$dir/port")
  if ! running; then
    launch "$port" || { cat "$dir/goaws.log" >&2; exit 1; }
  fi
  echo "http://127.0.0.1:$port"
  ;;
*)
  echo "usage: $0 start DIR [PORT] | stop DIR | down DIR | up DIR | build" >&2
  exit 2
  ;;
esac
