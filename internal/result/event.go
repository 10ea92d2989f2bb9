// Package result owns result events (SPEC §4): the CloudEvents 1.0 envelope
// and its data, the publisher port they leave through, and the recent-results
// buffer GET /results reads in embedded mode.
package result

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Type is a CloudEvents type.
type Type string

// Event types.
const (
	TypeCompleted Type = "mqprobe.command.completed"
	TypeFailed    Type = "mqprobe.command.failed"
	TypeRejected  Type = "mqprobe.command.rejected"
	TypeProgress  Type = "mqprobe.command.progress"
)

// Status is data.status.
type Status string

// Statuses, one per event type.
const (
	StatusCompleted  Status = "COMPLETED"
	StatusFailed     Status = "FAILED"
	StatusRejected   Status = "REJECTED"
	StatusInProgress Status = "IN_PROGRESS"
)

// TypeOf returns the event type that carries status.
func TypeOf(s Status) Type {
	switch s {
	case StatusCompleted:
		return TypeCompleted
	case StatusFailed:
		return TypeFailed
	case StatusRejected:
		return TypeRejected
	}
	return TypeProgress
}

// Event is a CloudEvents 1.0 structured-mode event.
type Event struct {
	SpecVersion     string    `json:"specversion"`
	ID              string    `json:"id"`
	Source          string    `json:"source"`
	Type            Type      `json:"type"`
	Time            time.Time `json:"time"`
	DataContentType string    `json:"datacontenttype"`
	// TraceParent is the W3C trace context (CloudEvents distributed-tracing
	// extension).
	TraceParent string `json:"traceparent,omitempty"`
	Data        Data   `json:"data"`
}

// New wraps data in an event from source ("mqprobe/<instance>").
func New(source string, data Data, now time.Time) Event {
	return Event{SpecVersion: "1.0", ID: uuid.NewString(), Source: source, Type: TypeOf(data.Status),
		Time: now.UTC(), DataContentType: "application/json", Data: data}
}

// Data is the event's payload, and the body of HTTP responses.
type Data struct {
	OperationType  string            `json:"operationType"`
	IdempotencyKey string            `json:"idempotencyKey"`
	Status         Status            `json:"status"`
	Replay         bool              `json:"replay"`
	RequestHash    string            `json:"requestHash,omitempty"`
	Target         string            `json:"target,omitempty"`
	Attempt        int               `json:"attempt,omitempty"`
	StartedAt      *time.Time        `json:"startedAt,omitempty"`
	FinishedAt     *time.Time        `json:"finishedAt,omitempty"`
	DurationMs     int64             `json:"durationMs"`
	Result         json.RawMessage   `json:"result"`
	Error          *Error            `json:"error"`
	Tags           map[string]string `json:"tags"`
	// RawBody is the start of a rejected command's body, for diagnosis.
	RawBody string `json:"rawBody,omitempty"`
}

// Error says why a command failed or was rejected. Reason is the MQ reason
// code for MQ failures.
type Error struct {
	Code      string    `json:"code"`
	Reason    int32     `json:"reason,omitempty"`
	Message   string    `json:"message"`
	Transient bool      `json:"transient,omitempty"`
	Problems  []Problem `json:"problems,omitempty"`
}

// Problem is one validation failure: where, which rule, and what.
type Problem struct {
	Path    string `json:"path"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Error codes that are not MQ reason names.
const (
	CodeKeyReused        = "IDEMPOTENCY_KEY_REUSED"
	CodeTargetNotFound   = "TARGET_NOT_FOUND"
	CodeTargetNotAllowed = "TARGET_NOT_ALLOWED"
	CodeInternal         = "INTERNAL_ERROR"
	CodeUnsupported      = "OPERATION_NOT_SUPPORTED"
	CodeLimitExceeded    = "LIMIT_EXCEEDED"
)
