package handlers

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/inflight"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

func produceCmd(count, size int, tx bool, txSize int) command.Command {
	return command.Command{
		OperationType: command.Produce,
		Batch: &command.Batch{Count: count, MessageSizeBytes: size,
			Transaction: command.Transaction{Enabled: tx, TxSize: txSize}},
		Payload: &command.Payload{Mode: command.PayloadRandom},
		MQProps: &command.MQProps{Persistence: "nonpersistent", CorrelIDMode: command.CorrelNone},
	}
}

func runProduce(t *testing.T, f *fixture, run Run) ProduceResult {
	t.Helper()
	res, err := produce(f.ctx, run)
	if err != nil {
		t.Fatalf("produce: %v", err)
	}
	return res.(ProduceResult)
}

func decodeProduceProgress(t *testing.T, s string) produceProgress {
	t.Helper()
	var p produceProgress
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		t.Fatalf("progress %q: %v", s, err)
	}
	return p
}

func TestProduceCommitsEveryTxSize(t *testing.T) {
	f := newDurableFixture(t)
	r := runProduce(t, f, f.run(produceCmd(250, 512, true, 100)))

	if r.Enqueued != 250 || r.Transactions != 3 || r.Bytes != 250*512 || r.ResumedFrom != nil {
		t.Fatalf("result %+v", r)
	}
	if !strings.HasPrefix(r.Elapsed, "PT") || r.RatePerSec <= 0 || r.LatencyMs.Max <= 0 || r.LatencyMs.P50 > r.LatencyMs.P99 {
		t.Fatalf("timings %+v", r)
	}
	var committed []int
	for _, p := range f.progress() {
		committed = append(committed, decodeProduceProgress(t, p).Committed)
	}
	if want := []int{100, 200, 250}; !slices.Equal(committed, want) {
		t.Fatalf("checkpoints at %v, want %v", committed, want)
	}
	got := f.drain()
	if len(got) != 250 {
		t.Fatalf("queue held %d messages", len(got))
	}
	for _, m := range got {
		if len(m.Payload) != 512 || m.Format != mq.FormatNone || m.Persistent {
			t.Fatalf("message %+v", m)
		}
	}
	if r.FirstMsgID != encodeID(got[0].MsgID) || r.LastMsgID != encodeID(got[249].MsgID) {
		t.Fatalf("first/last msgId %s %s", r.FirstMsgID, r.LastMsgID)
	}
	keys := jsonKeys(t, r)
	for _, k := range []string{"enqueued", "transactions", "bytes", "elapsed", "ratePerSec", "latencyMs", "firstMsgId", "lastMsgId"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("result JSON lacks %q: %v", k, keys)
		}
	}
	if _, ok := keys["resumedFrom"]; ok {
		t.Error("resumedFrom on a first attempt")
	}
}

func TestProduceWithoutTransactionCheckpointsEveryTxSize(t *testing.T) {
	f := newDurableFixture(t)
	r := runProduce(t, f, f.run(produceCmd(25, 10, false, 10)))
	if r.Enqueued != 25 || r.Transactions != 0 || r.Bytes != 250 {
		t.Fatalf("result %+v", r)
	}
	if n := len(f.progress()); n != 3 {
		t.Fatalf("%d checkpoints, want 3", n)
	}
	f.wantDepth(25)
}

// TestProduceOnProcessBoundQueueManagerDoesNotCheckpoint: the embedded
// queue manager's messages end with this process, so a PRODUCE on it
// stores no checkpoint per commit, with or without syncpoint, while its
// live counters still follow every commit.
func TestProduceOnProcessBoundQueueManagerDoesNotCheckpoint(t *testing.T) {
	for _, tx := range []bool{true, false} {
		f := newFixture(t)
		run := f.run(produceCmd(250, 16, tx, 100))
		run.Live = new(inflight.Counters)
		r := runProduce(t, f, run)
		if r.Enqueued != 250 {
			t.Fatalf("tx %v: result %+v", tx, r)
		}
		if calls := f.checkpointCalls(); len(calls) != 0 {
			t.Fatalf("tx %v: %d checkpoints stored, want none: %v", tx, len(calls), calls)
		}
		if total, done, committed := run.Live.Values(); total != 250 || done != 250 || committed != 250 {
			t.Fatalf("tx %v: live counters total %d done %d committed %d, want 250 each", tx, total, done, committed)
		}
		f.wantDepth(250)
	}
}

// TestProduceOnProcessBoundQueueManagerCheckpointsOnceWhenItFails: the one
// checkpoint such a PRODUCE stores is at its failure, so that a retry in
// this process resumes after the committed messages.
func TestProduceOnProcessBoundQueueManagerCheckpointsOnceWhenItFails(t *testing.T) {
	f := newFixture(t)
	cmd := produceCmd(300, 8, true, 100)
	f.backend.Faults().FailNth(mq.VerbPut, 250, mq.ReasonConnectionBroken)
	if _, err := produce(f.ctx, f.run(cmd)); !mq.IsReason(err, mq.ReasonConnectionBroken) {
		t.Fatalf("first attempt: %v", err)
	}
	calls := f.checkpointCalls()
	if len(calls) != 1 {
		t.Fatalf("%d checkpoints stored, want the one at the failure: %v", len(calls), calls)
	}
	if p := decodeProduceProgress(t, calls[0]); p.Committed != 200 || p.Transactions != 2 || p.FirstMsgID == "" {
		t.Fatalf("checkpoint at the failure %+v, want the 200 committed", p)
	}
}

// TestProduceOnDurableQueueManagerCheckpointsEveryCommit: where messages
// outlive this process (IBM MQ) every commit is checkpointed, so that a
// takeover repeats at most one transaction. Each checkpoint overlaps the
// next transaction's puts but not its commit, and all are stored by one
// goroutine that lives as long as the command.
func TestProduceOnDurableQueueManagerCheckpointsEveryCommit(t *testing.T) {
	const count, txSize = 600, 100
	f := newDurableFixture(t)
	browser := f.conn()
	var goroutines []string
	var progress []string
	run := f.run(produceCmd(count, 16, true, txSize))
	run.Checkpoint = func(_ context.Context, p string) error {
		goroutines = append(goroutines, goroutineID())
		progress = append(progress, p)
		committed := decodeProduceProgress(t, p).Committed
		if committed == count {
			return nil
		}
		// The next transaction is put while this checkpoint is stored...
		if !testenv.Until(5*time.Second, func() bool { return f.depth() >= committed+txSize }) {
			t.Errorf("checkpoint at %d: the next transaction's puts did not go on (depth %d)", committed, f.depth())
			return nil
		}
		// ...and waits for it to be committed.
		time.Sleep(5 * time.Millisecond)
		if n := browseCount(t, f, browser); n != committed {
			t.Errorf("checkpoint at %d: %d messages committed before it was stored", committed, n)
		}
		return nil
	}
	if r := runProduce(t, f, run); r.Enqueued != count || r.Transactions != count/txSize {
		t.Fatalf("result %+v", r)
	}
	if len(progress) != count/txSize {
		t.Fatalf("%d checkpoints, want one per commit (%d)", len(progress), count/txSize)
	}
	for i, p := range progress {
		if c := decodeProduceProgress(t, p).Committed; c != (i+1)*txSize {
			t.Fatalf("checkpoint %d at %d, want %d", i+1, c, (i+1)*txSize)
		}
	}
	if len(slices.Compact(slices.Clone(goroutines))) != 1 {
		t.Fatalf("checkpoints stored by goroutines %v, want one for the command", goroutines)
	}
}

// goroutineID is the calling goroutine's number, from its stack header.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// browseCount counts the committed messages on the test queue through
// conn, leaving them there.
func browseCount(t *testing.T, f *fixture, conn mq.Conn) int {
	t.Helper()
	q, err := conn.OpenQueue(f.ctx, testQueue, mq.OpenBrowse)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var msg mq.Message
	for n, browse := 0, mq.BrowseFirst; ; n, browse = n+1, mq.BrowseNext {
		err := q.Get(f.ctx, &msg, mq.GetOptions{Browse: browse})
		if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestProduceRandomPayloadsDiffer(t *testing.T) {
	f := newFixture(t)
	runProduce(t, f, f.run(produceCmd(20, 64, false, 100)))
	seen := map[string]bool{}
	for _, m := range f.drain() {
		seen[string(m.Payload)] = true
	}
	if len(seen) != 20 {
		t.Fatalf("%d distinct payloads of 20", len(seen))
	}
}

func TestProduceMessageDescriptor(t *testing.T) {
	fixedCorrel := bytes.Repeat([]byte{0xAB}, 24)
	cases := []struct {
		name  string
		props command.MQProps
		check func(t *testing.T, got []mq.Message)
	}{
		{"persistent priority expiry", command.MQProps{Persistence: "persistent", Priority: 7, ExpiryMs: 60_000, CorrelIDMode: command.CorrelNone},
			func(t *testing.T, got []mq.Message) {
				for _, m := range got {
					if !m.Persistent || m.Priority != 7 || m.Expiry <= 50*time.Second || m.Expiry > time.Minute || !m.CorrelID.IsZero() {
						t.Fatalf("message %+v", m)
					}
				}
			}},
		{"echoMsgId", command.MQProps{Persistence: "nonpersistent", CorrelIDMode: command.CorrelEchoMsgID},
			func(t *testing.T, got []mq.Message) {
				if got[0].MsgID == got[1].MsgID {
					t.Fatal("MsgIds repeat")
				}
				for _, m := range got {
					if m.MsgID.IsZero() || m.CorrelID != m.MsgID || m.Persistent || m.Expiry != 0 {
						t.Fatalf("message %+v", m)
					}
				}
			}},
		{"fixed correlId", command.MQProps{Persistence: "nonpersistent", CorrelIDMode: command.CorrelFixed,
			FixedCorrelIDBase64: base64.StdEncoding.EncodeToString(fixedCorrel)},
			func(t *testing.T, got []mq.Message) {
				for _, m := range got {
					if !bytes.Equal(m.CorrelID[:], fixedCorrel) || m.CorrelID == m.MsgID {
						t.Fatalf("message %+v", m)
					}
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			cmd := produceCmd(3, 16, true, 2)
			cmd.MQProps = &tc.props
			cmd.Headers = map[string]string{"probe": "yes", "team": "mq"}
			runProduce(t, f, f.run(cmd))
			got := f.drain()
			if len(got) != 3 {
				t.Fatalf("got %d messages", len(got))
			}
			for _, m := range got {
				if m.Properties["probe"] != "yes" || m.Properties["team"] != "mq" {
					t.Fatalf("properties %v", m.Properties)
				}
			}
			tc.check(t, got)
		})
	}
}

func TestProduceFixedPayload(t *testing.T) {
	cases := []struct {
		name   string
		fixed  []byte
		size   int
		want   []byte
		format string
	}{
		{"as is when size is 0", []byte("hello"), 0, []byte("hello"), mq.FormatString},
		{"as is when size matches", []byte("hello"), 5, []byte("hello"), mq.FormatString},
		{"repeated", []byte("abc"), 8, []byte("abcabcab"), mq.FormatString},
		{"truncated", []byte("abcdef"), 4, []byte("abcd"), mq.FormatString},
		{"binary", []byte{0xff, 0x00, 0xfe}, 0, []byte{0xff, 0x00, 0xfe}, mq.FormatNone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			cmd := produceCmd(2, tc.size, false, 100)
			cmd.Payload = &command.Payload{Mode: command.PayloadFixed, FixedBase64: base64.StdEncoding.EncodeToString(tc.fixed)}
			runProduce(t, f, f.run(cmd))
			for _, m := range f.drain() {
				if !bytes.Equal(m.Payload, tc.want) || m.Format != tc.format {
					t.Fatalf("payload %q format %q, want %q %q", m.Payload, m.Format, tc.want, tc.format)
				}
			}
		})
	}
}

func TestProduceTemplate(t *testing.T) {
	f := newFixture(t)
	cmd := produceCmd(5, 999, false, 100)
	cmd.Payload = &command.Payload{Mode: command.PayloadTemplate,
		Template: `{"n":{{seq}},"id":"{{ uuid }}","at":"{{timestamp}}","x":"{{other}}"}`}
	before := time.Now()
	runProduce(t, f, f.run(cmd))
	after := time.Now()

	uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	uuids := map[string]bool{}
	for i, m := range f.drain() {
		var body struct {
			N  int    `json:"n"`
			ID string `json:"id"`
			At string `json:"at"`
			X  string `json:"x"`
		}
		if err := json.Unmarshal(m.Payload, &body); err != nil {
			t.Fatalf("body %q: %v", m.Payload, err)
		}
		at, err := time.Parse(time.RFC3339Nano, body.At)
		if body.N != i+1 || !uuidRE.MatchString(body.ID) || err != nil || at.Before(before.Add(-time.Second)) || at.After(after) || body.X != "{{other}}" {
			t.Fatalf("body %q (%v)", m.Payload, err)
		}
		if m.Format != mq.FormatString {
			t.Fatalf("format %q", m.Format)
		}
		uuids[body.ID] = true
	}
	if len(uuids) != 5 {
		t.Fatalf("uuids repeat: %v", uuids)
	}
}

// TestProducePacing checks lower bounds only (a slow machine is late, never
// early): put i never happens before put 0 + i/rate minus one interval, and
// no window of puts is denser than the rate allows plus the one-interval
// lateness the schedule tolerates. The puts run on the fake clock of a
// synctest bubble.
func TestProducePacing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const count, rate = 200, 1000
		const interval = time.Second / rate
		f := newFixture(t)
		cmd := produceCmd(count, 8, true, 50)
		cmd.Batch.RateLimitPerSec = ptr(rate)
		start := time.Now()
		r := runProduce(t, f, f.run(cmd))
		if elapsed := time.Since(start); elapsed < (count-1)*interval {
			t.Fatalf("200 puts at 1000/s took %s", elapsed)
		}
		if r.RatePerSec > rate*1.05 {
			t.Fatalf("rate %.1f/s above the limit %d/s", r.RatePerSec, rate)
		}
		got := f.drain()
		t0 := got[0].PutTime
		for i := 1; i < len(got); i++ {
			if early := time.Duration(i)*interval - got[i].PutTime.Sub(t0); early > interval {
				t.Fatalf("put %d came %s ahead of schedule", i, early)
			}
			for j := i + 1; j < len(got); j++ {
				allowed := time.Duration(j-i-2) * interval // one interval of lateness, one of clock granularity
				if gap := got[j].PutTime.Sub(got[i].PutTime); gap < allowed {
					t.Fatalf("puts %d..%d within %s: a burst", i, j, gap)
				}
			}
		}
	})
}

func TestPacerDoesNotBurstAfterStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPacer(ptr(1000))
		ctx := context.Background()
		if err := p.wait(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // a stalled put: 20 intervals late
		start := time.Now()
		for range 5 {
			if err := p.wait(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d < 4*time.Millisecond {
			t.Fatalf("5 events after a stall took %s: caught up in a burst", d)
		}
	})
}

func TestProduceFailureBacksOutOpenTransaction(t *testing.T) {
	f := newFixture(t)
	f.backend.Faults().FailNth(mq.VerbPut, 150, mq.ReasonQFull)
	_, err := produce(f.ctx, f.run(produceCmd(300, 32, true, 100)))
	mqtest.WantReason(t, err, mq.ReasonQFull)
	f.wantDepth(100)
	if p := decodeProduceProgress(t, f.lastProgress()); p.Committed != 100 || p.Transactions != 1 {
		t.Fatalf("progress %+v", p)
	}
}

func TestProduceResumesFromCheckpoint(t *testing.T) {
	f := newFixture(t)
	cmd := produceCmd(300, 0, true, 100)
	cmd.Payload = &command.Payload{Mode: command.PayloadTemplate, Template: "{{seq}}"}
	f.backend.Faults().FailNth(mq.VerbPut, 250, mq.ReasonConnectionBroken)
	if _, err := produce(f.ctx, f.run(cmd)); !mq.IsReason(err, mq.ReasonConnectionBroken) {
		t.Fatalf("first attempt: %v", err)
	}
	f.wantDepth(200)
	first := decodeProduceProgress(t, f.lastProgress())

	run := f.run(cmd)
	run.Progress = f.lastProgress()
	r := runProduce(t, f, run)
	if r.Enqueued != 300 || r.Transactions != 3 || r.ResumedFrom == nil || *r.ResumedFrom != 200 || r.FirstMsgID != first.FirstMsgID {
		t.Fatalf("resumed result %+v", r)
	}
	if keys := jsonKeys(t, r); string(keys["resumedFrom"]) != "200" {
		t.Fatalf("resumedFrom JSON %s", keys["resumedFrom"])
	}
	got := f.drain()
	if len(got) != 300 {
		t.Fatalf("queue held %d messages", len(got))
	}
	for i, m := range got {
		if string(m.Payload) != strconv.Itoa(i+1) {
			t.Fatalf("message %d is %q: repeated or skipped", i+1, m.Payload)
		}
	}
}

func TestProduceStopsWhenCheckpointLosesLease(t *testing.T) {
	f := newDurableFixture(t)
	f.failCheckpoint = failOnCall(2, idempotency.ErrLeaseLost)
	_, err := produce(f.ctx, f.run(produceCmd(500, 32, true, 100)))
	if !errors.Is(err, idempotency.ErrLeaseLost) {
		t.Fatalf("got %v, want lease lost", err)
	}
	f.wantDepth(200) // two committed transactions; nothing put after the failed checkpoint
}

func TestProduceLeaseLossMidTransactionBacksOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		const txSize = 50
		cmd := produceCmd(1000, 32, true, txSize)
		cmd.Batch.RateLimitPerSec = ptr(500)
		ctx, cancel := context.WithCancelCause(f.ctx)
		defer cancel(nil)
		watcher := f.conn()
		lost := make(chan time.Time, 1)
		go func() { // lose the lease once the second transaction is under way
			testenv.UntilEvery(time.Hour, time.Millisecond, func() bool {
				if ctx.Err() != nil {
					return true
				}
				info, err := mq.InquireQueue(ctx, watcher, testQueue)
				return err != nil || info.CurrentDepth >= txSize+txSize/2
			})
			lost <- time.Now()
			cancel(idempotency.ErrLeaseLost)
		}()
		_, err := produce(ctx, f.run(cmd))
		if !errors.Is(err, idempotency.ErrLeaseLost) || !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want lease lost", err)
		}
		if d := time.Since(<-lost); d > 5*time.Second { // generous: only a hang fails
			t.Fatalf("kept producing for %s after the lease was lost", d)
		}
		committed := decodeProduceProgress(t, f.lastProgress()).Committed
		if d := f.depth(); d != committed || d%txSize != 0 || d >= 1000 {
			t.Fatalf("depth %d after lease loss, last checkpoint %d", d, committed)
		}
	})
}

func TestProduceUnknownQueue(t *testing.T) {
	f := newFixture(t)
	run := f.run(produceCmd(1, 1, false, 1))
	run.Queue = "NO.SUCH.QUEUE"
	_, err := produce(f.ctx, run)
	mqtest.WantReason(t, err, mq.ReasonUnknownObjectName)
}

// TestProduceAllocatesNothingPerMessage: memory stays constant in count
// (one message and body reused; checkpoints allocate per transaction). The
// queue manager allocates to store each message, so the handler is
// compared with bare puts of as many messages, each starting with the
// queue manager's message pool emptied (two GCs clear a sync.Pool).
func TestProduceAllocatesNothingPerMessage(t *testing.T) {
	f := newFixture(t)
	allocs := func(fn func()) float64 {
		runtime.GC()
		runtime.GC()
		return testing.AllocsPerRun(1, fn)
	}
	overhead := func(count int) float64 {
		run := f.run(produceCmd(count, 256, true, 1000))
		run.Checkpoint = func(context.Context, string) error { return nil }
		handler := allocs(func() {
			if _, err := produce(f.ctx, run); err != nil {
				t.Fatal(err)
			}
		})
		f.drain()
		conn := f.conn()
		q, err := conn.OpenQueue(f.ctx, testQueue, mq.OpenOutput)
		if err != nil {
			t.Fatal(err)
		}
		msg := &mq.Message{Payload: make([]byte, 256)}
		bare := allocs(func() {
			for range count {
				if _, err := q.Put(f.ctx, msg, mq.PutOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		})
		f.drain()
		return handler - bare
	}
	small, large := overhead(100), overhead(2000)
	t.Logf("handler allocations beyond bare puts: %.0f for 100 messages, %.0f for 2000", small, large)
	if large-small > 100 { // one allocation per message would be 1900
		t.Fatalf("handler allocations beyond bare puts: %.0f for 100 messages, %.0f for 2000", small, large)
	}
}

// TestProduceOverMaxUncommittedIsPermanentAndSaysWhy: a txSize the queue
// manager's MaxUncommittedMsgs (100 here) cannot hold fails with 2024 on
// every attempt alike: permanent, naming the field.
func TestProduceOverMaxUncommittedIsPermanentAndSaysWhy(t *testing.T) {
	b, err := embedded.New(embedded.Config{QueueManagers: []embedded.QueueManagerConfig{
		{Name: embedded.DefaultQueueManager, MaxUncommittedMsgs: 100}}})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, b)
	_, err = produce(f.ctx, f.run(produceCmd(150, 1, true, 150)))
	e := mqtest.WantReason(t, err, mq.ReasonSyncpointLimitReached)
	if e.Transient() || !strings.Contains(err.Error(), "batch.transaction.txSize 150 is more than the queue manager's MaxUncommittedMsgs") {
		t.Errorf("2024: %v (transient %v), want permanent and naming batch.transaction.txSize", err, e.Transient())
	}
	if d := f.depth(); d != 0 {
		t.Errorf("depth %d after the failed unit of work, want 0 (backed out)", d)
	}
}
