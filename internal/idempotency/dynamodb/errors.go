package dynamodb

import (
	"errors"

	"github.com/aws/smithy-go"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// MaxItemBytes is the largest item the store writes, as
// idempotency.RecordSize measures it: DynamoDB's 400 KB item limit
// (attribute names and values), read as 400,000 bytes to stay clear of it
// whichever way "KB" is counted.
const MaxItemBytes = 400_000

// permanentRules are the DynamoDB error codes no retry cures, with the
// rule each says was broken.
var permanentRules = map[string]string{
	"ValidationException":                      "the request must pass DynamoDB's validation (an item is at most 400 KB, attribute names and values counted)",
	"ResourceNotFoundException":                "the table must exist",
	"AccessDeniedException":                    "the daemon's credentials must be allowed the DynamoDB action on the table",
	"UnrecognizedClientException":              "the daemon's credentials must be valid",
	"ItemCollectionSizeLimitExceededException": "an item collection must stay within DynamoDB's 10 GB",
}

// classify marks err permanent when DynamoDB refused for a reason no retry
// changes; other errors (throttling, timeouts, 5xx) stay transient.
func (s *Store) classify(err error) error {
	var apiErr smithy.APIError
	if err == nil || !errors.As(err, &apiErr) {
		return err
	}
	rule, ok := permanentRules[apiErr.ErrorCode()]
	if !ok {
		return err
	}
	return &idempotency.PermanentError{Store: s.Limits().Store, Rule: rule, Err: err}
}

// Limits implements idempotency.Store.
func (s *Store) Limits() idempotency.Limits {
	return idempotency.Limits{Store: "DynamoDB table " + s.table, MaxRecordBytes: MaxItemBytes}
}
