#!/usr/bin/env bash
# Installs Debian's valgrind, whose callgrind counts the instructions per
# message in `make bench` (BenchmarkProduceCPU), when the machine has none.
# Safe to run again: an installed valgrind is only looked up.
#
#   scripts/valgrind.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if command -v valgrind >/dev/null && command -v callgrind_control >/dev/null; then
  exit 0
fi
[ "$(id -u)" = 0 ] || { log "valgrind is not installed and installing needs root: run 'apt-get install valgrind' as root"; exit 1; }
log "installing valgrind from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq valgrind; } >&2; then
  log "valgrind could not be installed: run 'apt-get update && apt-get install valgrind'"
  exit 1
fi
command -v callgrind_control >/dev/null || { log "the valgrind package installed no callgrind_control on PATH"; exit 1; }
