// Package command owns the command contract: the JSON Schemas in
// configs/schemas (the single source of truth for shapes, ranges and
// defaults), envelope unwrapping (raw, SNS notification, EventBridge event),
// idempotency-key sources and missing-key policies, the 256 KiB limit, and
// the request hash over the validated command with defaults applied.
package command

import "fmt"

// Operation is a command's operationType.
type Operation string

// Operations.
const (
	Produce        Operation = "PRODUCE"
	Consume        Operation = "CONSUME"
	Depth          Operation = "DEPTH"
	ConnectionTest Operation = "CONNECTION_TEST"
	Test           Operation = "TEST"
	StopTest       Operation = "STOP_TEST"
	Redrive        Operation = "REDRIVE"
)

// Operations lists every operation in a stable order.
var Operations = []Operation{Produce, Consume, Depth, ConnectionTest, Test, StopTest, Redrive}

// Valid reports whether o is a known operation.
func (o Operation) Valid() bool {
	for _, known := range Operations {
		if o == known {
			return true
		}
	}
	return false
}

// Command is a validated command with every default applied. Which fields
// are set depends on OperationType; the schema of that operation decides.
type Command struct {
	OperationType  Operation         `json:"operationType"`
	IdempotencyKey string            `json:"idempotencyKey,omitempty"`
	Target         *Target           `json:"target,omitempty"`
	TargetRef      string            `json:"targetRef,omitempty"`
	Queue          string            `json:"queue,omitempty"` // with TargetRef: a queue the profile allows
	ExpirySeconds  int               `json:"expirySeconds,omitempty"`
	Tags           map[string]string `json:"tags,omitempty"`

	// PRODUCE and TEST
	Batch   *Batch            `json:"batch,omitempty"`
	Payload *Payload          `json:"payload,omitempty"`
	MQProps *MQProps          `json:"mqProps,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// CONSUME
	MaxMessages int  `json:"maxMessages,omitempty"`
	WaitSeconds *int `json:"waitSeconds,omitempty"`
	BrowseOnly  bool `json:"browseOnly,omitempty"`
	// IncludePayloads nil is true: the schema gives it no default so that
	// commands from before it keep their request hash.
	IncludePayloads *bool        `json:"includePayloads,omitempty"`
	Selector        *Selector    `json:"selector,omitempty"`
	Transaction     *Transaction `json:"transaction,omitempty"`
	Ack             Ack          `json:"ack,omitempty"`

	// DEPTH
	Thresholds *Thresholds `json:"thresholds,omitempty"`

	// TEST and STOP_TEST
	DurationSeconds int    `json:"durationSeconds,omitempty"`
	Count           int    `json:"count,omitempty"`
	ReplyQueue      string `json:"replyQueue,omitempty"`
	// Mode is TEST's mode: "" (loop, the default; the schema gives no
	// default so that commands from before it keep their request hash) or
	// "requestReply".
	Mode            string `json:"mode,omitempty"`
	ProgressSeconds int    `json:"progressSeconds,omitempty"` // TEST: seconds between progress events
	TestID          string `json:"testId,omitempty"`

	// REDRIVE
	DryRun      bool           `json:"dryRun,omitempty"`
	Destination string         `json:"destination,omitempty"`
	Filter      *RedriveFilter `json:"filter,omitempty"`
	TxSize      int            `json:"txSize,omitempty"`
}

// ReadOnly reports whether running c changes nothing on the queue manager:
// DEPTH, CONNECTION_TEST, a CONSUME that only browses and a REDRIVE dry
// run. Running one twice costs a second answer, never a second effect.
func (c Command) ReadOnly() bool {
	switch c.OperationType {
	case Depth, ConnectionTest:
		return true
	case Consume:
		return c.BrowseOnly
	case Redrive:
		return c.DryRun
	}
	return false
}

// RedriveFilter picks the dead-lettered messages REDRIVE moves; every
// condition set must hold.
type RedriveFilter struct {
	// Reasons are MQDLH reason codes: JSON numbers (float64) or IBM names
	// (strings), as the schema admits.
	Reasons        []any    `json:"reasons,omitempty"`
	OriginalQueues []string `json:"originalQueues,omitempty"` // * and ? patterns
	MinAgeSeconds  int      `json:"minAgeSeconds,omitempty"`
	MaxMessages    int      `json:"maxMessages,omitempty"`
}

// Thresholds are DEPTH's health thresholds; nil fields are not judged.
type Thresholds struct {
	MaxDepthShare              *float64 `json:"maxDepthShare,omitempty"`
	MaxOldestMessageAgeSeconds *float64 `json:"maxOldestMessageAgeSeconds,omitempty"`
}

// Target names a queue manager and queue inline.
type Target struct {
	QueueManager string `json:"queueManager"`
	Queue        string `json:"queue"`
	Channel      string `json:"channel,omitempty"`
	ConnName     string `json:"connName,omitempty"`
	CCDTURL      string `json:"ccdtUrl,omitempty"`
	SSL          *SSL   `json:"ssl,omitempty"`
	Auth         *Auth  `json:"auth,omitempty"`
}

// String is "QM:QUEUE", the form results and records show.
func (t Target) String() string { return fmt.Sprintf("%s:%s", t.QueueManager, t.Queue) }

// SSL is a target's TLS settings; the key repository is a reference, never
// a secret. It holds the trusted CA certificates too: IBM MQ's C client has
// no separate trust store.
type SSL struct {
	Enabled     bool   `json:"enabled"`
	CipherSpec  string `json:"cipherSpec,omitempty"`
	KeyStoreRef string `json:"keyStoreRef,omitempty"`
}

// Auth is a target's credentials; the password is a reference (env:, file:,
// secret://), never the value.
type Auth struct {
	User        string `json:"user,omitempty"`
	PasswordRef string `json:"passwordRef,omitempty"`
}

// Batch is PRODUCE's size and pacing.
type Batch struct {
	Count            int         `json:"count,omitempty"` // PRODUCE only; TEST counts at the top level
	MessageSizeBytes int         `json:"messageSizeBytes"`
	RateLimitPerSec  *int        `json:"rateLimitPerSec"` // nil: as fast as possible
	Transaction      Transaction `json:"transaction"`
}

// Transaction is syncpoint use: commit every TxSize messages when enabled.
type Transaction struct {
	Enabled bool `json:"enabled"`
	TxSize  int  `json:"txSize"`
}

// PayloadMode selects how PRODUCE builds message bodies.
type PayloadMode string

// Payload modes.
const (
	PayloadRandom   PayloadMode = "random"
	PayloadFixed    PayloadMode = "fixed"
	PayloadTemplate PayloadMode = "template"
)

// Payload describes message bodies.
type Payload struct {
	Mode        PayloadMode `json:"mode"`
	FixedBase64 string      `json:"fixedBase64,omitempty"`
	Template    string      `json:"template,omitempty"` // {{seq}}, {{uuid}}, {{timestamp}}
}

// CorrelIDMode selects the CorrelId PRODUCE sets.
type CorrelIDMode string

// CorrelId modes.
const (
	CorrelNone      CorrelIDMode = "none"
	CorrelEchoMsgID CorrelIDMode = "echoMsgId"
	CorrelFixed     CorrelIDMode = "fixed"
)

// MQProps are the MQMD fields PRODUCE sets.
type MQProps struct {
	Persistence         string       `json:"persistence"` // persistent | nonpersistent
	Priority            int          `json:"priority"`    // 0–9
	ExpiryMs            int64        `json:"expiryMs"`    // 0: unlimited
	CorrelIDMode        CorrelIDMode `json:"correlIdMode"`
	FixedCorrelIDBase64 string       `json:"fixedCorrelIdBase64,omitempty"`
}

// Selector picks messages by MsgId and/or CorrelId.
type Selector struct {
	CorrelIDBase64 string `json:"correlIdBase64,omitempty"`
	MsgIDBase64    string `json:"msgIdBase64,omitempty"`
}

// Ack is what CONSUME does with what it got.
type Ack string

// Ack modes.
const (
	AckCommit   Ack = "commit"
	AckRollback Ack = "rollback"
	AckNone     Ack = "none"
)
