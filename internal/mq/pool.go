package mq

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

// Defaults of PoolConfig.
const (
	DefaultMaxConnsPerTarget = 8
	DefaultMaxIdlePerTarget  = 2
	DefaultIdleTimeout       = 5 * time.Minute
	DefaultMaxWait           = 5 * time.Second
)

// PoolConfig tunes a Pool; it is the mq.pool section of the daemon's
// configuration (yaml and desc tags: see internal/config).
type PoolConfig struct {
	// MaxConnsPerTarget caps the connections to one target; Acquire waits
	// for one to be released when all are in use.
	MaxConnsPerTarget int `yaml:"maxConnsPerTarget" desc:"Most connections open to one target at once"`
	// MaxIdlePerTarget is how many released connections are kept for reuse
	// (by default 2, at most MaxConnsPerTarget).
	MaxIdlePerTarget int `yaml:"maxIdlePerTarget" desc:"Released connections kept open per target for reuse"`
	// IdleTimeout closes connections idle for longer. The pool checks every
	// IdleTimeout/2, but at most once a second, so an idle connection is
	// closed within about 1.5 IdleTimeout.
	IdleTimeout time.Duration `yaml:"idleTimeout" desc:"Idle connections older than this are closed"`
	// MaxWait bounds Acquire's wait for a connection: it then fails with
	// ErrPoolBusy, so a few long commands cannot hold up every other
	// command on a target.
	MaxWait time.Duration `yaml:"maxWait" desc:"How long a command waits for a free connection to its target before it gives its claim back (503, or redelivered later)"`
	// Backoff paces Acquire's retries of transient connect failures, such
	// as those reconnecting to a queue manager that broke the connections.
	Backoff Backoff `yaml:"-"`
	// OnRetry, if set, is called before each backoff wait with the attempt
	// that failed. For logs and metrics; it must not block.
	OnRetry func(t Target, attempt int, delay time.Duration, err error) `yaml:"-"`
}

// DefaultPoolConfig is the settings a zero PoolConfig gets; Backoff is
// left zero, for NewPool to fill.
func DefaultPoolConfig() PoolConfig {
	return PoolConfig{MaxConnsPerTarget: DefaultMaxConnsPerTarget, MaxIdlePerTarget: DefaultMaxIdlePerTarget,
		IdleTimeout: DefaultIdleTimeout, MaxWait: DefaultMaxWait}
}

// setDefaults fills the settings left zero.
func (c *PoolConfig) setDefaults() {
	if c.MaxConnsPerTarget == 0 {
		c.MaxConnsPerTarget = DefaultMaxConnsPerTarget
	}
	if c.MaxIdlePerTarget == 0 {
		c.MaxIdlePerTarget = min(DefaultMaxIdlePerTarget, c.MaxConnsPerTarget)
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.MaxWait == 0 {
		c.MaxWait = DefaultMaxWait
	}
	c.Backoff.setDefaults()
}

// Validate reports every setting out of range, each a
// *configcheck.FieldError naming its mq.pool key.
func (c PoolConfig) Validate() error {
	var v configcheck.Errors
	v.Positive("mq.pool.maxConnsPerTarget", c.MaxConnsPerTarget)
	v.NonNegative("mq.pool.maxIdlePerTarget", c.MaxIdlePerTarget)
	if c.MaxConnsPerTarget > 0 && c.MaxIdlePerTarget > c.MaxConnsPerTarget {
		v.Fail("mq.pool.maxIdlePerTarget", "must not exceed mq.pool.maxConnsPerTarget (%d) (got %d)", c.MaxConnsPerTarget, c.MaxIdlePerTarget)
	}
	v.NonNegativeDuration("mq.pool.idleTimeout", c.IdleTimeout)
	v.PositiveDuration("mq.pool.maxWait", c.MaxWait)
	v.Add(c.Backoff.Validate())
	return v.Err()
}

// ErrPoolClosed is returned by Acquire after Close.
var ErrPoolClosed = errors.New("mq pool: closed")

// ErrPoolBusy is wrapped by Acquire's error when every connection to the
// target stayed in use for MaxWait.
var ErrPoolBusy = errors.New("mq pool: every connection to the target is in use")

// Pool shares connections per target, so commands reuse connections instead
// of connecting per message. It discards broken connections, and Acquire
// reconnects with backoff. A background goroutine closes connections idle
// past IdleTimeout and forgets targets left with no connection, until Close.
// It is safe for concurrent use.
type Pool struct {
	backend Backend
	cfg     PoolConfig

	mu      sync.Mutex
	targets map[Target]*targetPool
	closed  bool

	waiting atomic.Int64 // Acquire calls waiting for a connection slot

	stop       chan struct{} // closed by Close to stop the reaper
	reaperDone chan struct{} // closed when the reaper has returned
}

type targetPool struct {
	slots chan struct{} // one token per connection in use
	// Fields below are guarded by Pool.mu.
	idle []idleConn // newest last
	// users counts borrowers and Acquire calls under way. The reaper
	// evicts only at zero: then no slot is taken, so a new targetPool for
	// the same target cannot let MaxConnsPerTarget be exceeded.
	users int
}

type idleConn struct {
	conn  Conn
	since time.Time
}

// NewPool returns a pool that connects through backend. Its background
// goroutine runs until Close, so the pool must be closed when done with.
func NewPool(backend Backend, cfg PoolConfig) (*Pool, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Pool{
		backend:    backend,
		cfg:        cfg,
		targets:    make(map[Target]*targetPool),
		stop:       make(chan struct{}),
		reaperDone: make(chan struct{}),
	}
	go p.reaper(max(cfg.IdleTimeout/2, minReapInterval))
	return p, nil
}

// minReapInterval bounds how often a short IdleTimeout makes the reaper
// walk every target.
const minReapInterval = time.Second

// Acquire returns a connection to t: an idle one if there is one, else a new
// one, retrying transient connect failures with backoff. Release it with
// Close. It waits while MaxConnsPerTarget connections are in use.
func (p *Pool) Acquire(ctx context.Context, t Target) (*PooledConn, error) {
	t = t.Normalized()
	if err := t.Validate(); err != nil {
		return nil, err
	}
	tp, err := p.join(t)
	if err != nil {
		return nil, err
	}
	if err := p.takeSlot(ctx, tp, t); err != nil {
		p.leave(tp, false)
		return nil, err
	}
	if conn := p.popIdle(tp); conn != nil {
		return &PooledConn{pool: p, tp: tp, conn: conn}, nil
	}
	conn, err := p.connect(ctx, t)
	if err != nil {
		p.leave(tp, true)
		return nil, err
	}
	return &PooledConn{pool: p, tp: tp, conn: conn}, nil
}

// takeSlot waits up to MaxWait for one of tp's MaxConnsPerTarget slots.
func (p *Pool) takeSlot(ctx context.Context, tp *targetPool, t Target) error {
	select {
	case tp.slots <- struct{}{}:
		return nil
	default:
	}
	p.waiting.Add(1)
	defer p.waiting.Add(-1)
	timer := time.NewTimer(p.cfg.MaxWait)
	defer timer.Stop()
	select {
	case tp.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mq pool: waiting for a connection to %s: %w", t, ctx.Err())
	case <-timer.C:
		return fmt.Errorf("%w: all %d connections to %s (mq.pool.maxConnsPerTarget) stayed in use for %s (mq.pool.maxWait)",
			ErrPoolBusy, p.cfg.MaxConnsPerTarget, t, p.cfg.MaxWait)
	}
}

// Waiting is how many Acquire calls wait for a connection now, all targets
// together.
func (p *Pool) Waiting() int64 { return p.waiting.Load() }

// PoolStats counts one target's connections.
type PoolStats struct {
	InUse int
	Idle  int
}

// MessagesOutliveProcess reports whether messages put through the pool's
// backend outlive this process (see ProcessBound).
func (p *Pool) MessagesOutliveProcess() bool { return MessagesOutliveProcess(p.backend) }

// Stats reports t's connections.
func (p *Pool) Stats(t Target) PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	tp := p.targets[t.Normalized()]
	if tp == nil {
		return PoolStats{}
	}
	return PoolStats{InUse: len(tp.slots), Idle: len(tp.idle)}
}

// Close disconnects idle connections and stops the background goroutine,
// waiting for it to return; connections in use are disconnected when
// released. Acquire fails afterwards. Calling Close again does nothing
// more.
func (p *Pool) Close() error {
	p.mu.Lock()
	first := !p.closed
	p.closed = true
	var idle []idleConn
	for _, tp := range p.targets {
		idle = append(idle, tp.idle...)
		tp.idle = nil
	}
	p.mu.Unlock()
	if first {
		close(p.stop)
	}
	var errs []error
	for _, ic := range idle {
		errs = append(errs, ic.conn.Close())
	}
	<-p.reaperDone
	return errors.Join(errs...)
}

// reaper calls reap every interval until Close.
func (p *Pool) reaper(interval time.Duration) {
	defer close(p.reaperDone)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
			p.reap()
		}
	}
}

// reap closes connections idle past IdleTimeout and forgets targets nobody
// uses, so a daemon that has talked to many targets does not keep them all.
func (p *Pool) reap() {
	var stale []Conn
	p.mu.Lock()
	cutoff := time.Now().Add(-p.cfg.IdleTimeout)
	for t, tp := range p.targets {
		tp.idle = slices.DeleteFunc(tp.idle, func(ic idleConn) bool {
			if ic.since.Before(cutoff) {
				stale = append(stale, ic.conn)
				return true
			}
			return false
		})
		if len(tp.idle) == 0 && tp.users == 0 {
			delete(p.targets, t)
		}
	}
	p.mu.Unlock()
	for _, c := range stale {
		c.Close() // the connection is being discarded; its close outcome changes nothing
	}
}

// join returns t's targetPool, counting the caller as its user until
// leave or release.
func (p *Pool) join(t Target) (*targetPool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrPoolClosed
	}
	tp := p.targets[t]
	if tp == nil {
		tp = &targetPool{slots: make(chan struct{}, p.cfg.MaxConnsPerTarget)}
		p.targets[t] = tp
	}
	tp.users++
	return tp, nil
}

// leave ends an Acquire that got no connection, giving back its slot if it
// took one.
func (p *Pool) leave(tp *targetPool, slot bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if slot {
		<-tp.slots
	}
	tp.users--
}

// popIdle takes the most recently used idle connection, closing any that
// idled past IdleTimeout.
func (p *Pool) popIdle(tp *targetPool) Conn {
	var stale []Conn
	defer func() {
		for _, c := range stale {
			c.Close()
		}
	}()
	p.mu.Lock()
	defer p.mu.Unlock()
	cutoff := time.Now().Add(-p.cfg.IdleTimeout)
	for len(tp.idle) > 0 {
		last := len(tp.idle) - 1
		ic := tp.idle[last]
		tp.idle[last] = idleConn{}
		tp.idle = tp.idle[:last]
		if ic.since.Before(cutoff) {
			stale = append(stale, ic.conn)
			continue
		}
		return ic.conn
	}
	return nil
}

// connect opens a connection, retrying transient failures with backoff.
// A queue manager that answers 2059 (MQRC_Q_MGR_NOT_AVAILABLE) on every
// attempt fails permanently: a wrong queue manager name gives 2059 too, and
// retrying the command until its dead-letter queue would not fix it.
func (p *Pool) connect(ctx context.Context, t Target) (Conn, error) {
	for attempt := 1; ; attempt++ {
		conn, err := p.backend.Connect(ctx, t)
		if err == nil {
			return conn, nil
		}
		if !IsTransient(err) || !p.cfg.Backoff.allows(attempt) || ctx.Err() != nil {
			if e, ok := AsError(err); ok && e.Reason == ReasonQMgrNotAvailable && ctx.Err() == nil {
				err = qmgrNotAvailable(e, t, attempt)
			}
			return nil, fmt.Errorf("mq pool: connect to %s (attempt %d): %w", t, attempt, err)
		}
		delay := p.cfg.Backoff.Delay(attempt)
		p.onRetry(t, attempt, delay, err)
		if werr := sleep(ctx, delay); werr != nil {
			return nil, fmt.Errorf("mq pool: connect to %s (attempt %d): %w", t, attempt, errors.Join(err, werr))
		}
	}
}

// qmgrNotAvailable is the permanent form of e, a 2059 the last of attempts
// met, naming its likely causes.
func qmgrNotAvailable(e *Error, t Target, attempts int) *Error {
	where := "the default queue manager's client configuration (MQSERVER, the CCDT)"
	switch {
	case t.ConnName != "":
		where = "channel " + t.Channel + " at " + t.ConnName
	case t.CCDTURL != "":
		where = "the CCDT " + t.CCDTURL
	}
	return &Error{Verb: e.Verb, Object: e.Object, CompCode: e.CompCode, Reason: e.Reason, Permanent: true,
		Err: fmt.Errorf("queue manager %q was not available through %s on any of %d attempts: "+
			"check that queueManager is the name (case included) of the queue manager listening there, "+
			"and that the queue manager is running and its listener started (dspmq, DISPLAY LSSTATUS)",
			t.QueueManager, where, attempts)}
}

func (p *Pool) onRetry(t Target, attempt int, delay time.Duration, err error) {
	if p.cfg.OnRetry != nil {
		p.cfg.OnRetry(t, attempt, delay, err)
	}
}

// release returns a connection after use. A broken one is closed together
// with the target's idle connections, which most likely broke with it.
func (p *Pool) release(tp *targetPool, conn Conn, broken bool) {
	var toClose []Conn
	p.mu.Lock()
	switch {
	case broken:
		toClose = append(toClose, conn)
		for _, ic := range tp.idle {
			toClose = append(toClose, ic.conn)
		}
		clear(tp.idle)
		tp.idle = tp.idle[:0]
	case p.closed || len(tp.idle) >= p.cfg.MaxIdlePerTarget:
		toClose = append(toClose, conn)
	default:
		tp.idle = append(tp.idle, idleConn{conn: conn, since: time.Now()})
	}
	<-tp.slots // cannot block: the caller holds a slot
	tp.users--
	p.mu.Unlock()
	for _, c := range toClose {
		c.Close() // the connection is being discarded; its close outcome changes nothing
	}
}

// PooledConn is a Conn on loan from a Pool. It notices broken-connection
// errors, and on Close it closes the queues it opened, backs out an
// unfinished unit of work (so the next borrower cannot commit it) and
// returns the connection to the pool, or discards it if it broke.
type PooledConn struct {
	pool   *Pool
	tp     *targetPool
	conn   Conn
	queues []*pooledQueue
	inUOW  bool
	// asyncUnchecked: asynchronous puts since the last Commit, Backout or
	// CheckAsyncPuts.
	asyncUnchecked bool
	broken         bool
	released       bool
}

var (
	_ Conn            = (*PooledConn)(nil)
	_ ProcessBound    = (*PooledConn)(nil)
	_ ProcessBound    = (*Pool)(nil)
	_ AsyncPutChecker = (*PooledConn)(nil)
)

// observe marks the connection broken when err says so and returns err.
func (pc *PooledConn) observe(err error) error {
	if err != nil && IsConnectionBroken(err) {
		pc.broken = true
	}
	return err
}

func (pc *PooledConn) OpenQueue(ctx context.Context, name string, opts OpenOption) (Queue, error) {
	if pc.released {
		return nil, NewError(VerbOpen, name, ReasonHconnError)
	}
	q, err := pc.conn.OpenQueue(ctx, name, opts)
	if err != nil {
		return nil, pc.observe(err)
	}
	pq := &pooledQueue{pc: pc, q: q}
	pc.queues = append(pc.queues, pq)
	if _, ok := q.(BatchPutter); ok {
		return pooledBatchQueue{pq}, nil
	}
	return pq, nil
}

func (pc *PooledConn) InquireQueueManager(ctx context.Context) (QueueManagerInfo, error) {
	if pc.released {
		return QueueManagerInfo{}, NewError(VerbInquire, "", ReasonHconnError)
	}
	info, err := pc.conn.InquireQueueManager(ctx)
	return info, pc.observe(err)
}

func (pc *PooledConn) InquireQueueStatus(ctx context.Context, name string) (QueueStatus, error) {
	if pc.released {
		return QueueStatus{}, NewError(VerbInquire, name, ReasonHconnError)
	}
	st, err := pc.conn.InquireQueueStatus(ctx, name)
	return st, pc.observe(err)
}

func (pc *PooledConn) InquireChannelStatus(ctx context.Context) (ChannelStatus, error) {
	if pc.released {
		return ChannelStatus{}, NewError(VerbInquire, "", ReasonHconnError)
	}
	st, err := pc.conn.InquireChannelStatus(ctx)
	return st, pc.observe(err)
}

func (pc *PooledConn) Commit(ctx context.Context) error {
	if pc.released {
		return NewError(VerbCommit, "", ReasonHconnError)
	}
	pc.inUOW, pc.asyncUnchecked = false, false
	return pc.observe(pc.conn.Commit(ctx))
}

// CheckAsyncPuts reports the asynchronous puts since the last check (see
// AsyncPutChecker); nil when the backend's puts are never asynchronous.
func (pc *PooledConn) CheckAsyncPuts(ctx context.Context) error {
	if pc.released {
		return NewError(VerbPut, "", ReasonHconnError)
	}
	pc.asyncUnchecked = false
	return pc.observe(CheckAsyncPuts(ctx, pc.conn))
}

func (pc *PooledConn) Backout(ctx context.Context) error {
	if pc.released {
		return NewError(VerbBackout, "", ReasonHconnError)
	}
	pc.inUOW, pc.asyncUnchecked = false, false
	return pc.observe(pc.conn.Backout(ctx))
}

// Close returns the connection to the pool; it never fails. Calling it
// again does nothing.
func (pc *PooledConn) Close() error {
	if pc.released {
		return nil
	}
	for _, q := range slices.Clone(pc.queues) {
		if err := q.Close(); err != nil {
			pc.broken = true // a handle we cannot close would leak on the next borrower
		}
	}
	if pc.inUOW && !pc.broken {
		if err := pc.conn.Backout(context.Background()); err != nil {
			pc.broken = true
		}
	}
	// Outcomes of asynchronous puts nobody asked for must not reach the
	// next borrower's check; a connection that cannot say is dropped.
	if pc.asyncUnchecked && !pc.broken {
		if err := CheckAsyncPuts(context.Background(), pc.conn); err != nil {
			pc.broken = true
		}
	}
	pc.released = true
	pc.pool.release(pc.tp, pc.conn, pc.broken)
	return nil
}

// MessagesOutliveProcess reports whether messages put on this connection
// outlive this process (see ProcessBound).
func (pc *PooledConn) MessagesOutliveProcess() bool { return pc.pool.MessagesOutliveProcess() }

// Broken reports whether the connection failed with a broken-connection
// reason; Close will discard it.
func (pc *PooledConn) Broken() bool { return pc.broken }

type pooledQueue struct {
	pc     *PooledConn
	q      Queue
	closed bool
}

func (pq *pooledQueue) Name() string { return pq.q.Name() }

func (pq *pooledQueue) Put(ctx context.Context, msg *Message, opts PutOptions) (PutResult, error) {
	pq.noteUnitOfWork(opts)
	res, err := pq.q.Put(ctx, msg, opts)
	return res, pq.pc.observe(err)
}

// pooledBatchQueue is a pooledQueue whose queue is a BatchPutter: only
// then is it one too, so callers can tell a batch call from PutEach.
type pooledBatchQueue struct{ *pooledQueue }

var _ BatchPutter = pooledBatchQueue{}

func (pq pooledBatchQueue) PutBatch(ctx context.Context, b *Batch, opts PutOptions) (BatchResult, error) {
	pq.noteUnitOfWork(opts)
	res, err := pq.q.(BatchPutter).PutBatch(ctx, b, opts)
	return res, pq.pc.observe(err)
}

// noteUnitOfWork records what a put with opts leaves on the connection.
func (pq *pooledQueue) noteUnitOfWork(opts PutOptions) {
	if opts.Syncpoint {
		pq.pc.inUOW = true
	}
	if opts.Async {
		pq.pc.asyncUnchecked = true
	}
}

func (pq *pooledQueue) Get(ctx context.Context, msg *Message, opts GetOptions) error {
	if opts.Syncpoint {
		pq.pc.inUOW = true
	}
	return pq.pc.observe(pq.q.Get(ctx, msg, opts))
}

func (pq *pooledQueue) Inquire(ctx context.Context) (QueueInfo, error) {
	info, err := pq.q.Inquire(ctx)
	return info, pq.pc.observe(err)
}

func (pq *pooledQueue) Close() error {
	if pq.closed {
		return nil
	}
	pq.closed = true
	pq.pc.queues = slices.DeleteFunc(pq.pc.queues, func(q *pooledQueue) bool { return q == pq })
	return pq.pc.observe(pq.q.Close())
}
