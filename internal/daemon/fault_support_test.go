package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// The fault-injection suite (issue 8): each test breaks one real component
// while commands flow, then counts what became of them and prints the
// counts as one line, "FAULT <name>: sent=… executed=… duplicated=… lost=…
// rejected=…", which it also asserts.

// faultFigures are a fault test's counts: commands sent; executed (exactly
// one execution, its MQ effects present exactly once); duplicated (more than
// one execution, or more effects than one execution makes); lost (no
// completed execution, or effects missing); rejected (rejected results).
type faultFigures struct {
	Sent, Executed, Duplicated, Lost, Rejected int
}

func (f faultFigures) String() string {
	return fmt.Sprintf("sent=%d executed=%d duplicated=%d lost=%d rejected=%d", f.Sent, f.Executed, f.Duplicated, f.Lost, f.Rejected)
}

// reportFault logs the test's line of figures, with the test's own extra
// figures (name, value pairs) appended, and fails the test unless got is
// want.
func reportFault(t *testing.T, name string, got, want faultFigures, extra ...any) {
	t.Helper()
	line := "FAULT " + name + ": " + got.String()
	for i := 0; i+1 < len(extra); i += 2 {
		line += fmt.Sprintf(" %v=%v", extra[i], extra[i+1])
	}
	t.Log(line)
	if got != want {
		t.Errorf("figures %s, want %s", got, want)
	}
}

// faultKeyProperty is the message property (a PRODUCE header) carrying the
// idempotency key of the command that put the message, so a test can count
// every command's effects on the queue.
const faultKeyProperty = "faultKey"

// faultProduce is a PRODUCE of count 64-byte messages on QM1/queue, each
// tagged with key, under syncpoint in transactions of txSize, paced to rate
// messages a second when rate > 0.
func faultProduce(key, queue string, count, txSize, rate int) string {
	pace := ""
	if rate > 0 {
		pace = fmt.Sprintf(`,"rateLimitPerSec":%d`, rate)
	}
	return fmt.Sprintf(`{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":%q},`+
		`"batch":{"count":%d,"messageSizeBytes":64%s,"transaction":{"enabled":true,"txSize":%d}},"headers":{%q:%q}}`,
		queue, count, pace, txSize, faultKeyProperty, key)
}

// faultRun makes the keys of one run unique across runs sharing a server.
func faultRun() string { return fmt.Sprintf("%d", time.Now().UnixNano()%1e9) }

// connectQM1 connects to QM1 straight through backend, past the daemon (and
// its idempotency store).
func connectQM1(t testing.TB, backend mq.Backend) mq.Conn {
	t.Helper()
	conn, err := backend.Connect(context.Background(), mq.Target{QueueManager: "QM1"})
	if err != nil {
		t.Fatalf("connect to QM1: %v", err)
	}
	return conn
}

// putsByKey browses QM1/queue through backend and counts its messages by
// their faultKey property ("" for messages without one).
func putsByKey(t testing.TB, backend mq.Backend, queue string) map[string]int {
	t.Helper()
	ctx := context.Background()
	conn := connectQM1(t, backend)
	defer conn.Close()
	q, err := conn.OpenQueue(ctx, queue, mq.OpenBrowse)
	if err != nil {
		t.Fatalf("open %s to browse: %v", queue, err)
	}
	defer q.Close()
	out := map[string]int{}
	var msg mq.Message
	for mode := mq.BrowseFirst; ; mode = mq.BrowseNext {
		err := q.Get(ctx, &msg, mq.GetOptions{Browse: mode})
		if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			return out
		}
		if err != nil {
			t.Fatalf("browse %s: %v", queue, err)
		}
		key, _ := msg.Properties[faultKeyProperty].(string)
		out[key]++
	}
}

// queueDepth reads QM1/queue's CURDEPTH through backend.
func queueDepth(t testing.TB, backend mq.Backend, queue string) int {
	t.Helper()
	conn := connectQM1(t, backend)
	defer conn.Close()
	info, err := mq.InquireQueue(context.Background(), conn, queue)
	if err != nil {
		t.Fatalf("inquire %s: %v", queue, err)
	}
	return info.CurrentDepth
}

// eventsByKey groups result events by idempotency key.
func eventsByKey(evs []result.Event) map[string][]result.Data {
	out := map[string][]result.Data{}
	for _, e := range evs {
		out[e.Data.IdempotencyKey] = append(out[e.Data.IdempotencyKey], e.Data)
	}
	return out
}

// tally counts what became of the commands keyed keys, each putting count
// messages tagged with its key: puts are the messages found per key, events
// the result events received per key. It also describes every command that
// was not executed exactly once.
func tally(keys []string, count int, puts map[string]int, events map[string][]result.Data) (faultFigures, []string) {
	f := faultFigures{Sent: len(keys)}
	var problems []string
	for _, key := range keys {
		executions := 0
		for _, d := range events[key] {
			switch {
			case d.Status == result.StatusRejected:
				f.Rejected++
			case d.Status == result.StatusCompleted && !d.Replay:
				executions++
			}
		}
		switch {
		case executions == 1 && puts[key] == count:
			f.Executed++
			continue
		case executions > 1 || puts[key] > count:
			f.Duplicated++
		default:
			f.Lost++
		}
		problems = append(problems, fmt.Sprintf("%s: %d executions, %d of %d messages, events %s", key, executions, puts[key], count, describeEvents(events[key])))
	}
	return f, problems
}

func describeEvents(evs []result.Data) string {
	var parts []string
	for _, d := range evs {
		s := fmt.Sprintf("%s(attempt %d", d.Status, d.Attempt)
		if d.Replay {
			s += ", replay"
		}
		if d.Error != nil {
			s += ", " + d.Error.Code
		}
		parts = append(parts, s+")")
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// reportProblems fails the test with (the first few of) problems.
func reportProblems(t *testing.T, problems []string) {
	t.Helper()
	for i, p := range problems {
		if i == 10 {
			t.Errorf("… and %d more", len(problems)-i)
			break
		}
		t.Error(p)
	}
}

// startPrivate starts a private server with scripts/<name>.sh, stopped when
// the test ends.
func startPrivate(t *testing.T, name string, env ...string) *testenv.Private {
	t.Helper()
	p, err := testenv.StartPrivate(name, env...)
	if err != nil {
		t.Fatalf("private %s: %v", name, err)
	}
	t.Cleanup(p.Stop)
	return p
}

// failureCountingStore counts the store calls that fail, so a test knows its
// outage was felt.
type failureCountingStore struct {
	idempotency.Store
	failures atomic.Int64
}

func (s *failureCountingStore) count(err error) {
	if err != nil {
		s.failures.Add(1)
	}
}

func (s *failureCountingStore) Begin(ctx context.Context, c idempotency.Claim) (idempotency.Record, bool, error) {
	rec, ok, err := s.Store.Begin(ctx, c)
	s.count(err)
	return rec, ok, err
}

func (s *failureCountingStore) Update(ctx context.Context, pk, token string, u idempotency.Update) (idempotency.Record, error) {
	rec, err := s.Store.Update(ctx, pk, token, u)
	if !errors.Is(err, idempotency.ErrLeaseLost) {
		s.count(err)
	}
	return rec, err
}

func (s *failureCountingStore) Get(ctx context.Context, pk string) (idempotency.Record, bool, error) {
	rec, ok, err := s.Store.Get(ctx, pk)
	s.count(err)
	return rec, ok, err
}
