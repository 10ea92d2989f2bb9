package daemontest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// The fault-injection suite (issue 8): each test breaks one real component
// while commands flow, then counts what became of them and prints the
// counts as one line, "FAULT <name>: sent=… executed=… duplicated=… lost=…
// rejected=…", which it also asserts. scripts/run-tests.sh collects those
// lines from both test packages.

// FaultFigures are a fault test's counts: commands sent; executed (exactly
// one execution, its MQ effects present exactly once); duplicated (more than
// one execution, or more effects than one execution makes); lost (no
// completed execution, or effects missing); rejected (rejected results).
type FaultFigures struct {
	Sent, Executed, Duplicated, Lost, Rejected int
}

// String is the figures as the FAULT line prints them.
func (f FaultFigures) String() string {
	return fmt.Sprintf("sent=%d executed=%d duplicated=%d lost=%d rejected=%d", f.Sent, f.Executed, f.Duplicated, f.Lost, f.Rejected)
}

// ReportFault logs the test's line of figures, with the test's own extra
// figures (name, value pairs) appended, and fails the test unless got is
// want. The name is written in the characters the collector reads
// (a-z, 0-9, -): "goaws+dynalite" is written "goaws-dynalite".
func ReportFault(t *testing.T, name string, got, want FaultFigures, extra ...any) {
	t.Helper()
	line := "FAULT " + faultName(name) + ": " + got.String()
	for i := 0; i+1 < len(extra); i += 2 {
		line += fmt.Sprintf(" %v=%v", extra[i], extra[i+1])
	}
	t.Log(line)
	if got != want {
		t.Errorf("figures %s, want %s", got, want)
	}
}

// FaultKeyProperty is the message property (a PRODUCE header) carrying the
// idempotency key of the command that put the message, so a test can count
// every command's effects on the queue.
const FaultKeyProperty = "faultKey"

// FaultProduce is a PRODUCE of count 64-byte messages on QM1/queue, each
// tagged with key (FaultKeyProperty), under syncpoint in transactions of
// txSize, paced to rate messages a second when rate > 0.
func FaultProduce(key, queue string, count, txSize, rate int) string {
	pace := ""
	if rate > 0 {
		pace = fmt.Sprintf(`,"rateLimitPerSec":%d`, rate)
	}
	return fmt.Sprintf(`{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":%q},`+
		`"batch":{"count":%d,"messageSizeBytes":64%s,"transaction":{"enabled":true,"txSize":%d}},"headers":{%q:%q}}`,
		queue, count, pace, txSize, FaultKeyProperty, key)
}

// FaultRun makes the keys of one run unique across runs sharing a server.
func FaultRun() string { return fmt.Sprintf("%d", time.Now().UnixNano()%1e9) }

// ConnectQM1 connects to QM1 straight through backend, past the daemon (and
// its idempotency store); it fails t if it cannot. The caller closes the
// connection.
func ConnectQM1(t testing.TB, backend mq.Backend) mq.Conn {
	t.Helper()
	conn, err := backend.Connect(context.Background(), mq.Target{QueueManager: "QM1"})
	if err != nil {
		t.Fatalf("connect to QM1: %v", err)
	}
	return conn
}

// QueueDepth reads QM1/queue's CURDEPTH through backend (uncommitted puts
// included), failing t if it cannot.
func QueueDepth(t testing.TB, backend mq.Backend, queue string) int {
	t.Helper()
	conn := ConnectQM1(t, backend)
	defer conn.Close()
	info, err := mq.InquireQueue(context.Background(), conn, queue)
	if err != nil {
		t.Fatalf("inquire %s: %v", queue, err)
	}
	return info.CurrentDepth
}

// faultName is name in lower case with every character the collector does
// not read (outside a-z, 0-9 and -) written as "-".
func faultName(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(name))
}
