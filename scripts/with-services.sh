#!/usr/bin/env bash
# Runs a command with what the tests need, provisioned idempotently on this
# machine and torn down afterwards:
#   - PostgreSQL on 127.0.0.1 (scripts/postgres.sh), exported as
#     MQPROBE_TEST_POSTGRES_DSN unless that is already set;
#   - dynalite (DynamoDB) on 127.0.0.1 (scripts/dynalite.sh), exported as
#     MQPROBE_TEST_DYNAMODB_ENDPOINT unless that is already set;
#   - goaws (SQS, SNS) on 127.0.0.1 (scripts/goaws.sh), exported as
#     MQPROBE_TEST_AWS_ENDPOINT unless that is already set;
#   - moto, the second, independent AWS emulator (SQS, SNS, DynamoDB,
#     EventBridge, Secrets Manager, CloudFormation), on 127.0.0.1
#     (scripts/moto.sh), exported as MQPROBE_TEST_MOTO_ENDPOINT unless that is
#     already set;
#   - Jaeger (an OTLP receiver) on 127.0.0.1 (scripts/jaeger.sh), exported as
#     MQPROBE_TEST_OTLP_ENDPOINT, MQPROBE_TEST_OTLP_GRPC_ENDPOINT and
#     MQPROBE_TEST_JAEGER_QUERY unless those are already set;
#   - the AWS CLI on PATH (installed with pip when the machine has none);
#   - Debian's Chromium (scripts/chromium.sh), which the web console's
#     browser tests drive headless, exported as MQPROBE_TEST_CHROMIUM unless
#     that is already set;
#   - the IBM MQ client stub (scripts/build-mqstub.sh), with CGO_CFLAGS and
#     CGO_LDFLAGS pointing at it for `-tags ibmmq` builds.
#
#   scripts/with-services.sh COMMAND [ARGS...]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # sets root
cd "$root"

cleanups=()
cleanup() {
  for c in "${cleanups[@]}"; do eval "$c"; done
}
trap cleanup EXIT

# start NAME VAR [env]: unless VAR is set already, starts scripts/NAME.sh on
# a fresh state directory (stopped on exit) and exports what it prints: as
# VAR, or, with "env", as the VAR=value lines it prints. A server that
# cannot be had fails the run.
start() {
  local name=$1 var=$2 dir out
  [ -n "${!var:-}" ] && return 0
  dir="$(mktemp -d "/tmp/mqprobe-$name-XXXXXX")"
  cleanups+=("bash '$root/scripts/$name.sh' stop '$dir'")
  echo "==> starting $name on 127.0.0.1"
  local rc=0
  out="$(bash "$root/scripts/$name.sh" start "$dir")" || rc=$?
  if [ $rc -ne 0 ]; then
    echo "==> FATAL: $name could not be started (exit $rc): the tests need it; see the lines above" >&2
    exit $rc
  fi
  if [ "${3:-}" = env ]; then
    set -a
    eval "$out"
    set +a
  else
    export "$var=$out"
  fi
}

start postgres MQPROBE_TEST_POSTGRES_DSN
start dynalite MQPROBE_TEST_DYNAMODB_ENDPOINT
start goaws MQPROBE_TEST_AWS_ENDPOINT
start moto MQPROBE_TEST_MOTO_ENDPOINT
start jaeger MQPROBE_TEST_JAEGER_QUERY env # built from the module proxy on first use

# The AWS CLI, an outside client the tests hold the docs' AWS walkthrough to.
ensure_aws_cli || { echo "==> FATAL: no AWS CLI" >&2; exit 1; }

# Chromium for the console's browser tests: the machine's, else Debian's
# package.
if [ -z "${MQPROBE_TEST_CHROMIUM:-}" ]; then
  if ! MQPROBE_TEST_CHROMIUM="$(bash "$root/scripts/chromium.sh")"; then
    echo "==> FATAL: no Chromium, and scripts/chromium.sh could not install it: the console's browser tests need it" >&2
    exit 1
  fi
  export MQPROBE_TEST_CHROMIUM
fi

echo "==> building the IBM MQ client stub"
bash "$root/scripts/build-mqstub.sh" --check
eval "$(bash "$root/scripts/build-mqstub.sh" --env)"

"$@"
