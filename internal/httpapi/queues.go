package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// Bounds of the read-only queue views.
const (
	// DefaultBrowseMessages and MaxBrowseMessages are a browse page's
	// size when the caller names none, and the most it may name.
	DefaultBrowseMessages = 20
	MaxBrowseMessages     = 100
	// DefaultBrowsePayloadBytes and MaxBrowsePayloadBytes bound the payload
	// bytes shown of each browsed message.
	DefaultBrowsePayloadBytes = 1024
	MaxBrowsePayloadBytes     = 16 * 1024
	// maxListedQueues is the most queues one GET /queues reads.
	maxListedQueues = 100
	// queueViewTimeout bounds the MQ work of one queue view request.
	queueViewTimeout = 15 * time.Second
)

// QueueViews serves the read-only queue views: GET /queues and GET
// /queues/{queueManager}/{queue}[/messages]. Reading a queue for display
// is no command: it claims no idempotency record and publishes no result,
// but goes only where a command of the caller's could (its tenant, the
// target allowlist), never to a SYSTEM.* queue but the dead-letter queue.
type QueueViews struct {
	Targets *targets.Resolver
	Conns   handlers.Connector
}

// queueView is one queue's line in GET /queues and the body of GET
// /queues/{queueManager}/{queue}.
type queueView struct {
	QueueManager string                `json:"queueManager"`
	Queue        string                `json:"queue"`
	TargetRef    string                `json:"targetRef,omitempty"`
	Health       *handlers.DepthResult `json:"health,omitempty"`
	// Error says why Health is absent.
	Error *queueError `json:"error,omitempty"`
}

type queueError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (a *api) registerQueues(mux *http.ServeMux) {
	if a.cfg.Queues == nil {
		return
	}
	mux.HandleFunc("GET /queues", a.replyWithin(a.listQueues))
	mux.HandleFunc("GET /queues/{queueManager}/{queue}", a.replyWithin(a.queueHealth))
	mux.HandleFunc("GET /queues/{queueManager}/{queue}/messages", a.replyWithin(a.browseQueue))
}

// knownQueues are the queues caller may name: the embedded queue
// managers' (with inline targets) and its profiles' own queues.
func knownQueues(s StatusInfo, caller tenant.Tenant) []queueView {
	var known []queueView
	if !caller.Named() || caller.Inline {
		for _, qm := range s.QueueManagers {
			for _, q := range qm.Queues {
				known = append(known, queueView{QueueManager: qm.Name, Queue: q})
			}
		}
	}
	for _, p := range s.Profiles {
		if caller.MayUseProfile(p.Name) {
			known = append(known, queueView{QueueManager: p.QueueManager, Queue: p.Queue, TargetRef: p.Name})
		}
	}
	return known
}

// listQueues serves GET /queues: each known queue with its health.
func (a *api) listQueues(w http.ResponseWriter, r *http.Request) {
	thresholds, ok := queryThresholds(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), queueViewTimeout)
	defer cancel()
	caller := tenant.FromContext(r.Context())
	known := knownQueues(a.cfg.Status, caller)
	truncated := len(known) > maxListedQueues
	known = known[:min(len(known), maxListedQueues)]
	views := make([]queueView, 0, len(known))
	for _, v := range known {
		res, err := a.resolveQueue(ctx, caller, v.QueueManager, v.Queue, v.TargetRef)
		if isNotAllowed(err) {
			continue // the allowlist keeps it from this caller: not listed
		}
		if err == nil {
			var health handlers.DepthResult
			if health, err = handlers.QueueHealth(ctx, a.cfg.Queues.Conns, res.Target, res.Queue, thresholds); err == nil {
				v.Health = &health
			}
		}
		if err != nil {
			_, code, msg := queueProblem(err)
			v.Error = &queueError{Code: code, Message: msg}
		}
		views = append(views, v)
	}
	writeJSON(w, http.StatusOK, map[string]any{"queues": views, "truncated": truncated})
}

// queueHealth serves GET /queues/{queueManager}/{queue}.
func (a *api) queueHealth(w http.ResponseWriter, r *http.Request) {
	thresholds, ok := queryThresholds(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), queueViewTimeout)
	defer cancel()
	v := queueView{QueueManager: r.PathValue("queueManager"), Queue: r.PathValue("queue"), TargetRef: r.URL.Query().Get("targetRef")}
	res, err := a.resolveQueue(ctx, tenant.FromContext(r.Context()), v.QueueManager, v.Queue, v.TargetRef)
	if err == nil {
		var health handlers.DepthResult
		if health, err = handlers.QueueHealth(ctx, a.cfg.Queues.Conns, res.Target, res.Queue, thresholds); err == nil {
			v.Health = &health
		}
	}
	if err != nil {
		writeQueueProblem(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// browseQueue serves GET /queues/{queueManager}/{queue}/messages: the
// first messages, browsed.
func (a *api) browseQueue(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limits := handlers.BrowseLimits{Messages: DefaultBrowseMessages, PayloadBytes: DefaultBrowsePayloadBytes}
	for _, p := range []struct {
		name     string
		into     *int
		min, max int
	}{{"limit", &limits.Messages, 1, MaxBrowseMessages}, {"payloadBytes", &limits.PayloadBytes, 0, MaxBrowsePayloadBytes}} {
		s := q.Get(p.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < p.min || n > p.max {
			writeProblem(w, r, http.StatusBadRequest, problem{Code: result.CodeInvalidCommand,
				Detail: fmt.Sprintf("query parameter %s: %q is not a whole number from %d to %d", p.name, s, p.min, p.max)})
			return
		}
		*p.into = n
	}
	ctx, cancel := context.WithTimeout(r.Context(), queueViewTimeout)
	defer cancel()
	res, err := a.resolveQueue(ctx, tenant.FromContext(r.Context()), r.PathValue("queueManager"), r.PathValue("queue"), q.Get("targetRef"))
	var page handlers.BrowseResult
	if err == nil {
		page, err = handlers.BrowseQueue(ctx, a.cfg.Queues.Conns, res.Target, res.Queue, limits)
	}
	if err != nil {
		writeQueueProblem(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

// queryThresholds reads DEPTH's thresholds from the query
// (maxDepthShare, maxOldestMessageAgeSeconds); nil without them. It
// answers 400 itself when one is no positive number.
func queryThresholds(w http.ResponseWriter, r *http.Request) (*command.Thresholds, bool) {
	var t command.Thresholds
	set := false
	for _, p := range []struct {
		name string
		into **float64
	}{{"maxDepthShare", &t.MaxDepthShare}, {"maxOldestMessageAgeSeconds", &t.MaxOldestMessageAgeSeconds}} {
		s := r.URL.Query().Get(p.name)
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) || v > 1e9 {
			writeProblem(w, r, http.StatusBadRequest, problem{Code: result.CodeInvalidCommand,
				Detail: fmt.Sprintf("query parameter %s: %q is not a positive number", p.name, s)})
			return nil, false
		}
		*p.into, set = &v, true
	}
	if !set {
		return nil, true
	}
	return &t, true
}

// resolveQueue resolves queueManager and queue, through the profile
// targetRef when given, as a command of caller's would be.
func (a *api) resolveQueue(ctx context.Context, caller tenant.Tenant, queueManager, queue, targetRef string) (targets.Resolved, error) {
	cmd := command.Command{OperationType: command.Depth}
	if targetRef != "" {
		cmd.TargetRef, cmd.Queue = targetRef, queue
	} else {
		cmd.Target = &command.Target{QueueManager: queueManager, Queue: queue}
	}
	if err := caller.Authorize(cmd); err != nil {
		return targets.Resolved{}, &targets.Error{Code: result.CodeTargetNotAllowed, Message: err.Error()}
	}
	res, err := a.cfg.Queues.Targets.Resolve(ctx, cmd)
	if err != nil {
		return targets.Resolved{}, err
	}
	if res.Target.QueueManager != queueManager {
		return targets.Resolved{}, &targets.Error{Code: result.CodeTargetNotFound,
			Message: fmt.Sprintf("target profile %q is on queue manager %q, not %q", targetRef, res.Target.QueueManager, queueManager)}
	}
	return res, nil
}

func isNotAllowed(err error) bool {
	var te *targets.Error
	return errors.As(err, &te) && te.Code == result.CodeTargetNotAllowed
}

// queueProblem maps a queue view's failure to its HTTP status, code and
// message.
func queueProblem(err error) (int, string, string) {
	var te *targets.Error
	switch {
	case errors.As(err, &te) && te.Code == result.CodeTargetNotFound:
		return http.StatusNotFound, te.Code, te.Message
	case errors.As(err, &te):
		return http.StatusForbidden, te.Code, te.Message
	case errors.Is(err, handlers.ErrSystemQueue):
		return http.StatusForbidden, result.CodeTargetNotAllowed, err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, "TIMEOUT", fmt.Sprintf("the queue manager did not answer within %s: %v", queueViewTimeout, err)
	}
	if e, ok := mq.AsError(err); ok {
		if e.Reason == mq.ReasonUnknownObjectName {
			return http.StatusNotFound, e.Code(), err.Error()
		}
		return http.StatusBadGateway, e.Code(), err.Error()
	}
	return http.StatusInternalServerError, result.CodeInternal, err.Error()
}

func writeQueueProblem(w http.ResponseWriter, r *http.Request, err error) {
	status, code, msg := queueProblem(err)
	writeProblem(w, r, status, problem{Code: code, Detail: msg})
}

// queuePaths documents the queue views.
func queuePaths() map[string]any {
	thresholds := []any{
		map[string]any{"name": "maxDepthShare", "in": "query", "description": "DEPTH's thresholds.maxDepthShare: with it, health carries a verdict.",
			"schema": map[string]any{"type": "number", "exclusiveMinimum": 0}},
		map[string]any{"name": "maxOldestMessageAgeSeconds", "in": "query", "description": "DEPTH's thresholds.maxOldestMessageAgeSeconds: with it, health carries a verdict.",
			"schema": map[string]any{"type": "number", "exclusiveMinimum": 0}},
	}
	queueParams := []any{
		map[string]any{"name": "queueManager", "in": "path", "required": true, "schema": map[string]any{"type": "string"}},
		map[string]any{"name": "queue", "in": "path", "required": true, "schema": map[string]any{"type": "string"}},
		map[string]any{"name": "targetRef", "in": "query", "description": "Reach the queue through this target profile (the queue must be its queue or one of its allowedQueues); without it the queue is an inline target.",
			"schema": map[string]any{"type": "string"}},
	}
	health := map[string]any{"type": "object", "description": "DEPTH's data.result for the queue: depth, open counts, status figures, missing figures with why, and a verdict when thresholds are given."}
	view := map[string]any{"type": "object", "required": []any{"queueManager", "queue"}, "properties": map[string]any{
		"queueManager": map[string]any{"type": "string"}, "queue": map[string]any{"type": "string"},
		"targetRef": map[string]any{"type": "string", "description": "The profile that reaches the queue, when one does."},
		"health":    health,
		"error": map[string]any{"type": "object", "description": "Why health is absent (GET /queues only: the single-queue route answers a problem instead).",
			"properties": map[string]any{"code": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"}}},
	}}
	refusals := map[string]any{
		"400": problemResponse("A query parameter breaks its rule (the problem names it).", nil),
		"403": problemResponse("The caller may not reach the queue: its tenant, the target allowlist or a profile's queues refuse it, or it is a SYSTEM.* queue other than the queue manager's dead-letter queue (code TARGET_NOT_ALLOWED).", nil),
		"404": problemResponse("No such profile, the profile is on another queue manager (TARGET_NOT_FOUND), or no such queue (MQRC_UNKNOWN_OBJECT_NAME).", nil),
		"502": problemResponse("The queue manager refused (the code is the MQRC name).", nil),
		"504": problemResponse(fmt.Sprintf("The queue manager did not answer within %s (code TIMEOUT).", queueViewTimeout), nil),
	}
	withRefusals := func(ok map[string]any) map[string]any {
		r := map[string]any{"200": ok}
		for k, v := range refusals {
			r[k] = v
		}
		return r
	}
	dlh := map[string]any{"type": "object", "description": "The decoded MQDLH of a dead-lettered message (format MQDEAD).", "properties": map[string]any{
		"reason": map[string]any{"type": "integer"}, "reasonName": map[string]any{"type": "string", "description": "The MQRC name, else the number."},
		"originalQueue": map[string]any{"type": "string"}, "originalQueueManager": map[string]any{"type": "string"},
		"putApplName": map[string]any{"type": "string"}, "putApplType": map[string]any{"type": "integer"},
		"deadLetteredAt": map[string]any{"type": "string", "format": "date-time"},
		"format":         map[string]any{"type": "string"}, "ccsid": map[string]any{"type": "integer"}, "encoding": map[string]any{"type": "integer"},
	}}
	message := map[string]any{"type": "object", "properties": map[string]any{
		"position": map[string]any{"type": "integer", "minimum": 1}, "msgId": map[string]any{"type": "string", "description": "Hex."},
		"correlId": map[string]any{"type": "string", "description": "Hex."}, "putTime": map[string]any{"type": "string", "format": "date-time"},
		"format": map[string]any{"type": "string"}, "persistence": map[string]any{"type": "string", "enum": []any{"persistent", "nonpersistent"}},
		"priority": map[string]any{"type": "integer"}, "expirySeconds": map[string]any{"type": "number", "description": "Time left; absent when unlimited."},
		"replyToQ": map[string]any{"type": "string"}, "replyToQMgr": map[string]any{"type": "string"}, "backoutCount": map[string]any{"type": "integer"},
		"properties":       map[string]any{"type": "object", "description": "Message properties (byte strings in base64)."},
		"sizeBytes":        map[string]any{"type": "integer", "description": "The whole payload's size, MQDLH included."},
		"payloadBase64":    map[string]any{"type": "string", "description": "The first payloadBytes of the payload (after a dead-letter header)."},
		"payloadTruncated": map[string]any{"type": "boolean"},
		"deadLetterHeader": dlh,
	}}
	return map[string]any{
		"/queues": map[string]any{"get": map[string]any{
			"operationId": "listQueues",
			"summary": fmt.Sprintf("The queues the caller may name that the daemon knows (the embedded queue managers' with inline targets, its profiles' own), each with its health; at most %d. "+
				"A read for display: no idempotency record, no result event.", maxListedQueues),
			"parameters": thresholds,
			"responses": map[string]any{
				"200": map[string]any{"description": "OK", "content": jsonContent(map[string]any{"type": "object", "properties": map[string]any{
					"queues": map[string]any{"type": "array", "items": view}, "truncated": map[string]any{"type": "boolean"}}})},
				"400": refusals["400"],
			},
		}},
		"/queues/{queueManager}/{queue}": map[string]any{"get": map[string]any{
			"operationId": "getQueue", "summary": "A queue's health, as DEPTH reads it; no idempotency record, no result event.",
			"parameters": append(slices.Clone(queueParams), thresholds...),
			"responses":  withRefusals(map[string]any{"description": "OK", "content": jsonContent(view)}),
		}},
		"/queues/{queueManager}/{queue}/messages": map[string]any{"get": map[string]any{
			"operationId": "browseQueue", "summary": "The first messages of a queue, browsed (none removed): MQMD, properties, the first bytes of the payload, a dead-lettered message's MQDLH decoded.",
			"parameters": append(slices.Clone(queueParams),
				map[string]any{"name": "limit", "in": "query", "description": "Messages in the page.",
					"schema": map[string]any{"type": "integer", "minimum": 1, "maximum": MaxBrowseMessages, "default": DefaultBrowseMessages}},
				map[string]any{"name": "payloadBytes", "in": "query", "description": "Payload bytes shown of each message.",
					"schema": map[string]any{"type": "integer", "minimum": 0, "maximum": MaxBrowsePayloadBytes, "default": DefaultBrowsePayloadBytes}}),
			"responses": withRefusals(map[string]any{"description": "OK", "content": jsonContent(map[string]any{"type": "object", "properties": map[string]any{
				"queueManager": map[string]any{"type": "string"}, "queue": map[string]any{"type": "string"},
				"messages": map[string]any{"type": "array", "items": message},
				"more":     map[string]any{"type": "boolean", "description": "The queue holds messages after this page."}}})}),
		}},
	}
}
