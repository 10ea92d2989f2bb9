package problems_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/problems"
)

// TestAnswers pins the status, problem type and Retry-After each outcome
// kind answers with: the API writes them, records keep the status, and the
// CLI reads the types.
func TestAnswers(t *testing.T) {
	type answer struct {
		status int
		typ    string
		retry  bool
	}
	cases := []struct {
		kind    outcome.Kind
		code    string
		creates bool
		want    answer
	}{
		{outcome.Completed, "", true, answer{201, "", false}},
		{outcome.Completed, "", false, answer{200, "", false}},
		{outcome.Replayed, "", true, answer{201, "", false}},
		{outcome.Failed, "MQRC_Q_FULL", true, answer{502, "", false}},
		{outcome.FailedTransient, "MQRC_Q_FULL", true, answer{502, "", true}},
		{outcome.Rejected, "MALFORMED_JSON", false, answer{400, problems.Validation, false}},
		{outcome.Rejected, "INVALID_COMMAND", false, answer{400, problems.Validation, false}},
		{outcome.Rejected, "INVALID_KEY", false, answer{400, problems.Validation, false}},
		{outcome.Rejected, "MISSING_KEY", false, answer{400, problems.Validation, false}},
		{outcome.Rejected, "TOO_LARGE", false, answer{413, problems.Validation, false}},
		{outcome.Rejected, "SCHEMA_VIOLATION", false, answer{422, problems.Validation, false}},
		{outcome.Rejected, "LIMIT_EXCEEDED", false, answer{422, problems.Validation, false}},
		{outcome.Rejected, "OPERATION_NOT_SUPPORTED", false, answer{422, problems.Validation, false}},
		{outcome.Rejected, "IDEMPOTENCY_KEY_REUSED", false, answer{409, problems.KeyReused, false}},
		{outcome.Rejected, "TARGET_NOT_FOUND", false, answer{422, problems.Target, false}},
		{outcome.Rejected, "TARGET_NOT_ALLOWED", false, answer{422, problems.Target, false}},
		{outcome.Limited, "LIMIT_EXCEEDED", false, answer{429, problems.Validation, false}},
		{outcome.InProgress, "", false, answer{409, problems.InProgress, true}},
		{outcome.RateLimited, "", false, answer{429, problems.RateLimited, true}},
		{outcome.Busy, "", false, answer{503, problems.Busy, true}},
		{outcome.OutcomePending, "", false, answer{503, problems.OutcomePending, true}},
		{outcome.Undecided, "", false, answer{503, problems.Unavailable, true}},
		{outcome.Unreadable, "", false, answer{500, problems.Unavailable, true}},
	}
	seen := map[outcome.Kind]bool{}
	for _, c := range cases {
		seen[c.kind] = true
		a := problems.For(c.kind, c.code, c.creates)
		if got := (answer{a.Status, a.Type, a.RetryAfter}); got != c.want {
			t.Errorf("%s %s: %+v, want %+v", c.kind, c.code, got, c.want)
		}
	}
	for _, k := range outcome.Kinds {
		if !seen[k] {
			t.Errorf("kind %s has no case", k)
		}
	}
}
