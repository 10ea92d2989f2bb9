// Package memory is an in-process idempotency store for tests and
// single-process use; it keeps nothing across restarts.
package memory

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// Store keeps records in a map guarded by one mutex.
type Store struct {
	mu       sync.Mutex
	records  map[string]idempotency.Record
	maxBytes int
}

var _ idempotency.Store = (*Store)(nil)

// DefaultMaxRecordBytes is the largest record a store from New holds: the
// SQL stores' limit, so what runs on the memory store runs on those.
const DefaultMaxRecordBytes = 1 << 20

// New returns an empty store.
func New() *Store { return NewWithLimit(DefaultMaxRecordBytes) }

// NewWithLimit returns an empty store holding records of at most
// maxRecordBytes (idempotency.RecordSize), for tests of a store's limit.
func NewWithLimit(maxRecordBytes int) *Store {
	return &Store{records: map[string]idempotency.Record{}, maxBytes: maxRecordBytes}
}

// Limits implements idempotency.Store.
func (s *Store) Limits() idempotency.Limits {
	return idempotency.Limits{Store: "memory idempotency store", MaxRecordBytes: s.maxBytes}
}

// Begin implements idempotency.Store.
func (s *Store) Begin(_ context.Context, c idempotency.Claim) (idempotency.Record, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, ok := s.records[c.PK]
	if !ok {
		rec := c.Record()
		s.records[c.PK] = rec
		return rec, true, nil
	}
	if !c.Acquirable(prev) {
		return prev, false, nil
	}
	rec := c.Successor(prev)
	s.records[c.PK] = rec
	return rec, true, nil
}

// Update implements idempotency.Store.
func (s *Store) Update(_ context.Context, pk, token string, u idempotency.Update) (idempotency.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[pk]
	if !ok || rec.LeaseToken != token || rec.Status != idempotency.StatusInProgress {
		return idempotency.Record{}, idempotency.ErrLeaseLost
	}
	rec = u.Apply(rec)
	s.records[pk] = rec
	return rec, nil
}

// Get implements idempotency.Store.
func (s *Store) Get(_ context.Context, pk string) (idempotency.Record, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[pk]
	return rec, ok, nil
}

// DeleteExpired implements idempotency.Store.
func (s *Store) DeleteExpired(_ context.Context, now time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for pk, rec := range s.records {
		if rec.Expired(now) {
			delete(s.records, pk)
			n++
		}
	}
	return n, nil
}

// Delete implements idempotency.Store.
func (s *Store) Delete(_ context.Context, d idempotency.Deletion) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[d.PK]
	if !ok || !d.Deletable(rec) {
		return false, nil
	}
	delete(s.records, d.PK)
	return true, nil
}

// List implements idempotency.Store, newest first; Next is the position
// of the last record of a full page.
func (s *Store) List(_ context.Context, q idempotency.ListQuery) (idempotency.ListPage, error) {
	after, paging, err := idempotency.ParseListPosition(q.After)
	if err != nil {
		return idempotency.ListPage{}, fmt.Errorf("list: %w", err)
	}
	// Only the copying holds the lock; the sort, the costly part, does not
	// keep Begin and Update waiting.
	s.mu.Lock()
	var matched []idempotency.Record
	for _, rec := range s.records {
		if (!paging || after.Before(rec)) && q.Matches(rec) {
			matched = append(matched, rec)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(matched, idempotency.Newer)
	var page idempotency.ListPage
	if size := q.PageSize(); len(matched) > size {
		matched = matched[:size]
		page.Next = idempotency.PositionOf(matched[size-1]).String()
	}
	page.Records = matched
	return page, nil
}

// Close implements idempotency.Store.
func (s *Store) Close() error { return nil }
