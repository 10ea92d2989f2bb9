#!/usr/bin/env bash
# Build the project's IBM MQ client stub (headers + libmqm_r.so) so that
# github.com/ibm-messaging/mq-golang compiles, links and runs without IBM's
# client. Sources: internal/mq/ibmmq/testdata/mqstub (see its README.md).
#
#   scripts/build-mqstub.sh           build into $MQSTUB_DIR (default .build/mqstub)
#   scripts/build-mqstub.sh --check   build, then build and run the C self-test
#   scripts/build-mqstub.sh --env     build, then print only the export lines
#
# Rebuilds only when a source, header or this script changed (content hash).
set -euo pipefail

self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
root="$(dirname "$(dirname "$self")")"
src="$root/internal/mq/ibmmq/testdata/mqstub"
out="${MQSTUB_DIR:-$root/.build/mqstub}"
case "$out" in /*) ;; *) out="$root/$out" ;; esac
cc="${CC:-gcc}"
cflags=(-O2 -Wall -Wextra -Werror -pthread)

mode=build
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  --env) mode="env" ;;
  -h|--help) sed -n '2,10p' "$self"; exit 0 ;;
  *) echo "usage: $0 [--check|--env]" >&2; exit 2 ;;
esac

log() { if [ "$mode" != env ]; then echo "$@" >&2; fi; }

hash="$( (cd "$src" && cat include/*.h src/*.c src/*.h test/*.c; cat "$self"; echo "$cc ${cflags[*]}") | sha256sum | cut -d' ' -f1)"
stamp="$out/.stamp"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ] && [ -f "$out/lib64/libmqm_r.so" ]; then
  log "mqstub: up to date in $out"
else
  log "mqstub: building into $out"
  mkdir -p "$out/inc" "$out/lib64" "$out/bin"
  rm -f "$stamp"
  cp "$src"/include/*.h "$out/inc/"
  tmp="$out/lib64/.libmqm_r.so.$$"
  "$cc" -shared -fPIC -fvisibility=hidden "${cflags[@]}" -I"$src/include" \
    -Wl,-soname,libmqm_r.so -o "$tmp" "$src"/src/*.c
  mv -f "$tmp" "$out/lib64/libmqm_r.so"
  "$cc" "${cflags[@]}" -I"$out/inc" -o "$out/bin/stubtest" "$src/test/stubtest.c" \
    -L"$out/lib64" -Wl,-rpath,"$out/lib64" -lmqm_r
  echo "$hash" > "$stamp"
fi

if [ "$mode" = check ]; then
  log "mqstub: running C self-test"
  # The self-test sets its own MQSTUB_* variables; start from a clean slate.
  env -u MQSTUB_QMGRS -u MQSTUB_MAX_DEPTH -u MQSTUB_MAX_MSG_LENGTH -u MQSTUB_BREAK \
      -u MQSTUB_RESET -u MQSTUB_CONNX_REASON -u MQSTUB_FAIL_PUT -u MQSTUB_FAIL_GET \
      -u MQSTUB_FAIL_CMIT -u MQSTUB_DROP_PUT -u MQSTUB_DUP_PUT -u MQSTUB_DISC_BACKOUT "$out/bin/stubtest"
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
