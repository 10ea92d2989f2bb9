package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrClosed is returned by the store's writes once Close has begun,
// including to callers that were still waiting for their turn.
var ErrClosed = errors.New("idempotency store is closed")

// maxBatch bounds the writes one transaction carries, so one COMMIT never
// keeps a caller waiting behind an unbounded queue.
const maxBatch = 64

// querier hands out statements prepared on one connection or pool.
type querier interface {
	prepared(ctx context.Context, query string) (*sql.Stmt, error)
}

// writeFunc is one store write. It must be repeatable: the writer runs it
// again, in a transaction of its own, when another write in its batch
// failed and the batch was rolled back.
type writeFunc func(ctx context.Context, q querier) error

// Write states: a caller may withdraw a write only while it is queued.
const (
	writeQueued int32 = iota
	writeTaken
	writeWithdrawn
)

type writeOp struct {
	run writeFunc
	// durable writes are answered once synced; the others once committed.
	durable bool
	state   atomic.Int32
	err     error      // the write's own outcome, set by the writer
	done    chan error // buffered: the writer never blocks on an answer
}

// writer is group commit: one goroutine owns the only write connection and
// runs the writes handed to it in one open transaction, committing it (and
// answering its writes) once no other write waits to join it (with sync:
// once the previous sync is done) or it holds maxBatch writes. Each write
// keeps its own result; one that fails
// rolls the transaction back and the writes it held are run again one
// transaction each, so it fails alone. A failed COMMIT fails every write in
// the transaction.
//
// With sync set, a committed transaction's durable writes are answered only
// once sync has made them durable. Sync runs on a goroutine of its own;
// while it runs, the writer keeps executing the writes that arrive in a new
// transaction and commits that when the sync is done, so one sync (the slow
// part) covers every write that arrived during the previous one. A
// transaction holding no durable write commits at once and is answered at
// its COMMIT: the next sync covers it.
type writer struct {
	conn  *sql.Conn
	begin string // the statement that opens a write transaction
	sync  func() error

	ops    chan *writeOp // unbuffered: waiting callers are the queue
	synced chan []*writeOp
	idle   chan struct{} // the sync goroutine has nothing to sync
	stop   chan struct{}
	done   chan struct{} // closed when loop and syncLoop have returned
	once   sync.Once

	stmts map[string]*sql.Stmt // owned by the writer goroutine

	waiting      atomic.Int64 // callers blocked handing their write over
	transactions atomic.Int64 // transactions committed
	syncs        atomic.Int64 // syncs done
}

// newWriter starts the writer on a connection of db. sync, when not nil,
// makes committed transactions durable (see writer).
func newWriter(ctx context.Context, db *sql.DB, begin string, sync func() error) (*writer, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("write connection: %w", err)
	}
	w := &writer{conn: conn, begin: begin, sync: sync, ops: make(chan *writeOp),
		synced: make(chan []*writeOp, 2*maxBatch), idle: make(chan struct{}, 1), stop: make(chan struct{}),
		done: make(chan struct{}), stmts: map[string]*sql.Stmt{}}
	go w.loop()
	return w, nil
}

// prepared returns query prepared on the write connection; only the writer
// goroutine calls it (through the querier a writeFunc receives).
func (w *writer) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := w.stmts[query]; ok {
		return st, nil
	}
	st, err := w.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	w.stmts[query] = st
	return st, nil
}

// do runs fn in the writer's open transaction and returns once that
// transaction has committed and, with sync, been synced: nil, fn's own
// error, or the COMMIT's or sync's. ctx is honoured while
// the write waits for its turn; once taken into a batch the write's outcome
// is decided by that batch's COMMIT, which do waits for.
func (w *writer) do(ctx context.Context, fn writeFunc) error {
	return w.submit(ctx, &writeOp{run: fn, durable: true, done: make(chan error, 1)})
}

// doCommitted is do for a write that a crash may lose without harm: it
// returns once the write's transaction has committed, without waiting for
// the sync (readers see it from the COMMIT on; the next sync makes it
// durable).
func (w *writer) doCommitted(ctx context.Context, fn writeFunc) error {
	return w.submit(ctx, &writeOp{run: fn, done: make(chan error, 1)})
}

func (w *writer) submit(ctx context.Context, op *writeOp) error {
	w.waiting.Add(1)
	select {
	case w.ops <- op:
		w.waiting.Add(-1)
	case <-ctx.Done():
		w.waiting.Add(-1)
		return context.Cause(ctx)
	case <-w.stop:
		w.waiting.Add(-1)
		return ErrClosed
	}
	select {
	case err := <-op.done:
		return err
	case <-ctx.Done():
		if op.state.CompareAndSwap(writeQueued, writeWithdrawn) {
			return context.Cause(ctx)
		}
		return <-op.done
	}
}

func (w *writer) loop() {
	ctx := context.Background()
	defer func() {
		close(w.synced)
		if w.sync == nil {
			close(w.done)
		}
	}()
	if w.sync != nil {
		go w.syncLoop()
	}
	var tx []*writeOp // writes executed in the open transaction
	syncIdle := true  // always, without sync
	for {
		// Close wins over queued writes: their callers get ErrClosed.
		select {
		case <-w.stop:
			w.commit(ctx, tx)
			return
		default:
		}
		var idle <-chan struct{}
		if len(tx) > 0 && !syncIdle {
			idle = w.idle
		}
		select {
		case <-w.stop:
			w.commit(ctx, tx)
			return
		case op := <-w.ops:
			tx = w.run(ctx, tx, op)
		drain:
			for len(tx) < maxBatch {
				select {
				case <-w.stop:
					break drain
				default:
				}
				select {
				case op := <-w.ops:
					tx = w.run(ctx, tx, op)
				default:
					break drain
				}
			}
		case <-idle:
			syncIdle = true
		}
		if len(tx) > 0 && (syncIdle || len(tx) >= maxBatch || !anyDurable(tx)) {
			if w.commit(ctx, tx) {
				syncIdle = false
			}
			tx = nil
		}
	}
}

// run executes op in the open transaction tx (opening one if tx is empty)
// and returns the transaction's writes. Statements run under a context of
// their own: a caller giving up must not interrupt a statement inside a
// transaction others share.
func (w *writer) run(ctx context.Context, tx []*writeOp, op *writeOp) []*writeOp {
	if !op.state.CompareAndSwap(writeQueued, writeTaken) {
		return tx // withdrawn by its caller
	}
	if len(tx) == 0 {
		if err := w.exec(ctx, w.begin); err != nil {
			w.settle([]*writeOp{op}, fmt.Errorf("begin transaction: %w", err))
			return nil
		}
	}
	if err := op.run(ctx, w); err != nil {
		w.rollback(ctx)
		w.oneByOne(ctx, append(tx, op))
		return nil
	}
	return append(tx, op)
}

// anyDurable reports whether a write in ops waits for a sync.
func anyDurable(ops []*writeOp) bool {
	for _, op := range ops {
		if op.durable {
			return true
		}
	}
	return false
}

// commit commits the open transaction holding tx, if any, and settles its
// writes; it reports whether it handed writes to the sync goroutine.
func (w *writer) commit(ctx context.Context, tx []*writeOp) bool {
	if len(tx) == 0 {
		return false
	}
	if err := w.exec(ctx, "COMMIT"); err != nil {
		w.rollback(ctx)
		return w.settle(tx, fmt.Errorf("commit: %w", err))
	}
	w.transactions.Add(1)
	return w.settle(tx, nil)
}

// oneByOne runs each write in a transaction of its own, after a batch
// failed: the failing write fails alone.
func (w *writer) oneByOne(ctx context.Context, ops []*writeOp) {
	for _, op := range ops {
		op.err = w.exec(ctx, w.begin)
		if op.err != nil {
			op.err = fmt.Errorf("begin transaction: %w", op.err)
			continue
		}
		if op.err = op.run(ctx, w); op.err != nil {
			w.rollback(ctx)
			continue
		}
		if err := w.exec(ctx, "COMMIT"); err != nil {
			w.rollback(ctx)
			op.err = fmt.Errorf("commit: %w", err)
			continue
		}
		w.transactions.Add(1)
	}
	w.settle(ops, nil)
}

// settle records err (when not nil) as the outcome of ops and answers
// them: a committed durable write once synced, the others at once. It
// reports whether it handed writes to the sync goroutine.
func (w *writer) settle(ops []*writeOp, err error) bool {
	var now, synced []*writeOp
	for _, op := range ops {
		if err != nil {
			op.err = err
		}
		if w.sync != nil && op.durable && op.err == nil {
			synced = append(synced, op)
		} else {
			now = append(now, op)
		}
	}
	answer(now, nil)
	if len(synced) == 0 {
		return false
	}
	w.synced <- synced
	return true
}

// syncLoop makes committed batches durable and answers them: one sync for
// every batch waiting when it starts.
func (w *writer) syncLoop() {
	defer close(w.done)
	for batch := range w.synced {
		batches := [][]*writeOp{batch}
	more:
		for {
			select {
			case b, ok := <-w.synced:
				if !ok {
					break more
				}
				batches = append(batches, b)
			default:
				break more
			}
		}
		err := w.sync()
		w.syncs.Add(1)
		if err != nil {
			err = fmt.Errorf("sync: %w", err)
		}
		for _, b := range batches {
			answer(b, err)
		}
		select {
		case w.idle <- struct{}{}:
		default:
		}
	}
}

// answer gives each write its outcome: its own error, else err.
func answer(ops []*writeOp, err error) {
	for _, op := range ops {
		if op.err != nil {
			op.done <- op.err
		} else {
			op.done <- err
		}
	}
}

func (w *writer) exec(ctx context.Context, query string) error {
	st, err := w.prepared(ctx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx)
	return err
}

// rollback ends a failed transaction; its error only says that the
// database already rolled it back.
func (w *writer) rollback(ctx context.Context) {
	w.exec(ctx, "ROLLBACK") //nolint:errcheck // see above
}

// close stops the writer goroutine once its batch in progress is answered,
// fails the callers still waiting with ErrClosed, and closes the connection.
func (w *writer) close() error {
	var err error
	w.once.Do(func() {
		close(w.stop)
		<-w.done
		for _, st := range w.stmts {
			st.Close()
		}
		err = w.conn.Close()
	})
	return err
}
