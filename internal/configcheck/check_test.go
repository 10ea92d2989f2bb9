package configcheck_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

func TestErrorsReportEveryRuleFlat(t *testing.T) {
	var inner configcheck.Errors
	inner.Positive("a.count", 0)
	inner.PositiveDuration("a.wait", -time.Hour)

	var v configcheck.Errors
	v.Add(inner.Err())
	configcheck.OneOf(&v, "b.mode", "x", "y", "z")
	v.Add(nil)

	joined, ok := v.Err().(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Err() = %v, want a join", v.Err())
	}
	want := []string{
		"a.count: must be greater than 0 (got 0)",
		"a.wait: must be greater than 0s (got -1h)",
		`b.mode: must be one of y, z (got "x")`,
	}
	errs := joined.Unwrap()
	if len(errs) != len(want) {
		t.Fatalf("Err() joins %d errors %v, want %d", len(errs), errs, len(want))
	}
	for i, e := range errs {
		var fe *configcheck.FieldError
		if !errors.As(e, &fe) || e.Error() != want[i] {
			t.Errorf("error %d = %v, want FieldError %q", i, e, want[i])
		}
	}
	if (&configcheck.Errors{}).Err() != nil {
		t.Error("no broken rule must give a nil error")
	}
}

func TestMQName(t *testing.T) {
	var v configcheck.Errors
	if !v.MQName("q", "DEV.QUEUE.1", 48) || v.Err() != nil {
		t.Errorf("DEV.QUEUE.1 refused: %v", v.Err())
	}
	if v.MQName("q", "bad name", 48) || v.MQName("q", "", 48) || v.MQName("q", "LONGER", 5) {
		t.Error("invalid names accepted")
	}
}
