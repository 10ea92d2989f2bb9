package idempotency

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mqprobe/mqprobe/internal/result"
)

// Status is the state of an idempotency record.
type Status string

// Record states.
const (
	StatusInProgress Status = "IN_PROGRESS"
	StatusCompleted  Status = "COMPLETED"
	StatusFailed     Status = "FAILED"
)

// Record is one idempotency record. Its JSON form uses the record's attribute
// names and formats: ISO-8601 createdAt/updatedAt/expiresAt, epoch-seconds ttl and
// epoch-milliseconds leaseExpiresAt.
type Record struct {
	PK            string
	OperationType string
	// Tenant is the named tenant the record belongs to; empty for the
	// implicit tenant.
	Tenant          string
	IdempotencyKey  string
	Status          Status
	RequestHash     string
	ResponsePayload string // JSON document, set when COMPLETED (and when FAILED with a response)
	HTTPStatus      int
	CreatedAt       time.Time
	UpdatedAt       time.Time
	ExpiresAt       time.Time
	LeaseExpiresAt  time.Time
	LeaseToken      string
	Attempt         int
	Target          string
	TraceID         string
	DurationMs      int64
	ErrorMessage    string
	// Progress is the holder's last checkpoint (for example a PRODUCE's
	// committed count), kept across takeovers so a new attempt can resume.
	Progress string
	// LeaseHolder names the process that claimed the record last: its
	// instance id, as in the CloudEvents source mqprobe/<instance>.
	LeaseHolder string
}

// Stored is the record as a command outcome, without the claim's
// bookkeeping (hash, lease, times): a COMPLETED record's response payload, a
// FAILED record's error message, and IN_PROGRESS for anything else.
func (r Record) Stored() result.Stored {
	switch r.Status {
	case StatusCompleted:
		return result.Stored{Status: result.StatusCompleted, Data: json.RawMessage(r.ResponsePayload)}
	case StatusFailed:
		return result.Stored{Status: result.StatusFailed, Error: r.ErrorMessage}
	}
	return result.Stored{Status: result.StatusInProgress}
}

// TTL is the record's expiry in epoch seconds, the DynamoDB TTL attribute.
func (r Record) TTL() int64 { return r.ExpiresAt.Unix() }

// Expired reports whether the record counts as absent at now.
func (r Record) Expired(now time.Time) bool { return !now.Before(r.ExpiresAt) }

// LeaseAlive reports whether an IN_PROGRESS record's holder still owns it at now.
func (r Record) LeaseAlive(now time.Time) bool { return now.Before(r.LeaseExpiresAt) }

// FormatTime renders t the way records store instants: ISO-8601 UTC, milliseconds.
func FormatTime(t time.Time) string { return t.UTC().Format(isoLayout) }

// ParseTime reads an instant written by FormatTime (or any RFC 3339 time).
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse time %q: %w", s, err)
	}
	return t.UTC(), nil
}

const isoLayout = "2006-01-02T15:04:05.000Z07:00"

// formattedTimeLen is len(FormatTime(t)) without formatting it, which
// costs a record-size check (once per checkpoint) thousands of
// instructions: the layout is fixed-width in UTC for the years 0–9999.
func formattedTimeLen(t time.Time) int {
	if y := t.UTC().Year(); y >= 0 && y <= 9999 {
		return len("2006-01-02T15:04:05.000Z")
	}
	return len(FormatTime(t))
}

type recordJSON struct {
	PK              string `json:"pk"`
	OperationType   string `json:"operationType"`
	Tenant          string `json:"tenant,omitempty"`
	IdempotencyKey  string `json:"idempotencyKey"`
	Status          Status `json:"status"`
	RequestHash     string `json:"requestHash"`
	ResponsePayload string `json:"responsePayload,omitempty"`
	HTTPStatus      int    `json:"httpStatus,omitempty"`
	CreatedAt       string `json:"createdAt"`
	UpdatedAt       string `json:"updatedAt"`
	ExpiresAt       string `json:"expiresAt"`
	TTL             int64  `json:"ttl"`
	LeaseExpiresAt  int64  `json:"leaseExpiresAt"`
	LeaseToken      string `json:"leaseToken,omitempty"`
	LeaseHolder     string `json:"leaseHolder,omitempty"`
	Attempt         int    `json:"attempt"`
	Target          string `json:"target,omitempty"`
	TraceID         string `json:"traceId,omitempty"`
	DurationMs      int64  `json:"durationMs,omitempty"`
	ErrorMessage    string `json:"errorMessage,omitempty"`
	Progress        string `json:"progress,omitempty"`
}

// MarshalJSON writes the record with its attribute names and formats.
func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordJSON{
		PK: r.PK, OperationType: r.OperationType, Tenant: r.Tenant, IdempotencyKey: r.IdempotencyKey,
		Status: r.Status, RequestHash: r.RequestHash, ResponsePayload: r.ResponsePayload,
		HTTPStatus: r.HTTPStatus, CreatedAt: FormatTime(r.CreatedAt), UpdatedAt: FormatTime(r.UpdatedAt),
		ExpiresAt: FormatTime(r.ExpiresAt), TTL: r.TTL(), LeaseExpiresAt: r.LeaseExpiresAt.UnixMilli(),
		LeaseToken: r.LeaseToken, LeaseHolder: r.LeaseHolder, Attempt: r.Attempt, Target: r.Target, TraceID: r.TraceID,
		DurationMs: r.DurationMs, ErrorMessage: r.ErrorMessage, Progress: r.Progress,
	})
}

// UnmarshalJSON reads the form written by MarshalJSON.
func (r *Record) UnmarshalJSON(data []byte) error {
	var j recordJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	times := make([]time.Time, 3)
	for i, s := range []string{j.CreatedAt, j.UpdatedAt, j.ExpiresAt} {
		t, err := ParseTime(s)
		if err != nil {
			return fmt.Errorf("record %s: %w", j.PK, err)
		}
		times[i] = t
	}
	*r = Record{
		PK: j.PK, OperationType: j.OperationType, Tenant: j.Tenant, IdempotencyKey: j.IdempotencyKey,
		Status: j.Status, RequestHash: j.RequestHash, ResponsePayload: j.ResponsePayload,
		HTTPStatus: j.HTTPStatus, CreatedAt: times[0], UpdatedAt: times[1], ExpiresAt: times[2],
		LeaseExpiresAt: time.UnixMilli(j.LeaseExpiresAt).UTC(), LeaseToken: j.LeaseToken,
		LeaseHolder: j.LeaseHolder, Attempt: j.Attempt, Target: j.Target, TraceID: j.TraceID, DurationMs: j.DurationMs,
		ErrorMessage: j.ErrorMessage, Progress: j.Progress,
	}
	return nil
}
