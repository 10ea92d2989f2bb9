#!/usr/bin/env bash
# Runs every test: the default build, then the IBM MQ adapter on the
# project's MQ client library and queue manager server (-tags ibmmq). Prints each package's result and each idempotency
# store's conformance result; on failure, the failing tests' output.
# Expects scripts/with-services.sh to have provisioned the services.
#
#   scripts/run-tests.sh          every test, with -race, then the fuzz targets (make test)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 1
log="$(mktemp /tmp/mqprobe-test-XXXXXX.log)"
status=0
# A package's tests may take longer than go test's 10-minute default on a
# loaded 2-core machine (the daemon suites start many processes).
test_flags=(-race -count=1 -v -timeout 30m)

# The tests see what a container on ECS or EKS sees: none of the variables
# that change how the AWS SDK or Go's HTTP client behave on this machine —
# AWS_CA_BUNDLE, AWS_PROFILE, AWS_DEFAULT_PROFILE, AWS_CONFIG_FILE,
# AWS_SHARED_CREDENTIALS_FILE, HTTP_PROXY, HTTPS_PROXY, NO_PROXY, ALL_PROXY
# (either case) and every other AWS_* variable; the same set as
# testenv.IsMachineVariable, which the TestMains of internal/daemon,
# internal/daemon/e2e, internal/awsbus and internal/idempotency/dynamodb
# also clear — and no shared AWS config or credentials file. Modules are
# fetched first, while a proxy the machine needs still applies.
go mod download
machine_vars=$(compgen -e | grep -E '^(AWS_|[Hh][Tt][Tt][Pp][Ss]?_[Pp][Rr][Oo][Xx][Yy]$|[Nn][Oo]_[Pp][Rr][Oo][Xx][Yy]$|[Aa][Ll][Ll]_[Pp][Rr][Oo][Xx][Yy]$)' || true)
if [ -n "$machine_vars" ]; then
  echo "==> removed from the tests' environment: $(echo "$machine_vars" | tr '\n' ' ')"
fi
# shellcheck disable=SC2086 # one name per word
unset AWS_CA_BUNDLE AWS_PROFILE AWS_DEFAULT_PROFILE AWS_CONFIG_FILE AWS_SHARED_CREDENTIALS_FILE \
  HTTP_PROXY HTTPS_PROXY NO_PROXY ALL_PROXY http_proxy https_proxy no_proxy all_proxy $machine_vars
if [ -e "$HOME/.aws" ]; then
  echo "==> $HOME/.aws is ignored: the tests use no shared AWS config"
  export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
fi

run() {
  echo "==> go test ${test_flags[*]} $*"
  go test "${test_flags[@]}" "$@" >"$log.part" 2>&1
  local rc=$?
  cat "$log.part" >>"$log"
  grep -E '^(ok|FAIL|---|panic:)|^\s+--- FAIL' "$log.part" | grep -v '^--- PASS' || true
  if [ $rc -ne 0 ]; then
    status=$rc
    echo "==> failures:"
    grep -E -B3 -A40 -- '--- FAIL|^panic:' "$log.part" | head -400
  fi
}

run ./...
# The ibmmq build tag adds the IBM MQ adapter, its probe runs, REDRIVE and
# the responders through it, and the daemon's ibmmq backend (its tests in
# internal/daemon; the MQ fault tests
# through the client library and a queue manager server in the test process,
# in internal/daemon and, over SQS, internal/daemon/e2e); the daemon's
# other tests would only repeat.
if [ -n "${CGO_LDFLAGS:-}" ]; then
  run -tags ibmmq ./internal/mq/... ./internal/probe/...
  run -tags ibmmq -run 'IBMMQ|Stub' ./handlers/ ./internal/responder/ ./internal/daemon/ ./internal/daemon/e2e/
  # The same suite and daemon test against a queue manager in another
  # process, as make test-ibmmq-real runs them against a real one: the
  # project's server, started by the script.
  echo "==> scripts/test-ibmmq-real.sh (the project's queue manager server, out of process)"
  if ! (unset MQPROBE_TEST_IBMMQ_QMGR; bash scripts/test-ibmmq-real.sh) >"$log.part" 2>&1; then
    status=1
    tail -60 "$log.part"
  fi
  grep -E '^(ok|FAIL|---)' "$log.part" || true
  cat "$log.part" >>"$log"
fi

# Fuzzing: each target for a bounded number of inputs (MQPROBE_FUZZTIME,
# 20000x by default; a duration works too). A count, not a duration: Go
# before 1.27 can fail a target that found nothing with "context deadline
# exceeded" when a -fuzztime duration ends (golang/go#75804), which a
# loaded CI machine hit. Inputs that broke a target are written under its
# testdata/fuzz and fail the run; the checked-in corpora there run with
# every plain `go test`.
fuzztime=${MQPROBE_FUZZTIME:-20000x}
for target in ./internal/command:FuzzDecode ./internal/command:FuzzRequestHash ./internal/httpapi:FuzzHTTPAPI ./internal/mq:FuzzParseConnName ./internal/secrets:FuzzSecretRef; do
  pkg=${target%%:*} name=${target##*:}
  echo "==> go test -fuzz $name $pkg ($fuzztime)"
  if ! go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" "$pkg" >"$log.part" 2>&1; then
    status=1
    tail -40 "$log.part"
  fi
  cat "$log.part" >>"$log"
  grep -E '^fuzz: elapsed' "$log.part" | tail -1
done

echo "==> fault injection (sent, executed, duplicated, lost, rejected)"
grep -hoE 'FAULT [a-z0-9-]+: .*' "$log" | sort -u | sed 's/^/    /'

echo "==> idempotency store conformance"
for store in Memory SQLite Postgres DynamoDB/dynalite DynamoDB/moto; do
  result=$(grep -E "^\s*--- (PASS|FAIL): TestConformance$store " "$log" | head -1 | awk '{print $2}' | tr -d :)
  printf '    %-18s %s\n' "$store" "${result:-NOT RUN}"
  [ "${result:-}" = "PASS" ] || status=1
done

echo "==> aws-mode suites on each AWS emulator (passed, failed)"
for emulator in goaws+dynalite goaws dynalite moto; do
  passed=$(grep -cE "^\s*--- PASS: Test[A-Za-z]+/${emulator//+/\\+} " "$log")
  failed=$(grep -cE "^\s*--- FAIL: Test[A-Za-z]+/${emulator//+/\\+} " "$log")
  printf '    %-18s %s passed, %s failed\n' "$emulator" "$passed" "$failed"
  [ "$passed" -gt 0 ] && [ "$failed" -eq 0 ] || status=1
done
echo "==> IBM programs against the project's queue manager server (passed, failed)"
judges=$(grep -hoE 'JUDGE [^ :]+: [0-9]+ passed, [0-9]+ failed' "$log" |
  awk '{sub(":", "", $2); p[$2] += $3; f[$2] += $5} END {for (n in p) printf "    %-36s %d passed, %d failed\n", n, p[n], f[n]}' | sort)
if [ -z "$judges" ]; then
  echo "    none ran"
  if [ -n "${CGO_LDFLAGS:-}" ]; then status=1; fi
else
  echo "$judges"
  if echo "$judges" | grep -qvE ' 0 failed$'; then status=1; fi
fi
echo "==> full log: $log"
exit $status
