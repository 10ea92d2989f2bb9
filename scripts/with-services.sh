#!/usr/bin/env bash
# Runs a command with what the tests need, provisioned idempotently on this
# machine and torn down afterwards:
#   - PostgreSQL on 127.0.0.1 (scripts/postgres.sh), exported as
#     MQPROBE_TEST_POSTGRES_DSN unless that is already set;
#   - dynalite (DynamoDB) on 127.0.0.1 (scripts/dynalite.sh), exported as
#     MQPROBE_TEST_DYNAMODB_ENDPOINT unless that is already set;
#   - goaws (SQS, SNS) on 127.0.0.1 (scripts/goaws.sh), exported as
#     MQPROBE_TEST_AWS_ENDPOINT unless that is already set;
#   - Jaeger (an OTLP receiver) on 127.0.0.1 (scripts/jaeger.sh), exported as
#     MQPROBE_TEST_OTLP_ENDPOINT, MQPROBE_TEST_OTLP_GRPC_ENDPOINT and
#     MQPROBE_TEST_JAEGER_QUERY unless those are already set;
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

if [ -z "${MQPROBE_TEST_AWS_ENDPOINT:-}" ]; then
  goawsdir="$(mktemp -d /tmp/mqprobe-goaws-XXXXXX)"
  cleanups+=("bash '$root/scripts/goaws.sh' stop '$goawsdir'")
  echo "==> starting goaws (127.0.0.1)"
  MQPROBE_TEST_AWS_ENDPOINT="$(bash "$root/scripts/goaws.sh" start "$goawsdir")"
  export MQPROBE_TEST_AWS_ENDPOINT
fi

if [ -z "${MQPROBE_TEST_JAEGER_QUERY:-}" ]; then
  jaegerdir="$(mktemp -d /tmp/mqprobe-jaeger-XXXXXX)"
  cleanups+=("bash '$root/scripts/jaeger.sh' stop '$jaegerdir'")
  echo "==> starting Jaeger (127.0.0.1; built from the module proxy on first use)"
  set -a
  eval "$(bash "$root/scripts/jaeger.sh" start "$jaegerdir")"
  set +a
fi

echo "==> building the IBM MQ client stub"
bash "$root/scripts/build-mqstub.sh" --check
eval "$(bash "$root/scripts/build-mqstub.sh" --env)"

"$@"
