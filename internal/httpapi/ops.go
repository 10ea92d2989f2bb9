package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/mqprobe/mqprobe/internal/problems"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// results serves the caller's tenant's recent result events, newest first.
func (a *api) results(w http.ResponseWriter, r *http.Request) {
	f, ok := a.resultFilter(w, r)
	if !ok {
		return
	}
	writeResults(w, a.cfg.Recent.Find(f), cmp.Or(a.cfg.MaxReplyBytes, DefaultMaxReplyBytes))
}

// resultFilter reads GET /results' query into a filter of the caller's
// events, answering 400 itself when a parameter breaks its rule, and 404
// when this daemon keeps no results (aws mode).
func (a *api) resultFilter(w http.ResponseWriter, r *http.Request) (result.Filter, bool) {
	if a.cfg.Recent == nil {
		writeProblem(w, r, http.StatusNotFound, problem{Detail: "results are kept in-process only in embedded mode; subscribe to the results topic"})
		return result.Filter{}, false
	}
	q := r.URL.Query()
	f := result.Filter{Tenant: tenant.FromContext(r.Context()).Name, IdempotencyKey: q.Get("idempotencyKey"), OperationType: q.Get("operationType"),
		Status: result.Status(q.Get("status")), Target: q.Get("target"), Limit: 100}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			writeProblem(w, r, http.StatusBadRequest, problem{Type: problems.Validation, Detail: "limit must be an integer from 1 to 1000",
				Errors: []result.Problem{{Path: "limit", Rule: "range", Message: "must be 1..1000"}}})
			return f, false
		}
		f.Limit = n
	}
	if f.Status != "" && !slices.Contains(resultStatuses, f.Status) {
		a.badParam(w, r, "status", fmt.Sprintf("must be one of %v (got %q)", resultStatuses, f.Status))
		return f, false
	}
	for _, b := range []struct {
		name  string
		bound *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		name, bound := b.name, b.bound
		if s := q.Get(name); s != "" {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				a.badParam(w, r, name, "must be an RFC 3339 time like 2026-03-01T12:00:00Z (got "+strconv.Quote(s)+")")
				return f, false
			}
			*bound = t
		}
	}
	return f, true
}

// resultStatuses are the statuses of published result events.
var resultStatuses = []result.Status{result.StatusCompleted, result.StatusFailed, result.StatusRejected, result.StatusInProgress}

// DefaultMaxReplyBytes is ResultsSettings.MaxReplyBytes's default.
const DefaultMaxReplyBytes = 4 << 20

// writeResults streams events as {"results":[...],"truncated":bool}, one
// event encoded at a time, so a reply costs one event's encoding however
// many clients read how many events. It stops before maxBytes of events,
// but always carries the first.
func writeResults(w http.ResponseWriter, events []result.Event, maxBytes int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	io.WriteString(w, `{"results":[`) //nolint:errcheck // the client may be gone
	written, sent, truncated := 0, 0, false
	for _, e := range events {
		buf.Reset()
		if err := enc.Encode(e); err != nil {
			continue // an event that cannot be encoded was never published either
		}
		event := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if sent > 0 && written+len(event) > maxBytes {
			truncated = true
			break
		}
		if sent > 0 {
			io.WriteString(w, ",") //nolint:errcheck // a gone client fails the Write below
		}
		if _, err := w.Write(event); err != nil {
			return
		}
		written += len(event) + 1
		sent++
	}
	fmt.Fprintf(w, `],"truncated":%t}`+"\n", truncated)
}

func (a *api) live(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// ready runs every readiness check; any failure is 503 naming it.
func (a *api) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	checks := map[string]string{}
	status := http.StatusOK
	for name, check := range a.cfg.Ready {
		if err := check(ctx); err != nil {
			checks[name] = err.Error()
			status = http.StatusServiceUnavailable
		} else {
			checks[name] = "ok"
		}
	}
	state := "ready"
	if status != http.StatusOK {
		state = "not ready"
	}
	writeJSON(w, status, map[string]any{"status": state, "checks": checks})
}

func (a *api) status(w http.ResponseWriter, r *http.Request) {
	s, caller := a.cfg.Status, tenant.FromContext(r.Context())
	writeJSON(w, http.StatusOK, map[string]any{
		"version": s.Version, "mode": s.Mode, "instance": s.Instance, "backends": s.Backends,
		"startedAt": s.Started.UTC().Format(time.RFC3339), "uptimeSeconds": int64(time.Since(s.Started).Seconds()),
		"commands": a.cfg.Executor.Counts(), "lastHour": a.cfg.Executor.LastHourCounts(caller.Name),
		"load": a.load(), "inFlight": a.inFlight(caller.Name), "targets": callerTargets(s, caller),
		"pendingOutcomes": a.pendingOutcomes(caller.Name),
	})
}

// callerTargets is GET /status "targets": the embedded queue managers and
// the profiles caller may use.
func callerTargets(s StatusInfo, caller tenant.Tenant) map[string]any {
	qms, profiles := []QueueManagerInfo{}, []ProfileInfo{}
	if !caller.Named() || caller.Inline {
		qms = append(qms, s.QueueManagers...)
	}
	for _, p := range s.Profiles {
		if caller.MayUseProfile(p.Name) {
			profiles = append(profiles, p)
		}
	}
	return map[string]any{"queueManagers": qms, "profiles": profiles}
}

// Load is what the daemon holds now (GET /status "load").
type Load struct {
	// CommandsExecuting of MaxConcurrentCommands run; CommandsWaiting wait
	// for room; together they hold InFlightBytes of MaxInFlightBytes.
	CommandsExecuting     int64 `json:"commandsExecuting"`
	MaxConcurrentCommands int64 `json:"maxConcurrentCommands"`
	CommandsWaiting       int64 `json:"commandsWaiting"`
	InFlightBytes         int64 `json:"inFlightBytes"`
	MaxInFlightBytes      int64 `json:"maxInFlightBytes"`
	// MQPoolWaiting commands wait for a pooled MQ connection.
	MQPoolWaiting int64 `json:"mqPoolWaiting"`
	// CommandsQueued were submitted by POST /commands and have not finished
	// (embedded mode).
	CommandsQueued int64 `json:"commandsQueued"`
	// Saturated says why a new command would wait now; empty when it would
	// not.
	Saturated string `json:"saturated,omitempty"`
}

func (a *api) load() any {
	if a.cfg.Load == nil {
		return nil
	}
	return a.cfg.Load()
}

func (a *api) openapi(w http.ResponseWriter, r *http.Request) {
	if len(a.cfg.OpenAPI) == 0 {
		writeProblem(w, r, http.StatusNotFound, problem{Detail: "no OpenAPI document configured"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(a.cfg.OpenAPI) //nolint:errcheck // the client may be gone
}
