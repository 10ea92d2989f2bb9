package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/problems"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/inflight"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// maxInFlightListed bounds the commands GET /status lists; the rest are
// only counted.
const maxInFlightListed = 100

// observableOps are the operations GET /commands/{operationType}/{key}
// knows; STOP_TEST leaves no record of its own worth reading.
var observableOps = []command.Operation{command.Produce, command.Consume, command.Depth, command.ConnectionTest, command.Test, command.Redrive}

// commandView is GET /commands/{operationType}/{key}'s reply.
type commandView struct {
	OperationType  string             `json:"operationType"`
	IdempotencyKey string             `json:"idempotencyKey"`
	Status         idempotency.Status `json:"status"`
	Attempt        int                `json:"attempt"`
	CreatedAt      string             `json:"createdAt"`
	UpdatedAt      string             `json:"updatedAt"`
	ExpiresAt      string             `json:"expiresAt"`
	Lease          *leaseView         `json:"lease,omitempty"`
	Progress       *progressView      `json:"progress,omitempty"`
	// Result is the body the command route answered: a COMPLETED command's
	// (as a replay answers it) or a FAILED one's.
	Result json.RawMessage `json:"result,omitempty"`
	// PendingOutcome: this instance ran the command (IN_PROGRESS) and
	// knows its outcome, which the store has not recorded yet.
	PendingOutcome *executor.PendingOutcome `json:"pendingOutcome,omitempty"`
}

// pendingOutcomes is what the executor knows but the store has not
// recorded yet; *executor.Executor says.
type pendingOutcomes interface {
	PendingOutcomes() []executor.PendingOutcome
}

// pendingOutcomes lists owner's pending outcomes on this instance.
func (a *api) pendingOutcomes(owner string) []executor.PendingOutcome {
	out := []executor.PendingOutcome{}
	if p, ok := a.cfg.Executor.(pendingOutcomes); ok {
		for _, o := range p.PendingOutcomes() {
			if o.Tenant == owner {
				out = append(out, o)
			}
		}
	}
	return out
}

type leaseView struct {
	Holder    string `json:"holder"`
	ExpiresAt string `json:"expiresAt"`
}

// progressView is how far a command has got. Done and Committed count over
// all attempts; RatePerSec and StartedAt are the running attempt's, known
// only to the instance running it.
type progressView struct {
	Total      int64   `json:"total,omitempty"`
	Done       int64   `json:"done"`
	Committed  int64   `json:"committed"`
	RatePerSec float64 `json:"ratePerSec,omitempty"`
	StartedAt  string  `json:"startedAt,omitempty"`
	FirstMsgID string  `json:"firstMsgId,omitempty"`
	LastMsgID  string  `json:"lastMsgId,omitempty"`
	Resumable  *bool   `json:"resumable,omitempty"`
}

// commandState serves GET /commands/{operationType}/{key}: one of the
// caller's commands as its record has it, with the live progress when this
// instance runs it.
func (a *api) commandState(w http.ResponseWriter, r *http.Request) {
	op, key := command.Operation(r.PathValue("operationType")), r.PathValue("key")
	if !slices.Contains(observableOps, op) {
		names := make([]string, len(observableOps))
		for i, o := range observableOps {
			names[i] = string(o)
		}
		rule := "must be one of " + strings.Join(names, ", ")
		writeProblem(w, r, http.StatusBadRequest, problem{Type: problems.Validation,
			Detail: fmt.Sprintf("operationType %q: %s", op, rule),
			Errors: []result.Problem{{Path: "operationType", Rule: "enum", Message: rule}}})
		return
	}
	if err := idempotency.ValidateKey(key); err != nil {
		writeProblem(w, r, http.StatusBadRequest, problem{Type: problems.Validation, Code: string(command.CodeInvalidKey),
			Detail: "key: " + err.Error(), Errors: []result.Problem{{Path: "key", Rule: "format", Message: err.Error()}}})
		return
	}
	owner := tenant.FromContext(r.Context()).Name
	rec, ok, err := a.cfg.Records.Inspect(r.Context(), string(op), owner, key)
	switch {
	case err != nil:
		a.recordError(w, r, err)
		return
	case !ok:
		writeProblem(w, r, http.StatusNotFound, problem{Type: problems.NotFound,
			Detail: fmt.Sprintf("no %s command with idempotency key %s", op, command.EchoKey(key))})
		return
	}
	writeJSON(w, http.StatusOK, a.commandView(op, owner, rec))
}

func (a *api) commandView(op command.Operation, owner string, rec idempotency.Record) commandView {
	v := stateOfRecord(op, rec)
	if rec.Status == idempotency.StatusInProgress {
		if live := a.liveProgress(op, owner, rec); live != nil {
			v.Progress = live
		}
		for _, o := range a.pendingOutcomes(owner) {
			if o.OperationType == string(op) && o.Key == rec.IdempotencyKey && o.Attempt == rec.Attempt {
				v.PendingOutcome = &o
			}
		}
	}
	return v
}

// RecordState is GET /commands/{operationType}/{key}'s reply as the record
// alone has it, without what only the instance running the command knows
// (its live rate, a pending outcome): what a reader of the store shows,
// such as mqprobe send status in aws mode.
func RecordState(op command.Operation, rec idempotency.Record) ([]byte, error) {
	return json.Marshal(stateOfRecord(op, rec))
}

// stateOfRecord is the command's state as its record says it.
func stateOfRecord(op command.Operation, rec idempotency.Record) commandView {
	v := commandView{OperationType: string(op), IdempotencyKey: rec.IdempotencyKey, Status: rec.Status, Attempt: rec.Attempt,
		CreatedAt: idempotency.FormatTime(rec.CreatedAt), UpdatedAt: idempotency.FormatTime(rec.UpdatedAt),
		ExpiresAt: idempotency.FormatTime(rec.ExpiresAt)}
	switch rec.Status {
	case idempotency.StatusInProgress:
		v.Lease = &leaseView{Holder: rec.LeaseHolder, ExpiresAt: idempotency.FormatTime(rec.LeaseExpiresAt)}
		v.Progress = checkpointProgress(op, rec)
	case idempotency.StatusCompleted:
		v.Result = json.RawMessage(rec.ResponsePayload)
	case idempotency.StatusFailed:
		if rec.ResponsePayload != "" {
			v.Result = json.RawMessage(rec.ResponsePayload)
		}
		v.Progress = recordedFailureProgress(op, rec)
	}
	return v
}

// liveProgress is a running command's progress when this instance runs
// it, else nil.
func (a *api) liveProgress(op command.Operation, owner string, rec idempotency.Record) *progressView {
	if a.cfg.InFlight == nil || !handlers.Describe(op).Checkpoints() {
		return nil
	}
	cmd, ok := a.cfg.InFlight.Get(string(op), owner, rec.IdempotencyKey)
	if !ok || cmd.Attempt != rec.Attempt {
		return nil
	}
	s := cmd.Snapshot(time.Now())
	return &progressView{Total: s.Total, Done: s.Done, Committed: s.Committed, RatePerSec: s.RatePerSec,
		StartedAt: idempotency.FormatTime(s.StartedAt)}
}

// checkpointProgress is what a running command's last checkpoint says is
// committed.
func checkpointProgress(op command.Operation, rec idempotency.Record) *progressView {
	if !handlers.Describe(op).Checkpoints() {
		return nil
	}
	cp, ok := handlers.ReadCheckpoint(op, rec.Progress)
	if !ok {
		return nil
	}
	return &progressView{Done: int64(cp.Committed), Committed: int64(cp.Committed), FirstMsgID: cp.FirstMsgID, LastMsgID: cp.LastMsgID}
}

// recordedFailureProgress is the progress a FAILED record's stored result
// reported, or for a record without one what its checkpoint says.
func recordedFailureProgress(op command.Operation, rec idempotency.Record) *progressView {
	if !handlers.Describe(op).Checkpoints() {
		return nil
	}
	var data struct {
		Progress *result.Progress `json:"progress"`
	}
	if json.Unmarshal([]byte(rec.ResponsePayload), &data) == nil && data.Progress != nil {
		p := data.Progress
		return &progressView{Total: p.Total, Done: p.Done, Committed: p.Committed, FirstMsgID: p.FirstMsgID,
			LastMsgID: p.LastMsgID, Resumable: &p.Resumable}
	}
	cp, ok := handlers.ReadCheckpoint(op, rec.Progress)
	if !ok {
		return nil
	}
	return &progressView{Done: int64(cp.Committed), Committed: int64(cp.Committed), FirstMsgID: cp.FirstMsgID,
		LastMsgID: cp.LastMsgID, Resumable: &cp.Resumable}
}

// inFlightView is GET /status "inFlight": the caller's tenant's commands
// executing on this instance, the longest-running first.
type inFlightView struct {
	Count    int                 `json:"count"`
	Commands []inflight.Snapshot `json:"commands"`
	// Omitted commands are counted but not listed.
	Omitted int `json:"omitted,omitempty"`
}

func (a *api) inFlight(owner string) inFlightView {
	if a.cfg.InFlight == nil {
		return inFlightView{Commands: []inflight.Snapshot{}}
	}
	list, omitted := a.cfg.InFlight.List(owner, maxInFlightListed, time.Now())
	return inFlightView{Count: len(list) + omitted, Commands: list, Omitted: omitted}
}

// commandStatePath documents GET /commands/{operationType}/{key}.
func commandStatePath() map[string]any {
	str := map[string]any{"type": "string"}
	when := map[string]any{"type": "string", "format": "date-time"}
	ops := make([]any, len(observableOps))
	for i, o := range observableOps {
		ops[i] = string(o)
	}
	view := map[string]any{
		"type":     "object",
		"required": []any{"operationType", "idempotencyKey", "status", "attempt", "createdAt", "updatedAt", "expiresAt"},
		"properties": map[string]any{
			"operationType":  map[string]any{"enum": ops},
			"idempotencyKey": str,
			"status":         map[string]any{"enum": []any{"IN_PROGRESS", "COMPLETED", "FAILED"}},
			"attempt":        map[string]any{"type": "integer", "minimum": 1},
			"createdAt":      when, "updatedAt": when, "expiresAt": when,
			"lease": map[string]any{"type": "object", "description": "Only while IN_PROGRESS: the instance holding the command (as in the result events' source mqprobe/<instance>) and when its lease runs out unless renewed.",
				"properties": map[string]any{"holder": str, "expiresAt": when}},
			"progress": map[string]any{"type": "object",
				"description": "PRODUCE and CONSUME: live while IN_PROGRESS on the instance answering, else from the last checkpoint (done = committed); on FAILED, the failure's progress.",
				"properties": map[string]any{
					"total":      map[string]any{"type": "integer", "minimum": 1, "description": "PRODUCE batch.count, CONSUME maxMessages."},
					"done":       map[string]any{"type": "integer", "minimum": 0, "description": "Messages put or got so far, over all attempts."},
					"committed":  map[string]any{"type": "integer", "minimum": 0, "description": "Of those, committed and checkpointed."},
					"ratePerSec": map[string]any{"type": "number", "description": "Messages per second of the running attempt."},
					"startedAt":  map[string]any{"type": "string", "format": "date-time", "description": "When the running attempt started."},
					"firstMsgId": str, "lastMsgId": str,
					"resumable": map[string]any{"type": "boolean", "description": "FAILED only: sending the same command with the same key again resumes after the committed messages."},
				}},
			"result":         map[string]any{"description": "COMPLETED or FAILED: the body the command route answered.", "allOf": []any{ref("ResultData")}},
			"pendingOutcome": pendingOutcomeSchema("Only while IN_PROGRESS on the instance answering: the command ran and its outcome (status) is known, but the idempotency store has not recorded it yet; the instance retries until it does, then publishes the result."),
		},
	}
	params := []any{
		map[string]any{"name": "operationType", "in": "path", "required": true, "schema": map[string]any{"enum": ops}},
		map[string]any{"name": "key", "in": "path", "required": true, "description": "The idempotency key (1-255 printable ASCII).",
			"schema": map[string]any{"type": "string", "minLength": 1, "maxLength": 255}},
	}
	return map[string]any{"get": map[string]any{
		"operationId": "getCommand",
		"summary":     "One of the caller's commands: its record, and its live progress when this instance runs it.",
		"parameters":  params,
		"responses": map[string]any{
			"200": map[string]any{"description": "OK", "content": jsonContent(view)},
			"400": problemResponse("operationType is not an operation with records, or key is not a valid idempotency key.", nil),
			"404": problemResponse("The caller's tenant has no record of this command (never run, or expired).", nil),
			"503": problemResponse("The idempotency store is unavailable.", retryAfter),
		},
	}}
}

// pendingOutcomeSchema documents an executor.PendingOutcome.
func pendingOutcomeSchema(description string) map[string]any {
	str := map[string]any{"type": "string"}
	return map[string]any{"type": "object", "description": description,
		"required": []any{"operationType", "idempotencyKey", "status", "attempt", "since", "cause"},
		"properties": map[string]any{
			"operationType": str, "tenant": str, "idempotencyKey": str,
			"status":  map[string]any{"enum": []any{"COMPLETED", "FAILED"}, "description": "The outcome waiting to be recorded."},
			"attempt": map[string]any{"type": "integer", "minimum": 1},
			"since":   map[string]any{"type": "string", "format": "date-time", "description": "When the first write of it failed."},
			"cause":   map[string]any{"type": "string", "description": "The store's first error."},
		}}
}
