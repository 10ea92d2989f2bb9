package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/mqprobe/mqprobe/internal/result"
)

// Codes of the problems no result event carries (those carry the event's
// error code), so that every 409 names its case.
const (
	// codeInProgress: the same command is running; its result comes later.
	codeInProgress = "IN_PROGRESS"
	// codeLeaseAlive: an eviction refused while the record's holder runs.
	codeLeaseAlive = "LEASE_ALIVE"
	// codeResumable: an eviction refused as it would throw a checkpoint away.
	codeResumable = "RESUMABLE"
	// codeRecordChanged: the record changed between an eviction's read and delete.
	codeRecordChanged = "RECORD_CHANGED"
)

// problem is an RFC 9457 problem details document.
type problem struct {
	Type     string           `json:"type"`
	Title    string           `json:"title"`
	Status   int              `json:"status"`
	Detail   string           `json:"detail,omitempty"`
	Instance string           `json:"instance,omitempty"`
	Code     string           `json:"code,omitempty"`
	Errors   []result.Problem `json:"errors,omitempty"`
	// IdempotencyKey names the key the problem is about, when there is one.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// Committed is the committed messages a refused eviction would throw
	// away (problem type resumable), when the checkpoint says.
	Committed *int `json:"committed,omitempty"`
}

func writeProblem(w http.ResponseWriter, r *http.Request, status int, p problem) {
	if p.Type == "" {
		p.Type = "about:blank"
	}
	if p.Title == "" {
		p.Title = http.StatusText(status)
	}
	p.Status = status
	p.Instance = r.URL.Path
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	encode(w, p)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	encode(w, v)
}

// encode writes v as JSON, leaving <, > and & as they are.
func encode(w http.ResponseWriter, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) //nolint:errcheck // the client may be gone
}

func setRetryAfter(w http.ResponseWriter, d time.Duration) {
	secs := int((d + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
}
