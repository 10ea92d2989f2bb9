package probe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// ErrStopped, as the cancellation cause of Run's context
// (context.WithCancelCause), stops a run early and cleanly: putters stop at
// once, getters drain what is in flight, and Run returns the final Stats
// with Stopped set and no error.
var ErrStopped = errors.New("probe: stopped")

// Connector lends connections; *mq.Pool is one.
type Connector interface {
	Acquire(ctx context.Context, t mq.Target) (*mq.PooledConn, error)
}

// run is one probe run's shared state.
type run struct {
	cfg     Config
	id      mq.ID
	start   time.Time // the clock every sentAt and receipt is measured on
	sched   *schedule
	tracker *tracker
	credits chan struct{} // unpaced runs' in-flight cap; nil when paced
	settled chan struct{} // a receipt after the last put left nothing in flight
	// putsEnded is set once every putter has returned: until then a receipt
	// that leaves nothing in flight cannot end the run, and signalling it
	// would wake execute per message whenever the getter keeps up.
	putsEnded atomic.Bool
	// Request/reply runs: the queue and queue manager requests name in
	// ReplyToQ/ReplyToQMgr, and whether that queue is the run's own (a
	// temporary dynamic queue it created), so getters take any message
	// from it rather than browse for the run's.
	replyQueue, replyQMgr string
	privateReplies        bool
}

// Run probes cfg.Target: it puts probe messages to cfg.Queue, gets them
// back from cfg.ReplyQueue (or cfg.Queue) and returns the statistics.
// progress, if not nil, is called from Run's goroutine every
// cfg.ProgressEvery with the statistics so far and the round trips since
// the previous call; it should return quickly.
//
// The run ends when the putters have put everything (Count or Duration)
// and every message is back or lost (LossTimeout after its put). When ctx
// is cancelled with cause ErrStopped, it ends the same way with Stopped
// set. Any other end of ctx returns its error with the stats so far, as
// does a failing MQ call (an *mq.Error in the chain).
func Run(ctx context.Context, conns Connector, cfg Config, progress func(Progress)) (Stats, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return Stats{}, err
	}
	r := &run{cfg: cfg, id: cfg.RunID, settled: make(chan struct{}, 1)}
	if r.id.IsZero() {
		r.id = newRunID()
	}
	if cfg.Rate == 0 {
		r.credits = make(chan struct{}, unpacedInFlight)
	}
	r.tracker = newTracker(cfg, r.credits)
	w, err := r.open(ctx, conns)
	defer w.close()
	if err != nil {
		if errors.Is(context.Cause(ctx), ErrStopped) {
			return Stats{Stopped: true}, nil // stopped before the first put: nothing sent
		}
		return Stats{}, err
	}
	r.start = time.Now()
	r.sched = newSchedule(cfg, r.start)
	return r.execute(ctx, w, progress)
}

// workers are a run's putters and getters, each on its own connection,
// opened before the first put so a bad queue or target fails the run
// before anything is sent.
type workers struct {
	conns   []*mq.PooledConn
	putters []*putter
	getters []*getter
}

func (r *run) open(ctx context.Context, conns Connector) (*workers, error) {
	w := &workers{}
	// Getters first: in a request/reply run the requests name the reply
	// queue, and opening a model queue makes the queue they name.
	if err := r.openGetters(ctx, w, conns); err != nil {
		return w, err
	}
	for i := range r.cfg.Putters {
		q, err := w.openQueue(ctx, conns, r.cfg.Target, r.cfg.Queue, mq.OpenOutput)
		if err != nil {
			return w, fmt.Errorf("probe: putter %d: %w", i, err)
		}
		w.putters = append(w.putters, newPutter(r, i, q))
	}
	return w, nil
}

func (r *run) openGetters(ctx context.Context, w *workers, conns Connector) error {
	if r.cfg.Mode == ModeRequestReply {
		return r.openReplies(ctx, w, conns)
	}
	for i := range r.cfg.Getters {
		q, err := w.openQueue(ctx, conns, r.cfg.Target, r.cfg.replyQueue(), mq.OpenInputShared)
		if err != nil {
			return fmt.Errorf("probe: getter %d: %w", i, err)
		}
		w.getters = append(w.getters, &getter{r: r, index: i, q: q})
	}
	return nil
}

// openReplies opens the getters of a request/reply run on its reply
// queue, learning the queue's name (a model queue makes a dynamic one,
// which the other getters open by that name) and the queue manager's.
func (r *run) openReplies(ctx context.Context, w *workers, conns Connector) error {
	name := r.cfg.ReplyQueue
	for i := range r.cfg.Getters {
		q, err := w.openQueue(ctx, conns, r.cfg.Target, name, mq.OpenInputShared|mq.OpenBrowse)
		if err != nil {
			return fmt.Errorf("probe: getter %d: reply queue: %w", i, err)
		}
		if i == 0 {
			info, err := w.conns[len(w.conns)-1].InquireQueueManager(ctx)
			if err != nil {
				return fmt.Errorf("probe: reply queue manager: %w", err)
			}
			name = q.Name()
			r.replyQueue, r.replyQMgr, r.privateReplies = name, info.Name, name != r.cfg.ReplyQueue
		}
		w.getters = append(w.getters, &getter{r: r, index: i, q: q})
	}
	return nil
}

func (w *workers) openQueue(ctx context.Context, conns Connector, t mq.Target, name string, opts mq.OpenOption) (mq.Queue, error) {
	pc, err := conns.Acquire(ctx, t)
	if err != nil {
		return nil, err
	}
	w.conns = append(w.conns, pc)
	q, err := pc.OpenQueue(ctx, name, opts)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return q, nil
}

// close returns the connections, closing their queues.
func (w *workers) close() {
	for _, pc := range w.conns {
		pc.Close()
	}
}

// received records a message and wakes Run when that settles the run.
func (r *run) received(h header, now time.Duration, hops *hopTimes) {
	if r.tracker.receive(h, now, hops) && r.putsEnded.Load() {
		select {
		case r.settled <- struct{}{}:
		default:
		}
	}
}

// execute runs the workers and watches them: it sweeps for lost messages,
// reports progress, and decides when the run is over.
func (r *run) execute(ctx context.Context, w *workers, progress func(Progress)) (Stats, error) {
	putCtx, cancelPuts := context.WithCancel(ctx)
	defer cancelPuts()
	// Getters outlive a stop: they drain what is in flight.
	getCtx, cancelGets := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelGets()

	errc := make(chan error, len(w.putters)+len(w.getters))
	var puts, gets sync.WaitGroup
	startGets := func() {
		for _, g := range w.getters {
			gets.Go(func() {
				if err := g.loop(getCtx); err != nil {
					errc <- err
				}
			})
		}
	}
	putterGets := r.putterGets(w)
	if putterGets {
		// The getters start once the puts are over, to take what is still
		// in flight: until then a getter parked on the queue would be woken
		// by every put.
		for i, p := range w.putters {
			p.gets = w.getters[i]
		}
	} else {
		startGets()
	}
	for _, p := range w.putters {
		puts.Go(func() {
			if err := p.loop(putCtx); err != nil {
				errc <- err
			}
		})
	}
	putsDone := make(chan struct{})
	putsOver := putsDone // putsDone is set to nil once seen
	go func() {
		puts.Wait()
		if putterGets {
			startGets()
		}
		r.putsEnded.Store(true) // before putsDone: execute then checks settled itself
		close(putsDone)
	}()
	abort := func() {
		cancelPuts()
		cancelGets()
		<-putsOver // the getters have started, if they start late
		gets.Wait()
	}

	sweep := time.NewTicker(sweepInterval(r.cfg.LossTimeout))
	defer sweep.Stop()
	var progressC <-chan time.Time
	if progress != nil && r.cfg.ProgressEvery > 0 {
		t := time.NewTicker(r.cfg.ProgressEvery)
		defer t.Stop()
		progressC = t.C
	}

	done := ctx.Done()
	stopped, putting := false, true
	for {
		select {
		case err := <-errc:
			abort()
			return r.final(stopped), err
		case <-done: // handled below
		case <-putsDone:
			putting, putsDone = false, nil
		case <-sweep.C:
			r.tracker.sweep(time.Since(r.start))
		case <-r.settled:
		case <-progressC:
			p := r.tracker.progress(time.Since(r.start))
			r.describe(&p.Stats, stopped)
			progress(p)
		}
		// Checked whatever case was picked: putters end with ctx, and the
		// end of the puts must not pass for a normal finish.
		if done != nil && ctx.Err() != nil {
			if !errors.Is(context.Cause(ctx), ErrStopped) {
				abort()
				return r.final(stopped), contextError(ctx)
			}
			stopped, done = true, nil // putters stop with ctx; getters drain
		}
		if !putting && r.tracker.settled() {
			st := r.final(stopped)
			cancelGets()
			gets.Wait()
			select {
			case err := <-errc: // a getter failed before it saw the end
				return st, err
			default:
				return st, nil
			}
		}
	}
}

// putterGets reports whether the putters take the run's messages
// themselves, each right after its put, rather than leave them to getters
// blocked on the queue: at rates the putter spins for (intervals under a
// millisecond) on a queue manager in this process (the embedded one). A
// put there that finds a getter parked wakes it, and on a 2-core machine
// most such puts took 10–70 µs (measured at 50,000 msg/s, a 20 µs
// interval, against 2 µs for a put that wakes nobody), enough to miss the
// pace; a get in this process is a call, not a round trip, and the round
// trip it measures is the queue's, without a getter's wake-up. Elsewhere
// (IBM MQ), and in request/reply runs whose replies come from a
// responder, getters wait on the queue as usual. Each putter takes from
// its own getter's queue, so there must be a getter per putter.
func (r *run) putterGets(w *workers) bool {
	return r.cfg.Mode != ModeRequestReply && r.sched.spin() && len(w.putters) <= len(w.getters) &&
		len(w.conns) > 0 && !w.conns[0].MessagesOutliveProcess()
}

func (r *run) snapshot(stopped bool) Stats {
	st := r.tracker.snapshot(time.Since(r.start))
	r.describe(&st, stopped)
	return st
}

// describe sets what the run, not the tracker, knows of its statistics.
func (r *run) describe(st *Stats, stopped bool) {
	st.Stopped = stopped
	if r.cfg.Mode == ModeRequestReply {
		st.Mode, st.ReplyQueue = ModeRequestReply, r.replyQueue
	}
}

// final is the run's closing snapshot, with the latency histogram.
func (r *run) final(stopped bool) Stats {
	st := r.snapshot(stopped)
	st.LatencyHistogram = r.tracker.histogram()
	return st
}

// sweepInterval is how often to look for lost messages: often enough that
// a loss is counted soon after its timeout, rarely enough to cost nothing.
func sweepInterval(lossTimeout time.Duration) time.Duration {
	return min(max(lossTimeout/20, 5*time.Millisecond), 100*time.Millisecond)
}

// contextError is ctx's error with its cause, when the cause says more.
func contextError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
		return fmt.Errorf("probe: %w: %w", err, cause)
	}
	return fmt.Errorf("probe: %w", err)
}
