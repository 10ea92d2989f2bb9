package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/problems"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// TestService is what the API needs of running TEST commands, each known
// by its tenant ("" for the implicit one) and id; *handlers.Tests is one.
type TestService interface {
	// Live returns a running test's statistics and the points of its
	// series numbered above after.
	Live(tenant, id string, after int64) (handlers.LiveTest, bool)
	Stop(tenant, id string) bool
}

// StoredResults reads the recorded outcome of a command by operation type,
// tenant ("" for the implicit one) and key (a finished or remote test's);
// *idempotency.Engine is one. ok is false when there is none or it expired.
type StoredResults interface {
	StoredResult(ctx context.Context, operationType, tenant, key string) (stored result.Stored, ok bool, err error)
}

// startTest starts a TEST and answers 202 with its Location as soon as it
// runs; a finished one with the same key is replayed, a bad one refused.
func (a *api) startTest(w http.ResponseWriter, r *http.Request) {
	body, err := a.readBody(w, r)
	if err != nil {
		return
	}
	key := r.Header.Get("Idempotency-Key")
	generated := key == ""
	if generated {
		key = uuid.NewString() // the test id; a key in the body wins
	}
	ctx, release := executor.MergeCancel(r.Context(), a.cfg.WorkContext)
	started := make(chan executor.StartNotice, 1)
	done := make(chan executor.Outcome, 1)
	go func() {
		defer release()
		// A test is answered once it runs, and a duplicate running elsewhere
		// at once: its caller follows it at /tests/{id}.
		done <- a.cfg.Executor.Execute(ctx, command.Input{Body: body, Transport: command.TransportHTTP,
			Operation: command.Test, IdempotencyKey: key, ExpirySeconds: r.Header.Get("Idempotency-Expiry-Seconds")},
			executor.OnStart(func(n executor.StartNotice) { started <- n }))
	}()
	accepted := func(id string, expiresAt time.Time) {
		setExpiry(w, expiresAt)
		if generated && id == key {
			// Nothing dedupes this run: the same request again starts another.
			w.Header().Set("Idempotency-Key-Generated", "true")
		}
		w.Header().Set("Location", "/tests/"+url.PathEscape(id))
		writeJSON(w, http.StatusAccepted, map[string]string{"testId": id, "status": string(result.StatusInProgress)})
	}
	select {
	case n := <-started:
		a.startReply(w)
		accepted(n.Key, n.ExpiresAt)
	case out := <-done:
		a.startReply(w)
		if out.Kind == outcome.InProgress {
			accepted(key, out.ExpiresAt) // already running here or on another instance
			return
		}
		a.respond(w, r, command.Test, out)
	case <-r.Context().Done():
	}
}

// test shows one of the caller's tests: live statistics and series while
// it runs here (?after=n leaves out the points up to n), else its record.
func (a *api) test(w http.ResponseWriter, r *http.Request) {
	if !a.onlyParams(w, r, "GET /tests/{id}", "after") {
		return
	}
	var after int64
	if s := r.URL.Query().Get("after"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			a.badParam(w, r, "after", "must be a point number n of the series, 0 or more (got "+strconv.Quote(s)+")")
			return
		}
		after = n
	}
	id, owner := r.PathValue("id"), tenant.FromContext(r.Context()).Name
	if live, ok := a.cfg.Tests.Live(owner, id, after); ok {
		data := testData(id, result.StatusInProgress, live.Stats, nil)
		data["series"] = live.Series
		data["plan"] = live.Plan
		if live.Series == nil {
			data["series"] = []handlers.TestPoint{}
		}
		writeJSON(w, http.StatusOK, data)
		return
	}
	stored, ok, err := a.cfg.Stored.StoredResult(r.Context(), string(command.Test), owner, id)
	switch {
	case err != nil:
		writeProblem(w, r, http.StatusServiceUnavailable, problem{Type: problems.Unavailable, Detail: err.Error()})
	case !ok:
		writeProblem(w, r, http.StatusNotFound, problem{Detail: "no test " + id})
	case stored.Status == result.StatusCompleted:
		writeRaw(w, http.StatusOK, stored.Data)
	case stored.Status == result.StatusFailed:
		writeJSON(w, http.StatusOK, testData(id, result.StatusFailed, nil, &result.Error{Code: result.CodeTestFailed, Message: stored.Error}))
	default: // running on another instance
		writeJSON(w, http.StatusOK, testData(id, result.StatusInProgress, nil, nil))
	}
}

func testData(id string, status result.Status, stats any, e *result.Error) map[string]any {
	return map[string]any{"operationType": string(command.Test), "idempotencyKey": id, "status": status,
		"result": stats, "error": e}
}

// stopTest ends one of the caller's tests running on this instance.
func (a *api) stopTest(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !a.cfg.Tests.Stop(tenant.FromContext(r.Context()).Name, id) {
		writeProblem(w, r, http.StatusNotFound, problem{Detail: "test " + id + " is not running on this instance"})
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"testId": id, "stopping": true})
}
