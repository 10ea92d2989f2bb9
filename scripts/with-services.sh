#!/usr/bin/env bash
# Runs a command with what the tests need, provisioned idempotently on this
# machine and torn down afterwards:
#   - PostgreSQL on 127.0.0.1 (scripts/postgres.sh), exported as
#     MQPROBE_TEST_POSTGRES_DSN unless that is already set;
#   - the IBM MQ client stub (scripts/build-mqstub.sh), with CGO_CFLAGS and
#     CGO_LDFLAGS pointing at it for `-tags ibmmq` builds.
#
#   scripts/with-services.sh COMMAND [ARGS...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [ -z "${MQPROBE_TEST_POSTGRES_DSN:-}" ]; then
  pgdir="$(mktemp -d /tmp/mqprobe-pg-XXXXXX)"
  trap 'bash "$root/scripts/postgres.sh" stop "$pgdir"' EXIT
  echo "==> starting PostgreSQL (127.0.0.1, data in $pgdir)"
  MQPROBE_TEST_POSTGRES_DSN="$(bash "$root/scripts/postgres.sh" start "$pgdir")"
  export MQPROBE_TEST_POSTGRES_DSN
fi

echo "==> building the IBM MQ client stub"
bash "$root/scripts/build-mqstub.sh" --check
eval "$(bash "$root/scripts/build-mqstub.sh" --env)"

"$@"
