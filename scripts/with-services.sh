#!/usr/bin/env bash
# Runs a command with what the tests need, provisioned idempotently on this
# machine and torn down afterwards:
#   - PostgreSQL on 127.0.0.1 (scripts/postgres.sh), exported as
#     MQPROBE_TEST_POSTGRES_DSN unless that is already set;
#   - dynalite (DynamoDB) on 127.0.0.1 (scripts/dynalite.sh), exported as
#     MQPROBE_TEST_DYNAMODB_ENDPOINT unless that is already set;
#   - the IBM MQ client stub (scripts/build-mqstub.sh), with CGO_CFLAGS and
#     CGO_LDFLAGS pointing at it for `-tags ibmmq` builds.
#
#   scripts/with-services.sh COMMAND [ARGS...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

cleanups=()
cleanup() {
  for c in "${cleanups[@]}"; do eval "$c"; done
}
trap cleanup EXIT

if [ -z "${MQPROBE_TEST_POSTGRES_DSN:-}" ]; then
  pgdir="$(mktemp -d /tmp/mqprobe-pg-XXXXXX)"
  cleanups+=("bash '$root/scripts/postgres.sh' stop '$pgdir'")
  echo "==> starting PostgreSQL (127.0.0.1, data in $pgdir)"
  MQPROBE_TEST_POSTGRES_DSN="$(bash "$root/scripts/postgres.sh" start "$pgdir")"
  export MQPROBE_TEST_POSTGRES_DSN
fi

if [ -z "${MQPROBE_TEST_DYNAMODB_ENDPOINT:-}" ]; then
  ddbdir="$(mktemp -d /tmp/mqprobe-dynalite-XXXXXX)"
  cleanups+=("bash '$root/scripts/dynalite.sh' stop '$ddbdir'")
  echo "==> starting dynalite (127.0.0.1)"
  MQPROBE_TEST_DYNAMODB_ENDPOINT="$(bash "$root/scripts/dynalite.sh" start "$ddbdir")"
  export MQPROBE_TEST_DYNAMODB_ENDPOINT
fi

echo "==> building the IBM MQ client stub"
bash "$root/scripts/build-mqstub.sh" --check
eval "$(bash "$root/scripts/build-mqstub.sh" --env)"

"$@"
