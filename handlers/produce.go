package handlers

import (
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mqprobe/mqprobe/internal/isoduration"
	"github.com/mqprobe/mqprobe/internal/mq"
)

// ProduceResult is PRODUCE's data.result. Enqueued, Transactions,
// Bytes and FirstMsgID cover the whole command, earlier attempts included;
// Elapsed, RatePerSec and LatencyMs cover this attempt's puts.
type ProduceResult struct {
	Enqueued     int     `json:"enqueued"`
	Transactions int     `json:"transactions"`
	Bytes        int64   `json:"bytes"`
	Elapsed      string  `json:"elapsed"` // ISO 8601, e.g. "PT2.3S"
	RatePerSec   float64 `json:"ratePerSec"`
	// LatencyMs are the percentiles of a sample of this attempt's puts,
	// each timed alone: the first 256, then every 16th. Where a unit of
	// work's puts go to the queue in one call (IBM MQ, unpaced) the
	// client library's loop times each sampled MQPUT the same way.
	LatencyMs  LatencyMs `json:"latencyMs"`
	FirstMsgID string    `json:"firstMsgId,omitempty"` // base64
	LastMsgID  string    `json:"lastMsgId,omitempty"`  // base64
	// ResumedFrom is the count a previous attempt had checkpointed when this
	// one took over. Messages after it that the previous attempt put but had
	// not checkpointed were put again: at most one transaction with
	// syncpoint (only if it committed just before the takeover), at most
	// txSize messages without.
	ResumedFrom *int `json:"resumedFrom,omitempty"`
}

// produceProgress is PRODUCE's checkpoint, cumulative over attempts.
type produceProgress struct {
	Committed    int    `json:"committed"`
	Transactions int    `json:"transactions"`
	Bytes        int64  `json:"bytes"`
	FirstMsgID   string `json:"firstMsgId,omitempty"`
	LastMsgID    string `json:"lastMsgId,omitempty"`
}

// producer is one PRODUCE attempt.
type producer struct {
	run    Run
	count  int
	txSize int  // puts per commit, or per checkpoint without syncpoint
	tx     bool // put under syncpoint
	// async puts without waiting for the queue manager's answer; the
	// commit (under syncpoint) or the check before each checkpoint says
	// whether they all succeeded, before any is counted.
	async   bool
	q       mq.Queue
	conn    mq.Conn
	md      *descriptor
	payload *payload
	pace    *pacer
	lat     *latency
	// batches is whether runs of messages go to the queue in one call
	// (see batchMessages); batch is the run being put.
	batches bool
	batch   mq.Batch

	// durable is whether the queue manager keeps the messages when this
	// process ends (see mq.ProcessBound). Only then do per-commit
	// checkpoints protect anything: an in-process queue manager's messages
	// end with the process holding the claim, and a later attempt in this
	// process takes over from the one checkpoint stored when this one fails.
	durable bool

	uow         *unitOfWork     // the open unit of work, nil between commits
	done        produceProgress // committed so far; checkpointed too when durable
	saved       int             // done.Committed as the record last stored it (not durable only)
	pending     int             // puts since the last commit (or checkpoint without syncpoint)
	pendingSize int64
	saver       *checkpointer // stores syncpoint checkpoints beside the puts (durable only)
	put         int           // messages this attempt put
	firstID     mq.ID         // of this attempt's first put
	lastID      mq.ID
}

// produce puts a batch: one open, a reused message and body,
// paced, committed and checkpointed every txSize.
func produce(ctx context.Context, run Run) (any, error) {
	p, err := newProducer(run)
	if err != nil {
		return nil, fmt.Errorf("produce: %w", err)
	}
	var resumedFrom *int
	if ok, err := loadProgress(run, &p.done); err != nil {
		return nil, fmt.Errorf("produce: %w", err)
	} else if ok {
		p.done.Committed = min(max(p.done.Committed, 0), p.count)
		from := p.done.Committed // a copy: done moves on
		resumedFrom = &from
	}
	p.saved = p.done.Committed
	run.Live.Start(int64(p.count), int64(p.done.Committed))
	conn, q, err := openQueue(ctx, run, "produce", mq.OpenOutput)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	p.conn, p.q = conn, q
	p.startBatches()
	p.durable = conn.MessagesOutliveProcess()
	if p.durable && p.tx {
		p.saver = startCheckpointer(ctx, run)
		defer p.saver.stop()
	}
	p.lat = newLatency()
	defer p.lat.release()

	start := time.Now()
	put, err := p.putAll(ctx)
	if err != nil {
		return nil, p.keepProgress(ctx, err)
	}
	return p.result(put, time.Since(start), resumedFrom), nil
}

func newProducer(run Run) (*producer, error) {
	cmd := run.Command
	if cmd.Batch == nil || cmd.Batch.Transaction.TxSize < 1 {
		// The schema requires batch and gives txSize its default.
		return nil, errors.New("batch with transaction.txSize >= 1 is required")
	}
	batch := *cmd.Batch
	rng, err := newRNG()
	if err != nil {
		return nil, err
	}
	pl, err := newPayload(cmd.Payload, batch.MessageSizeBytes, rng)
	if err != nil {
		return nil, err
	}
	md, err := newDescriptor(cmd.MQProps, cmd.Headers, rng)
	if err != nil {
		return nil, err
	}
	tx := batch.Transaction.Enabled
	return &producer{
		run:    run,
		count:  batch.Count,
		txSize: batch.Transaction.TxSize,
		tx:     tx,
		// A persistent message put asynchronously outside syncpoint could
		// be lost with no commit to report it: those wait for the answer.
		async:   run.AsyncPut && (tx || !md.msg.Persistent),
		md:      md,
		payload: pl,
		pace:    newPacer(batch.RateLimitPerSec),
	}, nil
}

// startBatches decides whether p puts in runs: unpaced, on a queue with a
// batch call, and with MsgIds that are not made per message (echoMsgId
// makes each put's here); and sizes the run's buffers.
func (p *producer) startBatches() {
	_, batchCall := p.q.(mq.BatchPutter)
	p.batches = batchCall && !p.pace.paced() && !p.md.echoID
	if p.batches {
		n := min(p.txSize, batchMessages)
		p.batch = mq.Batch{Ends: make([]int32, 0, n), Timed: make([]int32, 0, n), Elapsed: make([]time.Duration, n)}
	}
}

// newRNG returns a fast generator seeded from the OS, good enough for
// payload bytes, UUIDs and MsgIds that must not collide across processes.
func newRNG() (*rand.ChaCha8, error) {
	var seed [32]byte
	if _, err := crand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("seed random: %w", err)
	}
	return rand.NewChaCha8(seed), nil
}

// PRODUCE times a sample of its puts for latencyMs: the first
// latencyTimedFirst of an attempt, then every latencySampleEvery-th. Two
// clock reads per timed put cost about as much as a put on the in-process
// queue manager, so timing every put would halve its rate.
const (
	latencyTimedFirst  = 256
	latencySampleEvery = 16
)

// sampled reports whether an attempt's put number i (from 0) is timed.
func sampled(i int) bool { return i < latencyTimedFirst || i%latencySampleEvery == 0 }

// Unpaced PRODUCE on a queue with a batch call (mq.BatchPutter: IBM MQ's,
// one crossing from Go to the client library) puts a unit of work's
// messages in runs of at most batchMessages, stopping a run once its
// bodies reach batchBytes; it builds a run's bodies back to back before
// putting them. Elsewhere, and when paced, it puts one message at a time.
const (
	batchMessages = 256
	batchBytes    = 512 << 10
)

// putAll puts the messages not yet checkpointed and returns how many this
// attempt put. On failure the open unit of work is backed out.
func (p *producer) putAll(ctx context.Context) (int, error) {
	opts := mq.PutOptions{Syncpoint: p.tx, Async: p.async}
	for seq := p.done.Committed + 1; seq <= p.count; {
		if p.uow == nil {
			p.uow = beginUnit(ctx, p.run, "put")
			p.md.setTraceParent(p.uow.traceParent())
		}
		if err := p.pace.wait(ctx); err != nil {
			return p.put, p.abort(ctx, fmt.Errorf("produce: stopped before message %d of %d: %w", seq, p.count, err))
		}
		var n int
		var err error
		if p.batches {
			n, err = p.putBatch(ctx, seq, opts)
		} else {
			n, err = p.putOne(ctx, seq, opts)
		}
		seq += n
		if err != nil {
			err = syncpointLimitHint(err, "batch.transaction.txSize", p.txSize)
			return p.put, p.abort(ctx, fmt.Errorf("produce: put message %d of %d: %w", seq, p.count, withCause(ctx, err)))
		}
		if p.pending == p.txSize || seq > p.count {
			err := p.settle(ctx)
			p.uow.end(err)
			p.uow = nil
			if err != nil {
				return p.put, err
			}
		}
	}
	return p.put, p.awaitCheckpoint()
}

// putOne puts message seq alone, timing it if it is in the latency
// sample, and returns how many it put.
func (p *producer) putOne(ctx context.Context, seq int, opts mq.PutOptions) (int, error) {
	body := p.payload.next(int64(seq))
	msg := p.md.next(body, p.payload.format)
	timed := sampled(p.put)
	var began time.Duration
	if timed {
		began = p.lat.now()
	}
	res, err := p.q.Put(ctx, msg, opts)
	if timed {
		p.lat.record(p.lat.now() - began)
	}
	if err != nil {
		return 0, err
	}
	p.advance(seq, 1, &res.MsgID, &res.MsgID, int64(len(body)))
	return 1, nil
}

// putBatch puts the messages from seq that the unit of work has left,
// within the batch limits, in one call, and returns how many it put. The
// puts in the latency sample are timed by the queue, each alone.
func (p *producer) putBatch(ctx context.Context, seq int, opts mq.PutOptions) (int, error) {
	b := &p.batch
	n := min(p.txSize-p.pending, p.count-seq+1, batchMessages)
	b.Bodies, b.Ends = p.payload.nextRun(int64(seq), n, batchBytes, b.Ends[:0])
	b.Timed = b.Timed[:0]
	for i := range b.Ends {
		if sampled(p.put + i) {
			b.Timed = append(b.Timed, int32(i))
		}
	}
	b.Message = p.md.next(nil, p.payload.format)
	res, err := mq.PutBatch(ctx, p.q, b, opts)
	for j, i := range b.Timed {
		if int(i) < res.Put {
			p.lat.record(b.Elapsed[j])
		}
	}
	if res.Put > 0 {
		p.advance(seq, res.Put, &res.First.MsgID, &res.Last.MsgID, int64(b.Ends[res.Put-1]))
	}
	return res.Put, err
}

// advance counts the n messages from seq just put, of size bytes in all;
// first and last are the MsgIds of the first and the last of them.
func (p *producer) advance(seq, n int, first, last *mq.ID, size int64) {
	if p.put == 0 {
		p.firstID = *first
	}
	p.lastID = *last
	p.put += n
	p.run.Live.SetDone(int64(seq + n - 1))
	p.uow.n += n
	p.pending += n
	p.pendingSize += size
}

// settle commits the pending puts (with syncpoint) and, when the messages
// are durable, checkpoints them. The checkpoint follows the commit: a crash
// between the two repeats one transaction on takeover, while the other
// order could lose one. Under syncpoint the checkpoint runs while the next
// transaction's puts go on — they stay uncommitted until it has landed, as
// the next commit waits for it — so the store's round trip costs the put
// rate nothing and a takeover still repeats at most one transaction.
func (p *producer) settle(ctx context.Context) error {
	if p.async && !p.tx {
		// No commit reports these puts: ask before counting them.
		if err := mq.CheckAsyncPuts(ctx, p.conn); err != nil {
			return fmt.Errorf("produce: messages %d to %d, put asynchronously: %w", p.done.Committed+1, p.done.Committed+p.pending, withCause(ctx, err))
		}
	}
	if p.tx {
		if err := p.awaitCheckpoint(); err != nil {
			return backout(ctx, p.conn, err)
		}
		if err := p.conn.Commit(ctx); err != nil {
			return fmt.Errorf("produce: commit after %d messages: %w", p.done.Committed+p.pending, withCause(ctx, err))
		}
		p.done.Transactions++
	}
	p.done.Committed += p.pending
	p.done.Bytes += p.pendingSize
	p.pending, p.pendingSize = 0, 0
	if p.done.FirstMsgID == "" {
		p.done.FirstMsgID = encodeID(p.firstID)
	}
	p.done.LastMsgID = encodeID(p.lastID)
	switch {
	case !p.durable:
		p.run.Live.SetCommitted(int64(p.done.Committed))
		return nil
	case p.tx:
		p.saver.store(p.done)
		return nil
	}
	if err := saveProgress(ctx, p.run, p.done); err != nil {
		return fmt.Errorf("produce: after %d messages: %w", p.done.Committed, err)
	}
	p.run.Live.SetCommitted(int64(p.done.Committed))
	return nil
}

// awaitCheckpoint waits for the checkpoint in flight, if any.
func (p *producer) awaitCheckpoint() error {
	if p.saver == nil {
		return nil
	}
	return p.saver.await()
}

// checkpointer stores one PRODUCE's syncpoint checkpoints on a goroutine
// of its own, which lives as long as the command, so that each checkpoint
// overlaps the next transaction's puts. Its user awaits each checkpoint
// before handing over the next: at most one is in flight. Checkpoints are
// not cancelled with the command's context: a drain backs the open
// transaction out but keeps the checkpoint of the committed ones.
type checkpointer struct {
	run      Run
	requests chan produceProgress
	results  chan error
	inFlight bool
}

// startCheckpointer starts run's checkpoint goroutine; stop ends it.
func startCheckpointer(ctx context.Context, run Run) *checkpointer {
	c := &checkpointer{run: run, requests: make(chan produceProgress, 1), results: make(chan error, 1)}
	go c.loop(context.WithoutCancel(ctx))
	return c
}

func (c *checkpointer) loop(ctx context.Context) {
	for done := range c.requests {
		err := saveProgress(ctx, c.run, done)
		if err != nil {
			err = fmt.Errorf("produce: after %d messages: %w", done.Committed, err)
		} else {
			c.run.Live.SetCommitted(int64(done.Committed))
		}
		c.results <- err
	}
}

// store starts storing done; the previous checkpoint must have been
// awaited.
func (c *checkpointer) store(done produceProgress) {
	c.requests <- done
	c.inFlight = true
}

// await waits for the checkpoint in flight, if any.
func (c *checkpointer) await() error {
	if !c.inFlight {
		return nil
	}
	c.inFlight = false
	return <-c.results
}

// stop ends the goroutine once it has stored what it was given.
func (c *checkpointer) stop() { close(c.requests) }

// keepProgress stores, for an attempt that failed with err, what it
// committed and no checkpoint holds yet: a non-durable queue manager's
// attempt checkpoints only here, so a retry in this process resumes
// rather than putting the committed messages again. Like the checkpoints
// of a drain, it is not cancelled with ctx.
func (p *producer) keepProgress(ctx context.Context, err error) error {
	if p.durable || p.done.Committed == p.saved {
		return err
	}
	if cerr := saveProgress(context.WithoutCancel(ctx), p.run, p.done); cerr != nil {
		return errors.Join(err, fmt.Errorf("produce: after %d messages: %w", p.done.Committed, cerr))
	}
	p.saved = p.done.Committed
	return err
}

// abort backs out the puts since the last commit and returns err.
func (p *producer) abort(ctx context.Context, err error) error {
	if p.uow != nil {
		p.uow.end(err)
		p.uow = nil
	}
	if p.tx && p.pending > 0 {
		err = backout(ctx, p.conn, err)
	}
	if cerr := p.awaitCheckpoint(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	return err
}

func (p *producer) result(put int, elapsed time.Duration, resumedFrom *int) ProduceResult {
	r := ProduceResult{
		Enqueued:     p.done.Committed,
		Transactions: p.done.Transactions,
		Bytes:        p.done.Bytes,
		Elapsed:      isoduration.Format(elapsed),
		LatencyMs:    p.lat.summary(),
		FirstMsgID:   p.done.FirstMsgID,
		LastMsgID:    p.done.LastMsgID,
		ResumedFrom:  resumedFrom,
	}
	if s := elapsed.Seconds(); s > 0 {
		r.RatePerSec = round1(float64(put) / s)
	}
	return r
}

func encodeID(id mq.ID) string { return base64.StdEncoding.EncodeToString(id[:]) }
