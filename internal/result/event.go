// Package result owns result events: the CloudEvents 1.0 envelope
// and its data, the publisher port they leave through, and the recent-results
// buffer GET /results reads in embedded mode, with its configuration keys
// results.recent and results.recentMaxBytes (RecentConfig).
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
	// encodedData is Data as encoded once already (NewEncoded), written
	// as it is in place of encoding Data again.
	encodedData json.RawMessage
}

// New wraps data in an event from source ("mqprobe/<instance>").
func New(source string, data Data, now time.Time) Event {
	return Event{SpecVersion: "1.0", ID: uuid.NewString(), Source: source, Type: TypeOf(data.Status),
		Time: now.UTC(), DataContentType: "application/json", Data: data}
}

// NewEncoded is New for data already encoded: encoded is data's JSON (as
// recorded, for a replay with its replay field turned true), or nil to
// encode Data when the event is. The event's JSON carries those bytes as
// they are, so a result is encoded once, and a replay publishes what the
// first execution recorded.
func NewEncoded(source string, data Data, encoded []byte, now time.Time) Event {
	e := New(source, data, now)
	e.encodedData = encoded
	return e
}

// MarshalJSON encodes the envelope, with the data as NewEncoded was given
// it, else encoded from Data.
func (e Event) MarshalJSON() ([]byte, error) {
	type fields Event // Event's fields, without this method
	if e.encodedData == nil {
		return json.Marshal(fields(e))
	}
	// The outer data field hides the embedded one; it comes last, as in
	// Event.
	return json.Marshal(struct {
		fields
		Data json.RawMessage `json:"data"`
	}{fields(e), e.encodedData})
}

// Data is the event's payload, and the body of HTTP responses.
type Data struct {
	OperationType string `json:"operationType"`
	// Tenant is the named tenant the command ran for; empty (absent) for
	// the implicit tenant.
	Tenant         string            `json:"tenant,omitempty"`
	IdempotencyKey string            `json:"idempotencyKey"`
	Status         Status            `json:"status"`
	Replay         bool              `json:"replay"`
	KeyGenerated   bool              `json:"keyGenerated,omitempty"` // no key given: one was generated, nothing dedupes
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
	// Progress is how far a FAILED PRODUCE or CONSUME got; nil otherwise.
	Progress *Progress `json:"progress,omitempty"`
}

// Progress is how far a failed PRODUCE or CONSUME got, over all its
// attempts: Done of Total messages put or got (Total is omitted when
// unbounded), Committed of them committed and checkpointed, the first and
// last of those by MsgId, and whether sending the same command with the
// same key again resumes after them rather than starting over.
type Progress struct {
	Total      int64  `json:"total,omitempty"`
	Done       int64  `json:"done"`
	Committed  int64  `json:"committed"`
	FirstMsgID string `json:"firstMsgId,omitempty"` // base64
	LastMsgID  string `json:"lastMsgId,omitempty"`  // base64
	Resumable  bool   `json:"resumable"`
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

// Error codes that are not MQ reason names (those are mq.Reason.Code's) nor
// the decoder's validation codes (command.Code*, used as they are).
const (
	// CodeKeyReused rejects a command whose key's record has another
	// request hash (409 over HTTP).
	CodeKeyReused = "IDEMPOTENCY_KEY_REUSED"
	// CodeTargetNotFound rejects a command naming no target, or a targetRef
	// that names no profile.
	CodeTargetNotFound = "TARGET_NOT_FOUND"
	// CodeTargetNotAllowed rejects a target outside the allowlist or its
	// profile, an inline target while those are off, or a secret reference
	// that does not resolve.
	CodeTargetNotAllowed = "TARGET_NOT_ALLOWED"
	// CodeInternal fails a command whose handler failed without an MQ reason.
	CodeInternal = "INTERNAL_ERROR"
	// CodeUnsupported rejects an operation this daemon has no handler for.
	CodeUnsupported = "OPERATION_NOT_SUPPORTED"
	// CodeLimitExceeded rejects a command refused by an admission limit
	// (tests.maxConcurrent, tests.maxDuration); 429 over HTTP.
	CodeLimitExceeded = "LIMIT_EXCEEDED"
	// CodeInvalidKey rejects a command whose claim the idempotency engine
	// refused as an invalid argument (key, operation type, request hash or TTL);
	// 400 over HTTP. It is the same code as command.CodeInvalidKey, which
	// the decoder gives keys that are not 1-255 printable ASCII.
	CodeInvalidKey = "INVALID_KEY"
	// CodeInvalidCommand rejects a command the decoder refused with an
	// error that is not a *command.ValidationError (an unknown transport, or
	// a command it could not canonicalize or type); 400 over HTTP.
	CodeInvalidCommand = "INVALID_COMMAND"
	// CodeTestFailed is the error code GET /tests/{id} reports for a TEST
	// whose record is FAILED; its message is the recorded one. No event
	// carries it: the run's own failed event has the failure's code.
	CodeTestFailed = "TEST_FAILED"
)
