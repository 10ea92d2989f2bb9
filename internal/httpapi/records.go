package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/isoduration"
	"github.com/mqprobe/mqprobe/internal/problems"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// Records inspects, lists and evicts idempotency records;
// *idempotency.Engine is one.
type Records interface {
	Inspect(ctx context.Context, operationType, tenant, key string) (idempotency.Record, bool, error)
	List(ctx context.Context, q idempotency.RecordQuery) (idempotency.RecordPage, error)
	Evict(ctx context.Context, req idempotency.EvictRequest) (idempotency.Record, error)
}

// expiryHeader advertises when a keyed command's record expires: after it
// the key is free and a repeat executes again.
const expiryHeader = "Idempotency-Expiry"

// setExpiry sets the Idempotency-Expiry header to expiresAt as the record
// stores it, unless it is unknown (zero).
func setExpiry(w http.ResponseWriter, expiresAt time.Time) {
	if !expiresAt.IsZero() {
		w.Header().Set(expiryHeader, idempotency.FormatTime(expiresAt))
	}
}

func (a *api) registerRecords(mux *http.ServeMux) {
	if a.cfg.Records == nil {
		return
	}
	mux.HandleFunc("GET /idempotency", a.replyWithin(a.listRecords))
	mux.HandleFunc("GET /idempotency/{operationType}/{key}", a.replyWithin(a.inspectRecord))
	mux.HandleFunc("DELETE /idempotency/{operationType}/{key}", a.replyWithin(a.evictRecord))
}

// recordView is a record as the API shows it: everything but the lease
// token, which would let its reader write as the holder.
type recordView struct {
	OperationType  string          `json:"operationType"`
	Tenant         string          `json:"tenant,omitempty"`
	IdempotencyKey string          `json:"idempotencyKey"`
	Status         string          `json:"status"`
	Attempt        int             `json:"attempt"`
	RequestHash    string          `json:"requestHash"`
	CreatedAt      string          `json:"createdAt"`
	UpdatedAt      string          `json:"updatedAt"`
	ExpiresAt      string          `json:"expiresAt"`
	LeaseExpiresAt string          `json:"leaseExpiresAt,omitempty"`
	LeaseHolder    string          `json:"leaseHolder,omitempty"`
	Progress       json.RawMessage `json:"progress,omitempty"`
	Target         string          `json:"target,omitempty"`
	TraceID        string          `json:"traceId,omitempty"`
	DurationMs     int64           `json:"durationMs,omitempty"`
	ErrorMessage   string          `json:"errorMessage,omitempty"`
	HTTPStatus     int             `json:"httpStatus,omitempty"`
	Response       json.RawMessage `json:"response,omitempty"`
}

// RecordView returns the public form of rec (no lease token): the body of
// GET /idempotency/{operationType}/{key}, also printed by the CLI.
func RecordView(rec idempotency.Record) any {
	v := recordView{OperationType: rec.OperationType, Tenant: rec.Tenant, IdempotencyKey: rec.IdempotencyKey,
		Status: string(rec.Status), Attempt: rec.Attempt, RequestHash: rec.RequestHash,
		CreatedAt: idempotency.FormatTime(rec.CreatedAt), UpdatedAt: idempotency.FormatTime(rec.UpdatedAt),
		ExpiresAt: idempotency.FormatTime(rec.ExpiresAt), Progress: jsonOrString(rec.Progress), Target: rec.Target,
		TraceID: rec.TraceID, DurationMs: rec.DurationMs, ErrorMessage: rec.ErrorMessage}
	switch rec.Status {
	case idempotency.StatusInProgress:
		v.LeaseExpiresAt, v.LeaseHolder = idempotency.FormatTime(rec.LeaseExpiresAt), rec.LeaseHolder
	case idempotency.StatusCompleted, idempotency.StatusFailed:
		v.HTTPStatus, v.Response = rec.HTTPStatus, jsonOrString(rec.ResponsePayload)
	}
	return v
}

// jsonOrString embeds s as it is when it is a JSON document (checkpoints
// and responses are), else as a JSON string; nothing when empty.
func jsonOrString(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	quoted, _ := json.Marshal(s)
	return quoted
}

// onlyParams answers 400 naming the first query parameter of r that is
// not one of allowed, and reports whether all were.
func (a *api) onlyParams(w http.ResponseWriter, r *http.Request, route string, allowed ...string) bool {
	params := slices.Sorted(maps.Keys(r.URL.Query()))
	for _, name := range params {
		if !slices.Contains(allowed, name) {
			rule := "is not a parameter of " + route
			if len(allowed) > 0 {
				rule += fmt.Sprintf(" (use %v)", allowed)
			}
			a.badParam(w, r, name, rule)
			return false
		}
	}
	return true
}

// inspectRecord shows one of the caller's records.
func (a *api) inspectRecord(w http.ResponseWriter, r *http.Request) {
	if !a.onlyParams(w, r, "GET /idempotency/{operationType}/{key}") {
		return
	}
	op, key := r.PathValue("operationType"), r.PathValue("key")
	rec, ok, err := a.cfg.Records.Inspect(r.Context(), op, tenant.FromContext(r.Context()).Name, key)
	switch {
	case err != nil:
		a.recordError(w, r, err)
	case !ok:
		writeProblem(w, r, http.StatusNotFound, problem{Detail: "no record of " + op + " key " + key, IdempotencyKey: key})
	default:
		setExpiry(w, rec.ExpiresAt)
		writeJSON(w, http.StatusOK, RecordView(rec))
	}
}

// listQueryParams are the query parameters GET /idempotency accepts.
var listQueryParams = []string{"status", "operationType", "target", "since", "until", "olderThan", "limit", "cursor"}

// listRecords pages through the caller's records.
func (a *api) listRecords(w http.ResponseWriter, r *http.Request) {
	if !a.onlyParams(w, r, "GET /idempotency", listQueryParams...) {
		return
	}
	params := r.URL.Query()
	q := idempotency.RecordQuery{Status: idempotency.Status(params.Get("status")), OperationType: params.Get("operationType"),
		Target: params.Get("target"), Tenant: tenant.FromContext(r.Context()).Name, Cursor: params.Get("cursor")}
	for _, bound := range []struct {
		name string
		at   *time.Time
	}{{"since", &q.Since}, {"until", &q.Until}} {
		if s := params.Get(bound.name); s != "" {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				a.badParam(w, r, bound.name, "must be an RFC 3339 instant like 2026-11-27T09:00:00Z (got "+strconv.Quote(s)+")")
				return
			}
			*bound.at = t
		}
	}
	if s := params.Get("olderThan"); s != "" {
		d, err := isoduration.Parse(s)
		if err != nil {
			a.badParam(w, r, "olderThan", "must be an ISO 8601 duration like PT10M (got "+strconv.Quote(s)+")")
			return
		}
		q.OlderThan = d
	}
	if s := params.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			a.badParam(w, r, "limit", fmt.Sprintf("must be an integer from 1 to %d (got %q)", idempotency.MaxListLimit, s))
			return
		}
		q.Limit = n
	}
	page, err := a.cfg.Records.List(r.Context(), q)
	if err != nil {
		a.recordError(w, r, err)
		return
	}
	views := make([]any, len(page.Records))
	for i, rec := range page.Records {
		views[i] = RecordView(rec)
	}
	body := map[string]any{"records": views, "nextCursor": page.Cursor}
	if page.Scan {
		body["scan"] = true
	}
	writeJSON(w, http.StatusOK, body)
}

// evictRecord deletes one of the caller's records, refusing a live lease
// unless ?force=true.
func (a *api) evictRecord(w http.ResponseWriter, r *http.Request) {
	if !a.onlyParams(w, r, "DELETE /idempotency/{operationType}/{key}", "force") {
		return
	}
	force := false
	if s := r.URL.Query().Get("force"); s != "" {
		var err error
		if force, err = strconv.ParseBool(s); err != nil {
			a.badParam(w, r, "force", "must be true or false (got "+strconv.Quote(s)+")")
			return
		}
	}
	key := r.PathValue("key")
	rec, err := a.cfg.Records.Evict(r.Context(), idempotency.EvictRequest{OperationType: r.PathValue("operationType"),
		Tenant: tenant.FromContext(r.Context()).Name, IdempotencyKey: key, Force: force, By: "http " + r.RemoteAddr})
	var resumable *idempotency.ResumableError
	switch {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case errors.Is(err, idempotency.ErrNoRecord):
		writeProblem(w, r, http.StatusNotFound, problem{Detail: err.Error(), IdempotencyKey: key})
	case errors.Is(err, idempotency.ErrLeaseAlive):
		setRetryAfter(w, time.Until(rec.LeaseExpiresAt))
		setExpiry(w, rec.ExpiresAt)
		writeProblem(w, r, http.StatusConflict, problem{Type: problems.LeaseAlive, Code: codeLeaseAlive, Title: "Record is held by a running command",
			Detail: err.Error() + "; its holder is still working and a new claim would run the command a second time. " +
				"Retry after the lease ends, or add ?force=true to evict it anyway.", IdempotencyKey: key})
	case errors.As(err, &resumable):
		p := problem{Type: problems.Resumable, Code: codeResumable, Title: "Record holds a resumable checkpoint",
			Detail: err.Error() + " (putting or getting those messages again). Resend the command with the same key to " +
				"resume it, or add ?force=true to evict it anyway.", IdempotencyKey: key}
		if resumable.Committed >= 0 {
			p.Committed = &resumable.Committed
		}
		setExpiry(w, rec.ExpiresAt)
		writeProblem(w, r, http.StatusConflict, p)
	case errors.Is(err, idempotency.ErrRecordChanged):
		writeProblem(w, r, http.StatusConflict, problem{Type: problems.RecordChanged, Code: codeRecordChanged, Title: "Record changed while evicting",
			Detail: err.Error() + "; inspect it again before deciding.", IdempotencyKey: key})
	default:
		a.recordError(w, r, err)
	}
}

func (a *api) badParam(w http.ResponseWriter, r *http.Request, name, rule string) {
	writeProblem(w, r, http.StatusBadRequest, problem{Type: problems.Validation, Detail: name + " " + rule,
		Errors: []result.Problem{{Path: name, Rule: rule, Message: name + " " + rule}}})
}

// recordError answers a failed record operation: 400 naming the argument
// that broke a rule, else 503.
func (a *api) recordError(w http.ResponseWriter, r *http.Request, err error) {
	var arg *idempotency.ArgumentError
	if errors.As(err, &arg) {
		a.badParam(w, r, arg.Arg, arg.Rule)
		return
	}
	setRetryAfter(w, time.Second)
	writeProblem(w, r, http.StatusServiceUnavailable, problem{Type: problems.Unavailable, Detail: err.Error()})
}

// expiryHeaders documents Idempotency-Expiry on the replies that carry it.
var expiryHeaders = map[string]any{expiryHeader: map[string]any{
	"description": "When the command's idempotency record expires (RFC 3339, UTC, milliseconds: the record's expiresAt); until then a repeat with the key replays or is refused, after it the command executes again.",
	"schema":      map[string]any{"type": "string", "format": "date-time"}}}

// withHeaders returns the union of header maps.
func withHeaders(headers ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, h := range headers {
		maps.Copy(out, h)
	}
	return out
}

// recordSchema is the JSON Schema of recordView.
var recordSchema = map[string]any{
	"description": "An idempotency record as the API shows it; the lease token is never shown.",
	"type":        "object",
	"required":    []any{"operationType", "idempotencyKey", "status", "attempt", "requestHash", "createdAt", "updatedAt", "expiresAt"},
	"properties": map[string]any{
		"operationType":  map[string]any{"type": "string"},
		"tenant":         map[string]any{"type": "string", "description": "The named tenant; absent for the implicit one."},
		"idempotencyKey": map[string]any{"type": "string"},
		"status":         map[string]any{"type": "string", "enum": []any{"IN_PROGRESS", "COMPLETED", "FAILED"}},
		"attempt":        map[string]any{"type": "integer", "minimum": 1},
		"requestHash":    map[string]any{"type": "string"},
		"createdAt":      map[string]any{"type": "string", "format": "date-time"},
		"updatedAt":      map[string]any{"type": "string", "format": "date-time", "description": "Last write: claim, heartbeat, checkpoint or outcome."},
		"expiresAt":      map[string]any{"type": "string", "format": "date-time"},
		"leaseExpiresAt": map[string]any{"type": "string", "format": "date-time", "description": "IN_PROGRESS only: until when the holder owns the record without another heartbeat."},
		"leaseHolder":    map[string]any{"type": "string", "description": "IN_PROGRESS only: the instance holding the lease (as in result events' source, mqprobe/<instance>)."},
		"progress":       map[string]any{"description": "The holder's last checkpoint (for example a PRODUCE's committed count)."},
		"target":         map[string]any{"type": "string"},
		"traceId":        map[string]any{"type": "string"},
		"durationMs":     map[string]any{"type": "integer"},
		"errorMessage":   map[string]any{"type": "string", "description": "FAILED only."},
		"httpStatus":     map[string]any{"type": "integer", "description": "COMPLETED: the status a replay answers; FAILED: the status the failure was answered with."},
		"response":       map[string]any{"description": "COMPLETED: the recorded result a replay answers; FAILED: the failure's result, for reading (a repeat runs again).", "$ref": "#/components/schemas/ResultData"},
	},
}

// recordPaths are the OpenAPI path items of the record routes.
func recordPaths() map[string]any {
	pathParams := []any{
		map[string]any{"name": "operationType", "in": "path", "required": true, "schema": map[string]any{"type": "string", "pattern": "^[A-Z0-9_]+$"}},
		map[string]any{"name": "key", "in": "path", "required": true, "schema": map[string]any{"type": "string", "minLength": 1, "maxLength": 255}},
	}
	return map[string]any{
		"/idempotency": map[string]any{"get": map[string]any{
			"operationId": "listRecords",
			"summary":     "One page of the caller's tenant's unexpired idempotency records, filtered; follow nextCursor for the next.",
			"parameters": []any{
				map[string]any{"name": "status", "in": "query", "schema": map[string]any{"type": "string", "enum": []any{"IN_PROGRESS", "COMPLETED", "FAILED"}}},
				map[string]any{"name": "operationType", "in": "query", "schema": map[string]any{"type": "string"}},
				map[string]any{"name": "target", "in": "query", "description": "Only the commands against this queue manager (QM1) or queue (QM1:DEV.QUEUE.1, as a record's target shows it).",
					"schema": map[string]any{"type": "string", "example": "QM1:DEV.QUEUE.1"}},
				map[string]any{"name": "since", "in": "query", "description": "Only records updated at or after this RFC 3339 instant.",
					"schema": map[string]any{"type": "string", "format": "date-time"}},
				map[string]any{"name": "until", "in": "query", "description": "Only records updated before this RFC 3339 instant.",
					"schema": map[string]any{"type": "string", "format": "date-time"}},
				map[string]any{"name": "olderThan", "in": "query", "description": "Only records not updated for this ISO 8601 duration (PT10M): with status=IN_PROGRESS, commands whose holder stopped heartbeating.",
					"schema": map[string]any{"type": "string", "example": "PT10M"}},
				map[string]any{"name": "limit", "in": "query", "description": "Records per page (default 100).", "schema": map[string]any{"type": "integer", "minimum": 1, "maximum": idempotency.MaxListLimit}},
				map[string]any{"name": "cursor", "in": "query", "description": "The nextCursor of the previous page.", "schema": map[string]any{"type": "string"}},
			},
			"responses": map[string]any{
				"200": map[string]any{"description": "A page, newest first (by the last update; on DynamoDB a running record by its claim). " +
					"A page is full unless the records end, except where scan says otherwise.", "content": jsonContent(map[string]any{
					"type": "object", "required": []any{"records", "nextCursor"}, "properties": map[string]any{
						"records":    map[string]any{"type": "array", "items": ref("IdempotencyRecord")},
						"nextCursor": map[string]any{"type": "string", "description": "Empty on the last page."},
						"scan": map[string]any{"type": "boolean", "description": "Present and true when no index serves the filters " +
							"(DynamoDB without its listing indexes): the page read the table, in its own order, and may be short, even empty, while nextCursor is set."}}})},
				"400": problemResponse("A parameter breaks its rule (the problem names it), or is unknown.", nil),
				"503": problemResponse("The idempotency store is unavailable.", retryAfter),
			},
		}},
		"/idempotency/{operationType}/{key}": map[string]any{
			"get": map[string]any{
				"operationId": "getRecord", "summary": "The caller's tenant's idempotency record of an operation type and key.", "parameters": pathParams,
				"responses": map[string]any{
					"200": map[string]any{"description": "The record.", "headers": expiryHeaders, "content": jsonContent(ref("IdempotencyRecord"))},
					"400": problemResponse("The operation type or key breaks its rule, or a query parameter is unknown (it takes none).", nil),
					"404": problemResponse("No record, or it expired.", nil),
					"503": problemResponse("The idempotency store is unavailable.", retryAfter),
				},
			},
			"delete": map[string]any{
				"operationId": "evictRecord",
				"summary":     "Evict the caller's tenant's record so the next command with the key executes afresh; audited.",
				"parameters": append(slices.Clone(pathParams), map[string]any{"name": "force", "in": "query",
					"description": "Evict a record the eviction would otherwise refuse: an IN_PROGRESS record whose lease is alive (its holder may still be running, and the next copy of the command then runs alongside it), or a resumable one (the next copy then starts over and repeats the committed messages).",
					"schema":      map[string]any{"type": "boolean", "default": false}}),
				"responses": map[string]any{
					"204": map[string]any{"description": "Evicted; the next command with the key executes afresh. Only the answering instance's local cache forgets the record: " + idempotency.EvictCacheNote + "."},
					"400": problemResponse("The operation type, key or force breaks its rule, or a query parameter is unknown.", nil),
					"404": problemResponse("No record, or it expired.", nil),
					"409": problemResponse("The record is IN_PROGRESS with a live lease (type lease-alive: retry after Retry-After, when the lease ends, or use force=true); "+
						"or it is FAILED, or IN_PROGRESS with an expired lease, and holds a checkpoint the next copy of the command resumes from (type resumable, naming the committed messages; resend the command to resume, or use force=true); "+
						"or it was claimed again, or its lease renewed, while evicting (type record-changed).", withHeaders(retryAfter, expiryHeaders)),
					"503": problemResponse("The idempotency store is unavailable.", retryAfter),
				},
			},
		},
	}
}
