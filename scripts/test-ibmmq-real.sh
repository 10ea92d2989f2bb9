#!/usr/bin/env bash
# Runs the MQ backend suite and the daemon's ibmmq end-to-end test against a
# queue manager outside the test process (make test-ibmmq-real):
#   - the one MQPROBE_TEST_IBMMQ_QMGR, _CHANNEL, _CONNNAME, _USER, _PASSWORD,
#     _QUEUE, _QUEUE2 (and optionally _ALIAS, an alias of _QUEUE) name, such
#     as IBM's MQ developer container;
#   - otherwise the project's queue manager server (scripts/mqserver.sh),
#     started for the run on a free 127.0.0.1 port and stopped after it.
# The client is IBM's MQ client when /opt/mqm has one and CGO_LDFLAGS is
# unset, else the project's client library (scripts/build-mqstub.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [ -z "${CGO_LDFLAGS:-}" ] && [ ! -e /opt/mqm/lib64/libmqm_r.so ]; then
  eval "$(bash scripts/build-mqstub.sh --env)"
fi
if [ -z "${MQPROBE_TEST_IBMMQ_QMGR:-}" ]; then
  dir="$(mktemp -d /tmp/mqprobe-mqserver-XXXXXX)"
  trap 'bash "$root/scripts/mqserver.sh" stop "$dir"' EXIT
  echo "==> MQPROBE_TEST_IBMMQ_QMGR is not set: starting the project's queue manager server"
  eval "$(bash scripts/mqserver.sh start "$dir")"
  export MQPROBE_TEST_IBMMQ_ALIAS=${MQPROBE_TEST_IBMMQ_ALIAS:-DEV.ALIAS.1}
fi
echo "==> queue manager $MQPROBE_TEST_IBMMQ_QMGR at ${MQPROBE_TEST_IBMMQ_CONNNAME:-MQSERVER or the CCDT} on ${MQPROBE_TEST_IBMMQ_CHANNEL:-?}"
go test -count=1 -v -tags ibmmq -run 'TestBackendSuite' ./internal/mq/ibmmq/
go test -count=1 -v -tags ibmmq -run 'TestIBMMQBackend$' ./internal/daemon/
