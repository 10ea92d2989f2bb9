// Package problems is the HTTP face of command outcomes: the problem types
// (RFC 9457) the API answers with and the CLI reads, and the one table of
// the status and problem each outcome kind answers with, which the API
// writes and idempotency records keep (their httpStatus).
package problems

import (
	"net/http"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/result"
)

// Base prefixes every problem type of the API.
const Base = "https://mqprobe.dev/problems/"

// Problem types.
const (
	Validation     = Base + "validation"
	KeyReused      = Base + "idempotency-key-reused"
	InProgress     = Base + "in-progress"
	Target         = Base + "target"
	Unavailable    = Base + "unavailable"
	RateLimited    = Base + "rate-limited"
	Busy           = Base + "busy"
	OutcomePending = Base + "outcome-pending" // the command ran, its outcome waits for the store
	NotFound       = Base + "not-found"
	LeaseAlive     = Base + "lease-alive"
	RecordChanged  = Base + "record-changed"
	Resumable      = Base + "resumable"
	CrossOrigin    = Base + "cross-origin"
	HostNotAllowed = Base + "host-not-allowed"
)

// Answer is how the API answers one outcome.
type Answer struct {
	Status int
	// Type and Title name the problem; Type is "" when the body is the
	// command's result data, and an empty Title is the status's text.
	Type, Title string
	// RetryAfter: the answer says when to retry (Retry-After).
	RetryAfter bool
}

// answers is the answer of each outcome kind; a zero Status is the
// success status (completions and their replays) or, for a rejection, its
// code's (rejections).
var answers = map[outcome.Kind]Answer{
	outcome.Completed:       {},
	outcome.Replayed:        {},
	outcome.Failed:          {Status: http.StatusBadGateway},
	outcome.FailedTransient: {Status: http.StatusBadGateway, RetryAfter: true},
	outcome.Rejected:        {Type: Validation},
	outcome.Limited:         {Status: http.StatusTooManyRequests, Type: Validation},
	outcome.InProgress: {Status: http.StatusConflict, Type: InProgress,
		Title: "Request with this idempotency key is in progress", RetryAfter: true},
	outcome.RateLimited: {Status: http.StatusTooManyRequests, Type: RateLimited, Title: "Target rate limit exceeded", RetryAfter: true},
	outcome.Busy: {Status: http.StatusServiceUnavailable, Type: Busy,
		Title: "Too much work in progress: command not executed, retry later", RetryAfter: true},
	outcome.OutcomePending: {Status: http.StatusServiceUnavailable, Type: OutcomePending,
		Title: "Command executed; its outcome is known but not yet recorded, retry later", RetryAfter: true},
	outcome.Undecided: {Status: http.StatusServiceUnavailable, Type: Unavailable,
		Title: "Command not executed, retry later", RetryAfter: true},
	outcome.Unreadable: {Status: http.StatusInternalServerError, Type: Unavailable,
		Title: "Command not executed, retry later", RetryAfter: true},
}

// rejections is the answer of a rejection by its error code; any other
// code is a 422 validation problem.
var rejections = map[string]Answer{
	result.CodeInvalidCommand:         {Status: http.StatusBadRequest, Type: Validation},
	string(command.CodeMalformedJSON): {Status: http.StatusBadRequest, Type: Validation},
	string(command.CodeMissingKey):    {Status: http.StatusBadRequest, Type: Validation},
	result.CodeInvalidKey:             {Status: http.StatusBadRequest, Type: Validation},
	string(command.CodeTooLarge):      {Status: http.StatusRequestEntityTooLarge, Type: Validation},
	result.CodeKeyReused:              {Status: http.StatusConflict, Type: KeyReused, Title: "Idempotency key reused with different request"},
	result.CodeTargetNotFound:         {Status: http.StatusUnprocessableEntity, Type: Target},
	result.CodeTargetNotAllowed:       {Status: http.StatusUnprocessableEntity, Type: Target},
}

// For is the answer to an outcome of kind k: code is the error code of its
// result (rejections); creates says that the operation's completion creates
// something, which a completion or its replay answers 201 Created for.
func For(k outcome.Kind, code string, creates bool) Answer {
	a, ok := answers[k]
	switch {
	case !ok:
		return answers[outcome.Undecided]
	case k == outcome.Rejected:
		if r, ok := rejections[code]; ok {
			return r
		}
		a.Status = http.StatusUnprocessableEntity
	case a.Status == 0 && creates:
		a.Status = http.StatusCreated
	case a.Status == 0:
		a.Status = http.StatusOK
	}
	return a
}
