#!/usr/bin/env bash
# Runs every test: the default build, then the IBM MQ adapter on the client
# stub (-tags ibmmq). Prints each package's result and each idempotency
# store's conformance result; on failure, the failing tests' output.
# Expects scripts/with-services.sh to have provisioned the services.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log="$(mktemp /tmp/mqprobe-test-XXXXXX.log)"
status=0

run() {
  echo "==> go test $*"
  go test -race -count=1 -v "$@" >"$log.part" 2>&1
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
# The ibmmq build tag adds the IBM MQ adapter, its probe runs and the
# daemon's ibmmq backend; the daemon's other tests would only repeat.
if [ -n "${CGO_LDFLAGS:-}" ]; then
  run -tags ibmmq ./internal/mq/... ./internal/probe/...
  run -tags ibmmq -run 'IBMMQ|Stub' ./internal/daemon/
fi

# Fuzzing: each target for a bounded time (MQPROBE_FUZZTIME, 30s by default).
# Inputs that broke a target are written under its testdata/fuzz and fail
# the run; the checked-in corpora there run with every plain `go test`.
fuzztime=${MQPROBE_FUZZTIME:-30s}
for target in ./internal/command:FuzzDecode ./internal/idempotency:FuzzRequestHash ./internal/httpapi:FuzzHTTPAPI; do
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
for store in Memory SQLite Postgres DynamoDB; do
  result=$(grep -E "^--- (PASS|FAIL): TestConformance$store " "$log" | head -1 | awk '{print $2}' | tr -d :)
  printf '    %-10s %s\n' "$store" "${result:-NOT RUN}"
  [ "${result:-}" = "PASS" ] || status=1
done
echo "==> full log: $log"
exit $status
