#!/usr/bin/env bash
# Checks the project's shell scripts with shellcheck, installing it from
# Debian's package when the machine has none.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$root"
if ! command -v shellcheck >/dev/null; then
  log "installing shellcheck (Debian package)"
  if ! { apt-get update -qq && apt-get install -y -qq shellcheck; } >&2; then
    log "shellcheck is missing and could not be installed: run 'apt-get install shellcheck'"
    exit 1
  fi
fi
shellcheck -x -P SCRIPTDIR scripts/*.sh .ci/run
