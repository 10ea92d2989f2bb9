#!/usr/bin/env bash
# Runs a private Jaeger (OTLP receivers + in-memory storage + query API) for
# tests, built from the module proxy by tools/jaeger (its own Go module,
# outside mqprobe's dependency graph) into .build/tools/jaeger. Every listener
# is bound to 127.0.0.1 on a free port.
#
#   scripts/jaeger.sh start DIR   start (or reuse) the server whose state is in DIR;
#                                 prints (and writes to DIR/env) three lines:
#                                   MQPROBE_TEST_OTLP_ENDPOINT=http://127.0.0.1:PORT       OTLP/HTTP (POST /v1/traces)
#                                   MQPROBE_TEST_OTLP_GRPC_ENDPOINT=http://127.0.0.1:PORT  OTLP/gRPC
#                                   MQPROBE_TEST_JAEGER_QUERY=http://127.0.0.1:PORT        query API (GET /api/traces/ID)
#   scripts/jaeger.sh stop  DIR   stop it and remove DIR
#   scripts/jaeger.sh build       only build (or refresh) the binary
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin="$root/.build/tools/jaeger"
cmd=${1:-}
dir=${2:-}

build() { build_tool jaeger "about 1.5 minutes on 2 cores with a cold build cache"; }

# Names of the listeners, in the order of the ports in DIR/ports.
listeners=(otlp_http otlp_grpc query_http query_grpc collector_grpc collector_http)

# healthy: the query API answers and the OTLP/HTTP port accepts connections.
healthy() {
  local otlp_http=$1 query_http=$3
  http_ok "http://127.0.0.1:$query_http/api/services" &&
    ! port_free "$otlp_http"
}

# shellcheck disable=SC2046 # the ports file holds the ports, one word each
running() {
  [ -f "$dir/pid" ] && [ -f "$dir/ports" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null &&
    healthy $(cat "$dir/ports")
}

print_env() {
  local p
  read -r -a p <"$dir/ports"
  {
    echo "MQPROBE_TEST_OTLP_ENDPOINT=http://127.0.0.1:${p[0]}"
    echo "MQPROBE_TEST_OTLP_GRPC_ENDPOINT=http://127.0.0.1:${p[1]}"
    echo "MQPROBE_TEST_JAEGER_QUERY=http://127.0.0.1:${p[2]}"
  } >"$dir/env"
  cat "$dir/env"
}

# launch starts the server on the ports given as arguments (in the order of
# $listeners) and waits until it answers; it fails when the process dies
# first (typically: a port was taken meanwhile).
launch() {
  local pid
  "$bin" \
    --collector.otlp.http.host-port="127.0.0.1:$1" \
    --collector.otlp.grpc.host-port="127.0.0.1:$2" \
    --query.http-server.host-port="127.0.0.1:$3" \
    --query.grpc-server.host-port="127.0.0.1:$4" \
    --collector.grpc-server.host-port="127.0.0.1:$5" \
    --collector.http-server.host-port="127.0.0.1:$6" \
    --memory.max-traces=100000 \
    --log-level=warn \
    >>"$dir/jaeger.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/pid"
  echo "$*" >"$dir/ports"
  wait_ready "$pid" 15 "jaeger on port $3" healthy "$@"
}

# pick_ports prints ${#listeners[@]} distinct ports that are free right now.
pick_ports() {
  local ports=() port p dup
  while [ "${#ports[@]}" -lt "${#listeners[@]}" ]; do
    port=$((20000 + RANDOM % 20000))
    dup=
    for p in "${ports[@]}"; do [ "$p" = "$port" ] && dup=1; done
    [ -z "$dup" ] && port_free "$port" && ports+=("$port")
  done
  echo "${ports[*]}"
}

case "$cmd" in
build)
  build
  ;;
start)
  [ -n "$dir" ] || { echo "usage: $0 start DIR" >&2; exit 2; }
  build
  mkdir -p "$dir"
  if running; then
    print_env
    exit 0
  fi
  for _ in $(seq 1 10); do
    # shellcheck disable=SC2046 # word splitting of the port list is intended
    if launch $(pick_ports); then
      print_env
      exit 0
    fi
    grep -q "address already in use" "$dir/jaeger.log" 2>/dev/null || { cat "$dir/jaeger.log" >&2; exit 1; }
  done
  log "no free ports found"
  exit 1
  ;;
stop)
  [ -n "$dir" ] || { echo "usage: $0 stop DIR" >&2; exit 2; }
  stop_pid "$dir/pid"
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start DIR | stop DIR | build" >&2
  exit 2
  ;;
esac
