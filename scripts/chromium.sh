#!/usr/bin/env bash
# Installs Debian's Chromium (package chromium), which the web console's
# browser tests drive headless, when the machine has none; prints the path
# of the browser binary. Safe to run again: an installed Chromium is only
# looked up.
#
#   scripts/chromium.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# find_chromium prints the first Chromium on PATH.
find_chromium() {
  local name
  for name in chromium chromium-browser; do
    command -v "$name" && return 0
  done
  return 1
}

if find_chromium; then
  exit 0
fi
[ "$(id -u)" = 0 ] || { log "Chromium is not installed and installing needs root: run 'apt-get install chromium' as root"; exit 1; }
log "installing Chromium from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq chromium; } >&2; then
  log "Chromium could not be installed: run 'apt-get update && apt-get install chromium'"
  exit 1
fi
find_chromium || { log "the chromium package installed no chromium binary on PATH"; exit 1; }
