#!/usr/bin/env bash
# Build the project's IBM MQ client library (headers + libmqm_r.so, a client
# of mqserver) so that github.com/ibm-messaging/mq-golang compiles, links and
# runs without IBM's client. Sources: internal/mqsim/clientlib
# (see its README.md).
#
#   scripts/build-mqstub.sh           build into $MQSTUB_DIR (default .build/mqstub)
#   scripts/build-mqstub.sh --check   build, then run the C self-test against a
#                                     fresh mqserver on a free 127.0.0.1 port
#   scripts/build-mqstub.sh --env     build, then print only the export lines
#
# Rebuilds only when a source, header or this script changed (content hash).
set -euo pipefail

self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
root="$(dirname "$(dirname "$self")")"
src="$root/internal/mqsim/clientlib"
out="${MQSTUB_DIR:-$root/.build/mqstub}"
case "$out" in /*) ;; *) out="$root/$out" ;; esac
cc="${CC:-gcc}"
cflags=(-O2 -Wall -Wextra -Werror -pthread)

mode=build
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  --env) mode="env" ;;
  -h|--help) sed -n '2,12p' "$self"; exit 0 ;;
  *) echo "usage: $0 [--check|--env]" >&2; exit 2 ;;
esac

log() { if [ "$mode" != env ]; then echo "$@" >&2; fi; }

# The library speaks TLS with OpenSSL: Debian's libssl-dev, and the openssl
# command with which the TLS tests write PKCS #12 key repositories, both
# installed when missing.
ensure_libssl() {
  [ -f /usr/include/openssl/ssl.h ] && command -v openssl >/dev/null && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "mqstub: OpenSSL is missing and installing it needs root: run 'apt-get install libssl-dev openssl'" >&2
    exit 1
  fi
  log "mqstub: installing libssl-dev and openssl from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends libssl-dev openssl; } >&2
}

hash="$( (cd "$src" && cat include/*.h src/*.c src/*.h test/*.c; cat "$self"; echo "$cc ${cflags[*]}") | sha256sum | cut -d' ' -f1)"
stamp="$out/.stamp"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ] && [ -f "$out/lib64/libmqm_r.so" ] && [ -L "$out/lib64/libmqic_r.so" ]; then
  log "mqstub: up to date in $out"
else
  ensure_libssl
  log "mqstub: building into $out"
  mkdir -p "$out/inc" "$out/lib64" "$out/bin"
  rm -f "$stamp"
  cp "$src"/include/*.h "$out/inc/"
  tmp="$out/lib64/.libmqm_r.so.$$"
  "$cc" -shared -fPIC -fvisibility=hidden "${cflags[@]}" -I"$src/include" \
    -Wl,-soname,libmqm_r.so -o "$tmp" "$src"/src/*.c -lssl -lcrypto
  mv -f "$tmp" "$out/lib64/libmqm_r.so"
  # The other names IBM's installations give the MQI library in lib64, which
  # programs link or dlopen: libmqic_r.so is what a client-mode program such
  # as IBM's mq-cph loads. One library here, so they are links to it.
  for name in libmqm.so libmqic.so libmqic_r.so; do
    ln -sfn libmqm_r.so "$out/lib64/$name"
  done
  # Every test program: the self-test, the initial values of the
  # structures, and a program written the way IBM's samples are.
  for prog in "$src"/test/*.c; do
    "$cc" "${cflags[@]}" -I"$out/inc" -o "$out/bin/$(basename "$prog" .c)" "$prog" \
      -L"$out/lib64" -Wl,-rpath,"$out/lib64" -lmqm_r
  done
  echo "$hash" > "$stamp"
fi

if [ "$mode" = check ]; then
  log "mqstub: building mqserver"
  (cd "$root" && go build -o "$out/bin/mqserver" ./cmd/mqserver)
  work="$(mktemp -d)"
  server_pid=""
  stop_server() {
    if [ -n "$server_pid" ]; then
      kill "$server_pid" 2>/dev/null || true
      wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
  }
  trap stop_server EXIT
  : >"$work/out"   # exists before the server writes: it is read at once
  # Port 0: the server picks a free port and prints it. app needs no
  # password; admin has one, so a wrong one can be refused.
  env -u MQ_APP_PASSWORD MQ_ADMIN_PASSWORD=stubtest-admin \
    "$out/bin/mqserver" -listen 127.0.0.1:0 >"$work/out" 2>"$work/err" &
  server_pid=$!
  addr=""
  for _ in $(seq 100); do
    addr="$(sed -n 's/^mqserver listening on //p' "$work/out")"
    [ -n "$addr" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$addr" ]; then
    echo "mqstub: mqserver did not start:" >&2
    cat "$work/err" >&2
    exit 1
  fi
  log "mqstub: running C self-test against mqserver on $addr"
  # The self-test finds the server through MQSERVER; the variables that
  # choose a channel or TLS otherwise are cleared.
  env -u MQCCDTURL -u MQCHLLIB -u MQCHLTAB -u MQSSLKEYR -u MQ_APP_PASSWORD -u MQ_ADMIN_PASSWORD \
    MQSERVER="DEV.APP.SVRCONN/TCP/${addr%:*}(${addr##*:})" "$out/bin/stubtest"
  log "mqstub: checking the structures' initial values"
  "$out/bin/defaults"
  log "mqstub: running the IBM-style program against mqserver"
  env -u MQCCDTURL -u MQCHLLIB -u MQCHLTAB -u MQSSLKEYR -u MQ_APP_PASSWORD -u MQ_ADMIN_PASSWORD \
    MQSERVER="DEV.APP.SVRCONN/TCP/${addr%:*}(${addr##*:})" "$out/bin/ibmstyle"
  # Programs built for IBM's client library names: the same program linked
  # as a client-mode program (-lmqic_r, as IBM's mq-cph loads it) runs too.
  log "mqstub: running the IBM-style program linked with -lmqic_r"
  "$cc" "${cflags[@]}" -I"$out/inc" -o "$work/ibmstyle-mqic" "$src/test/ibmstyle.c" \
    -L"$out/lib64" -Wl,-rpath,"$out/lib64" -lmqic_r
  env -u MQCCDTURL -u MQCHLLIB -u MQCHLTAB -u MQSSLKEYR -u MQ_APP_PASSWORD -u MQ_ADMIN_PASSWORD \
    MQSERVER="DEV.APP.SVRCONN/TCP/${addr%:*}(${addr##*:})" "$work/ibmstyle-mqic"
fi

if [ "$mode" = env ]; then
  echo "export CGO_CFLAGS=\"-I$out/inc\""
  echo "export CGO_LDFLAGS=\"-L$out/lib64 -Wl,-rpath,$out/lib64\""
else
  log ""
  log "Use with cgo (e.g. go build -tags ibmmq):"
  echo "CGO_CFLAGS=-I$out/inc"
  echo "CGO_LDFLAGS=\"-L$out/lib64 -Wl,-rpath,$out/lib64\""
fi
