package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// Store is an idempotency.Store on a SQL database.
type Store struct {
	d dialect
	// pool serves what does not go through w: reads, and on PostgreSQL
	// every statement.
	pool *sql.DB
	// writeDB holds the writer's one connection (SQLite); nil otherwise.
	writeDB *sql.DB
	// w, when set, runs every write: SQLite has one writer, and group
	// commit turns one fsync per write into one per batch.
	w *writer
	// wal is the WAL file the writer syncs (SQLite, synchronous=FULL).
	wal *walFile
	// file refuses every operation once the SQLite database path no longer
	// names the open file (fileid.go); nil on PostgreSQL.
	file *fileGuard
	// relaxed runs the writes a crash may lose without harm on PostgreSQL
	// (see OpenPostgres); nil on SQLite.
	relaxed *stmtPool

	beginSQL, getSQL, cleanupSQL string
	deleteSQL                    [2]string // [force]
	updateSQL                    map[updateShape]string
	// stmts caches statements prepared on pool by query text: parsing the
	// upsert costs more than running it.
	stmts *stmtPool
}

var _ idempotency.Store = (*Store)(nil)

const columns = `pk, operation_type, idempotency_key, status, request_hash, response_payload, http_status,
	created_at, updated_at, expires_at, ttl, lease_expires_at, lease_token, attempt, target, trace_id,
	duration_ms, error_message, progress, tenant, lease_holder`

// cleanupBatch bounds one DELETE so cleanup never holds many row locks.
const cleanupBatch = 500

// newStore migrates the schema and prepares every statement. With writeDB
// set (SQLite), writes go through a group-commit writer on its one
// connection, which answers a committed write once sync (when not nil) has
// made it durable, and pool only reads.
func newStore(ctx context.Context, pool, writeDB *sql.DB, d dialect, sync func() error) (*Store, error) {
	migrations := pool
	if writeDB != nil {
		migrations = writeDB
	}
	if err := migrate(ctx, migrations, d); err != nil {
		pool.Close()
		if writeDB != nil {
			writeDB.Close()
		}
		return nil, fmt.Errorf("%s idempotency store: %w", d.name, err)
	}
	s := &Store{
		d: d, pool: pool, writeDB: writeDB, stmts: &stmtPool{db: pool},
		beginSQL: d.bind(beginStatement(d)),
		getSQL:   d.bind(`SELECT ` + columns + ` FROM idempotency_record WHERE pk = $1`),
		cleanupSQL: d.bind(fmt.Sprintf(`DELETE FROM idempotency_record WHERE pk IN (
			SELECT pk FROM idempotency_record WHERE expires_at <= $1 ORDER BY expires_at LIMIT %d%s)`, cleanupBatch, d.skipLocked)),
		deleteSQL: [2]string{
			d.bind(`DELETE FROM idempotency_record WHERE pk = $1
				AND lease_token = $2 AND (status <> 'IN_PROGRESS' OR lease_expires_at <= $3)`),
			d.bind(`DELETE FROM idempotency_record WHERE pk = $1`),
		},
		updateSQL: map[updateShape]string{},
	}
	writes := []string{s.beginSQL, s.getSQL, s.cleanupSQL, s.deleteSQL[0], s.deleteSQL[1]}
	for _, shape := range updateShapes() {
		q := d.bind(s.updateStatement(shape))
		s.updateSQL[shapeOf(shape)] = q
		writes = append(writes, q)
	}
	// Prepared now so a broken schema fails at open, not on first use.
	err := prepareAll(ctx, s, s.getSQL)
	if writeDB != nil {
		if s.w, err = newWriter(ctx, writeDB, d.beginWrite, sync); err == nil {
			err = s.w.do(ctx, func(ctx context.Context, q querier) error { return prepareAll(ctx, q, writes...) })
		}
	} else if err == nil {
		err = prepareAll(ctx, s, writes...)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%s idempotency store: %w", d.name, err)
	}
	return s, nil
}

func prepareAll(ctx context.Context, q querier, queries ...string) error {
	for _, query := range queries {
		if _, err := q.prepared(ctx, query); err != nil {
			return err
		}
	}
	return nil
}

// write runs fn: through the group-commit writer when the store has one,
// else at once on the pool.
func (s *Store) write(ctx context.Context, fn writeFunc) error {
	if err := s.file.check(); err != nil {
		return err
	}
	if s.w == nil {
		return fn(ctx, s)
	}
	return s.w.do(ctx, fn)
}

// writeCommitted is write for a write a crash may lose without harm (see
// Claim.ReadOnly): it returns once committed, without waiting for the WAL's
// sync (SQLite) or flush (PostgreSQL).
func (s *Store) writeCommitted(ctx context.Context, fn writeFunc) error {
	if err := s.file.check(); err != nil {
		return err
	}
	switch {
	case s.w != nil:
		return s.w.doCommitted(ctx, fn)
	case s.relaxed != nil:
		return fn(ctx, s.relaxed)
	}
	return fn(ctx, s)
}

// upsert writes the claim over a row only where the decision table says
// "Acquired"; $5 is now as a timestamp, $12 now in epoch milliseconds. The
// claim is when List lists the record (listed_at) until it finishes.
const upsert = `INSERT INTO idempotency_record (` + columns + `, listed_at)
	VALUES ($1, $2, $3, 'IN_PROGRESS', $4, NULL, 0, $5, $5, $6, $7, $8, $9, 1, $10, $11, 0, '', '', $13, $14, $5)
	ON CONFLICT (pk) DO UPDATE SET
		operation_type = excluded.operation_type,
		idempotency_key = excluded.idempotency_key,
		status = 'IN_PROGRESS',
		request_hash = excluded.request_hash,
		response_payload = NULL,
		http_status = 0,
		created_at = CASE WHEN idempotency_record.expires_at <= $5 THEN excluded.created_at ELSE idempotency_record.created_at END,
		updated_at = excluded.updated_at,
		expires_at = excluded.expires_at,
		ttl = excluded.ttl,
		lease_expires_at = excluded.lease_expires_at,
		lease_token = excluded.lease_token,
		attempt = CASE WHEN idempotency_record.expires_at <= $5 THEN 1 ELSE idempotency_record.attempt + 1 END,
		target = excluded.target,
		trace_id = excluded.trace_id,
		duration_ms = 0,
		error_message = '',
		progress = CASE WHEN idempotency_record.expires_at <= $5 THEN '' ELSE idempotency_record.progress END,
		tenant = excluded.tenant,
		lease_holder = excluded.lease_holder,
		listed_at = excluded.listed_at
	WHERE idempotency_record.expires_at <= $5
		OR (idempotency_record.request_hash = excluded.request_hash
			AND (idempotency_record.status = 'FAILED'
				OR (idempotency_record.status = 'IN_PROGRESS' AND idempotency_record.lease_expires_at <= $12)))
	RETURNING ` + columns

func beginStatement(d dialect) string {
	if !d.beginReturnsExisting {
		return upsert
	}
	// The second branch reads the statement's snapshot, which holds the row
	// the upsert refused unless that row was committed while we ran.
	return `WITH claimed AS (` + upsert + `)
	SELECT ` + columns + `, TRUE FROM claimed
	UNION ALL
	SELECT ` + columns + `, FALSE FROM idempotency_record WHERE pk = $1 AND NOT EXISTS (SELECT 1 FROM claimed)`
}

func (s *Store) claimArgs(c idempotency.Claim) []any {
	return []any{c.PK, c.OperationType, c.IdempotencyKey, c.RequestHash, s.d.timeArg(c.Now),
		s.d.timeArg(c.ExpiresAt), c.ExpiresAt.Unix(), c.LeaseExpiresAt.UnixMilli(), c.LeaseToken,
		c.Target, c.TraceID, c.Now.UnixMilli(), c.Tenant, c.LeaseHolder}
}

// Begin implements idempotency.Store. The write is one atomic statement;
// when it refuses and the dialect cannot return the refusing row in that
// statement, one read follows (in the same transaction when writes are
// batched). The engine re-checks what that read returns, so a record
// changing in between is retried rather than misjudged.
func (s *Store) Begin(ctx context.Context, c idempotency.Claim) (idempotency.Record, bool, error) {
	var (
		rec             idempotency.Record
		acquired, found bool
	)
	write := s.write
	if c.ReadOnly {
		write = s.writeCommitted
	}
	err := write(ctx, func(ctx context.Context, q querier) (err error) {
		rec, acquired, found, err = s.beginOnce(ctx, q, c)
		if err != nil || found {
			return err
		}
		// SQLite, or a PostgreSQL row committed after the statement's snapshot.
		rec, _, err = s.get(ctx, q, c.PK)
		return err
	})
	if err != nil {
		return idempotency.Record{}, false, fmt.Errorf("begin %s: %w", c.PK, s.classify(err))
	}
	return rec, acquired, nil
}

// prepared returns the statement for query prepared on the pool.
func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	return s.stmts.prepared(ctx, query)
}

// beginOnce runs the Begin statement. found is false when it returned no row.
func (s *Store) beginOnce(ctx context.Context, q querier, c idempotency.Claim) (rec idempotency.Record, acquired, found bool, err error) {
	st, err := q.prepared(ctx, s.beginSQL)
	if err != nil {
		return rec, false, false, err
	}
	rows, err := st.QueryContext(ctx, s.claimArgs(c)...)
	if err != nil {
		return rec, false, false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return rec, false, false, rows.Err()
	}
	acquired = true
	dest := recordDest(&rec)
	if s.d.beginReturnsExisting {
		dest = append(dest, &acquired)
	}
	if err := rows.Scan(dest...); err != nil {
		return rec, false, false, fmt.Errorf("scan: %w", err)
	}
	return rec, acquired, true, rows.Err()
}

// updateShape is what decides an Update's statement text.
type updateShape struct {
	kind     idempotency.UpdateKind // UpdateHeartbeat also stands for UpdateRelease
	progress bool                   // a heartbeat with a checkpoint
	expires  bool                   // a new expiresAt
}

func shapeOf(u idempotency.Update) updateShape {
	sh := updateShape{kind: u.Kind, expires: !u.ExpiresAt.IsZero()}
	if leaseUpdate(u.Kind) {
		sh.kind, sh.progress = idempotency.UpdateHeartbeat, u.Progress != nil
	}
	return sh
}

// leaseUpdate reports whether k keeps the record IN_PROGRESS (heartbeat,
// release): such an update reads back only the expiries.
func leaseUpdate(k idempotency.UpdateKind) bool {
	return k == idempotency.UpdateHeartbeat || k == idempotency.UpdateRelease
}

// updateShapes is one Update of each statement shape Update runs: a
// heartbeat or release with and without a checkpoint and a new expiresAt,
// a completion or failure with and without a new expiresAt.
func updateShapes() []idempotency.Update {
	progress, expires := "", time.Unix(1, 0)
	var shapes []idempotency.Update
	for _, kind := range []idempotency.UpdateKind{idempotency.UpdateHeartbeat, idempotency.UpdateComplete, idempotency.UpdateFail} {
		for _, p := range []*string{nil, &progress} {
			if p != nil && kind != idempotency.UpdateHeartbeat {
				continue // a final update never checkpoints
			}
			for _, e := range []time.Time{{}, expires} {
				shapes = append(shapes, idempotency.Update{Kind: kind, Progress: p, ExpiresAt: e})
			}
		}
	}
	return shapes
}

// updateSets lists the columns u writes and their values, in order. Only a
// completion or failure moves the record in the listing (listed_at): a
// heartbeat or checkpoint writes no listing index.
func (s *Store) updateSets(u idempotency.Update) (columns []string, values []any) {
	set := func(column string, v any) {
		columns, values = append(columns, column), append(values, v)
	}
	set("updated_at", s.d.timeArg(u.Now))
	if !u.ExpiresAt.IsZero() {
		set("expires_at", s.d.timeArg(u.ExpiresAt))
		set("ttl", u.ExpiresAt.Unix())
	}
	switch u.Kind {
	case idempotency.UpdateHeartbeat, idempotency.UpdateRelease:
		set("lease_expires_at", u.LeaseExpiresAt.UnixMilli())
		if u.Progress != nil {
			set("progress", *u.Progress)
		}
	case idempotency.UpdateComplete:
		set("listed_at", s.d.timeArg(u.Now))
		set("status", string(idempotency.StatusCompleted))
		set("response_payload", nullable(u.ResponsePayload))
		set("http_status", u.HTTPStatus)
		set("duration_ms", u.DurationMs)
	case idempotency.UpdateFail:
		set("listed_at", s.d.timeArg(u.Now))
		set("status", string(idempotency.StatusFailed))
		set("error_message", u.ErrorMessage)
		set("response_payload", nullable(u.ResponsePayload))
		set("http_status", u.HTTPStatus)
		set("duration_ms", u.DurationMs)
	}
	return columns, values
}

// leaseColumns is what a heartbeat or release returns: all its holder
// needs to know (idempotency.Store.Update).
const leaseColumns = `lease_expires_at, expires_at`

// updateStatement is the fenced UPDATE of u's shape, with $N parameters:
// updateSets' values, then pk and lease token.
func (s *Store) updateStatement(u idempotency.Update) string {
	cols, _ := s.updateSets(u)
	sets := make([]string, len(cols))
	for i, c := range cols {
		sets[i] = fmt.Sprintf("%s = $%d", c, i+1)
	}
	returning := columns
	if leaseUpdate(u.Kind) {
		returning = leaseColumns
	}
	return fmt.Sprintf(`UPDATE idempotency_record SET %s WHERE pk = $%d AND lease_token = $%d AND status = 'IN_PROGRESS' RETURNING %s`,
		strings.Join(sets, ", "), len(cols)+1, len(cols)+2, returning)
}

// Update implements idempotency.Store. A heartbeat or release reads back
// only the lease and record expiries; a completion or failure the whole
// record.
func (s *Store) Update(ctx context.Context, pk, token string, u idempotency.Update) (idempotency.Record, error) {
	query, known := s.updateSQL[shapeOf(u)]
	if !known {
		return idempotency.Record{}, fmt.Errorf("update %s: unknown kind %d", pk, u.Kind)
	}
	lease := leaseUpdate(u.Kind)
	_, args := s.updateSets(u)
	args = append(args, pk, token)
	var (
		rec   idempotency.Record
		found bool
	)
	err := s.write(ctx, func(ctx context.Context, q querier) error {
		st, err := q.prepared(ctx, query)
		if err != nil {
			return err
		}
		rec = idempotency.Record{}
		dest := []any{(*millisDest)(&rec.LeaseExpiresAt), (*timeDest)(&rec.ExpiresAt)}
		if !lease {
			dest = recordDest(&rec)
		}
		err = st.QueryRowContext(ctx, args...).Scan(dest...)
		found = err == nil
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return idempotency.Record{}, fmt.Errorf("update %s: %w", pk, s.classify(err))
	}
	if !found {
		return idempotency.Record{}, idempotency.ErrLeaseLost
	}
	if lease {
		rec.PK, rec.LeaseToken, rec.Status = pk, token, idempotency.StatusInProgress
	}
	return rec, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Get implements idempotency.Store.
func (s *Store) Get(ctx context.Context, pk string) (idempotency.Record, bool, error) {
	if err := s.file.check(); err != nil {
		return idempotency.Record{}, false, fmt.Errorf("get %s: %w", pk, err)
	}
	rec, ok, err := s.get(ctx, s, pk)
	if err != nil {
		return idempotency.Record{}, false, fmt.Errorf("get %s: %w", pk, err)
	}
	return rec, ok, nil
}

func (s *Store) get(ctx context.Context, q querier, pk string) (idempotency.Record, bool, error) {
	var rec idempotency.Record
	st, err := q.prepared(ctx, s.getSQL)
	if err != nil {
		return rec, false, err
	}
	err = st.QueryRowContext(ctx, pk).Scan(recordDest(&rec)...)
	if errors.Is(err, sql.ErrNoRows) {
		return idempotency.Record{}, false, nil
	}
	if err != nil {
		return idempotency.Record{}, false, err
	}
	return rec, true, nil
}

// DeleteExpired implements idempotency.Store, in bounded batches, each a
// write of its own.
func (s *Store) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.write(ctx, func(ctx context.Context, q querier) error {
			var err error
			n, err = s.exec(ctx, q, s.cleanupSQL, s.d.timeArg(now))
			return err
		})
		if err != nil {
			return total, fmt.Errorf("delete expired: %w", err)
		}
		total += n
		if n < cleanupBatch {
			return total, nil
		}
	}
}

// exec runs a prepared statement and returns how many rows it changed.
func (s *Store) exec(ctx context.Context, q querier, query string, args ...any) (int64, error) {
	st, err := q.prepared(ctx, query)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Delete implements idempotency.Store.
func (s *Store) Delete(ctx context.Context, d idempotency.Deletion) (bool, error) {
	query, args := s.deleteSQL[1], []any{d.PK}
	if !d.Force {
		// lease_expires_at is epoch milliseconds, as Begin compares it.
		query, args = s.deleteSQL[0], append(args, d.LeaseToken, d.Now.UnixMilli())
	}
	var n int64
	err := s.write(ctx, func(ctx context.Context, q querier) error {
		var err error
		n, err = s.exec(ctx, q, query, args...)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("delete %s: %w", d.PK, err)
	}
	return n > 0, nil
}

// List implements idempotency.Store: one indexed query, newest first by
// listed_at, the claim's or the completion's instant (keyset paging on
// (listed_at, pk) within the index the filters pick: the tenant's, with its
// status, the target's, the status's, or every record's); After and Next
// are idempotency.ListPosition strings of listed_at.
func (s *Store) List(ctx context.Context, q idempotency.ListQuery) (idempotency.ListPage, error) {
	if err := s.file.check(); err != nil {
		return idempotency.ListPage{}, fmt.Errorf("list: %w", err)
	}
	size := q.PageSize()
	query, args, err := s.listQuery(q, size)
	if err != nil {
		return idempotency.ListPage{}, fmt.Errorf("list: %w", err)
	}
	rows, err := s.pool.QueryContext(ctx, query, args...)
	if err != nil {
		return idempotency.ListPage{}, fmt.Errorf("list: %w", err)
	}
	defer rows.Close()
	var (
		page   idempotency.ListPage
		listed []time.Time
	)
	for rows.Next() {
		var (
			rec idempotency.Record
			at  time.Time
		)
		if err := rows.Scan(append(recordDest(&rec), (*timeDest)(&at))...); err != nil {
			return idempotency.ListPage{}, fmt.Errorf("list: scan: %w", err)
		}
		page.Records, listed = append(page.Records, rec), append(listed, at)
	}
	if err := rows.Err(); err != nil {
		return idempotency.ListPage{}, fmt.Errorf("list: %w", err)
	}
	if len(page.Records) > size {
		page.Records = page.Records[:size]
		page.Next = idempotency.ListPosition{At: listed[size-1], PK: page.Records[size-1].PK}.String()
	}
	return page, nil
}

// listQuery is List's statement for q and its arguments: a page of size
// records and one more, which tells whether another page follows.
func (s *Store) listQuery(q idempotency.ListQuery, size int) (string, []any, error) {
	after, paging, err := idempotency.ParseListPosition(q.After)
	if err != nil {
		return "", nil, err
	}
	var (
		conds []string
		args  []any
	)
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if paging {
		at := arg(s.d.timeArg(after.At))
		conds = append(conds, fmt.Sprintf("(listed_at < %s OR (listed_at = %s AND pk < %s))", at, at, arg(after.PK)))
	}
	if q.Status != "" {
		conds = append(conds, "status = "+arg(string(q.Status)))
	}
	if q.OperationType != "" {
		conds = append(conds, "operation_type = "+arg(q.OperationType))
	}
	if !q.AllTenants {
		conds = append(conds, "tenant = "+arg(q.Tenant))
	}
	switch prefix := idempotency.TargetPrefix(q.QueueManager); {
	case q.QueueManager == "":
	case q.Queue != "":
		conds = append(conds, "target"+s.d.bytewise+" = "+arg(prefix+q.Queue))
	default:
		// The queue manager's targets, "QM1:" to "QM1:<anything>", sort
		// bytewise between "QM1:" and "QM1;" (';' follows ':').
		conds = append(conds, fmt.Sprintf("target%s >= %s AND target%s < %s",
			s.d.bytewise, arg(prefix), s.d.bytewise, arg(q.QueueManager+";")))
	}
	// A record's listed_at is never after its updated_at: "updated before"
	// bounds the index walk on listed_at too, and updated_at then filters
	// what it reads. Since bounds the walk alone (idempotency.ListQuery).
	for _, before := range []time.Time{q.UpdatedBefore, q.Until} {
		if !before.IsZero() {
			at := arg(s.d.timeArg(before))
			conds = append(conds, "listed_at < "+at, "updated_at < "+at)
		}
	}
	if !q.Since.IsZero() {
		conds = append(conds, "listed_at >= "+arg(s.d.timeArg(q.Since)))
	}
	if !q.LiveAt.IsZero() {
		conds = append(conds, s.d.unexpiredSince(arg(s.d.timeArg(q.LiveAt))))
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	query := fmt.Sprintf(`SELECT %s, listed_at FROM idempotency_record%s ORDER BY listed_at DESC, pk DESC LIMIT %d`,
		columns, where, size+1)
	return s.d.bind(query), args, nil
}

// Close implements idempotency.Store: it stops the writer once the batch it
// is committing is answered (writes still waiting fail with ErrClosed) and
// closes the connections.
func (s *Store) Close() error {
	var errs []error
	if s.w != nil {
		errs = append(errs, s.w.close())
	}
	errs = append(errs, s.wal.close())
	if s.writeDB != nil {
		errs = append(errs, s.writeDB.Close())
	}
	errs = append(errs, s.stmts.close(), s.relaxed.close())
	return errors.Join(errs...)
}

// recordDest lists scan destinations for columns, in order.
func recordDest(r *idempotency.Record) []any {
	return []any{&r.PK, &r.OperationType, &r.IdempotencyKey, (*statusDest)(&r.Status), &r.RequestHash,
		(*payloadDest)(&r.ResponsePayload), &r.HTTPStatus, (*timeDest)(&r.CreatedAt), (*timeDest)(&r.UpdatedAt),
		(*timeDest)(&r.ExpiresAt), new(int64), (*millisDest)(&r.LeaseExpiresAt), &r.LeaseToken, &r.Attempt,
		&r.Target, &r.TraceID, &r.DurationMs, &r.ErrorMessage, &r.Progress, &r.Tenant, &r.LeaseHolder}
}

type statusDest idempotency.Status

func (d *statusDest) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*d = statusDest(v)
	case []byte:
		*d = statusDest(v)
	default:
		return fmt.Errorf("status: unexpected %T", src)
	}
	return nil
}

type payloadDest string

func (d *payloadDest) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d = ""
	case string:
		*d = payloadDest(v)
	case []byte:
		*d = payloadDest(v)
	default:
		return fmt.Errorf("response_payload: unexpected %T", src)
	}
	return nil
}

// timeDest reads a timestamp column: a time (PostgreSQL) or epoch
// milliseconds (SQLite).
type timeDest time.Time

func (d *timeDest) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*d = timeDest(v.UTC())
	case int64:
		*d = timeDest(time.UnixMilli(v).UTC())
	default:
		return fmt.Errorf("timestamp: unexpected %T", src)
	}
	return nil
}

type millisDest time.Time

func (d *millisDest) Scan(src any) error {
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("epoch milliseconds: unexpected %T", src)
	}
	*d = millisDest(time.UnixMilli(v).UTC())
	return nil
}
