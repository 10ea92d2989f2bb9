package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// putsByKey browses QM1/queue through backend and counts its messages by
// their faultKey property ("" for messages without one).
func putsByKey(t testing.TB, backend mq.Backend, queue string) map[string]int {
	t.Helper()
	ctx := context.Background()
	conn := daemontest.ConnectQM1(t, backend)
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
		key, _ := msg.Properties[daemontest.FaultKeyProperty].(string)
		out[key]++
	}
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
func tally(keys []string, count int, puts map[string]int, events map[string][]result.Data) (daemontest.FaultFigures, []string) {
	f := daemontest.FaultFigures{Sent: len(keys)}
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
