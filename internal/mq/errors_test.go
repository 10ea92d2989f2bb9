package mq_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
)

func TestErrorMessage(t *testing.T) {
	err := mq.NewError(mq.VerbOpen, "DEV.QUEUE.9", mq.ReasonUnknownObjectName)
	if got, want := err.Error(), "mq: MQOPEN DEV.QUEUE.9: MQRC_UNKNOWN_OBJECT_NAME (2085)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if err.Code() != "MQRC_UNKNOWN_OBJECT_NAME" {
		t.Errorf("Code() = %q", err.Code())
	}
	cause := errors.New("socket closed")
	warn := &mq.Error{Verb: mq.VerbPut, CompCode: mq.CompWarning, Reason: 2049, Err: cause}
	if got, want := warn.Error(), "mq: MQPUT: warning MQRC_PRIORITY_EXCEEDS_MAXIMUM (2049): socket closed"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(warn, cause) {
		t.Error("Unwrap does not reach the cause")
	}
	if got := mq.Reason(9999).String(); got != "MQRC_9999 (9999)" {
		t.Errorf("unknown reason renders %q", got)
	}
	if mq.CompFailed.String() != "MQCC_FAILED" {
		t.Errorf("CompFailed = %s", mq.CompFailed)
	}
}

func TestErrorHelpersSeeWrappedErrors(t *testing.T) {
	err := fmt.Errorf("produce: %w", mq.NewError(mq.VerbPut, "Q", mq.ReasonQFull))
	if mq.ReasonOf(err) != mq.ReasonQFull || !mq.IsReason(err, mq.ReasonNoMsgAvailable, mq.ReasonQFull) {
		t.Error("reason not found through wrapping")
	}
	if mq.IsTransient(err) || mq.IsConnectionBroken(err) {
		t.Error("2053 misclassified")
	}
	if !mq.IsTransient(fmt.Errorf("put: %w", mq.NewError(mq.VerbPut, "Q", mq.ReasonConnectionBroken))) {
		t.Error("2009 not transient through wrapping")
	}
	plain := errors.New("not mq")
	if mq.ReasonOf(plain) != mq.ReasonNone || mq.IsTransient(plain) || mq.IsReason(plain, mq.ReasonNone) {
		t.Error("a non-MQ error was classified")
	}
}

func TestClassification(t *testing.T) {
	transient := []mq.Reason{2003, 2009, 2042, 2051, 2056, 2059, 2071, 2161, 2162, 2192, 2202, 2537, 2538, 2543, 2548, 2568}
	permanent := []mq.Reason{2024, 2030, 2031, 2033, 2035, 2046, 2053, 2058, 2063, 2085, 2086, 2087, 2110, 2195, 2217, 2219, 2381, 2393, 2540, 9999}
	for _, r := range transient {
		if !r.Transient() {
			t.Errorf("%s should be transient", r)
		}
	}
	for _, r := range permanent {
		if r.Transient() {
			t.Errorf("%s should be permanent", r)
		}
	}
	for _, r := range []mq.Reason{2009, 2059, 2161, 2162, 2202, 2538} {
		if !r.ConnectionBroken() {
			t.Errorf("%s should mean the connection is gone", r)
		}
	}
	for _, r := range []mq.Reason{2053, 2085, 2003} {
		if r.ConnectionBroken() {
			t.Errorf("%s should not discard the connection", r)
		}
	}
}

func TestReasonTable(t *testing.T) {
	named := 0
	for r := mq.Reason(2001); r <= 2604; r++ {
		name := r.Name()
		if name == "" {
			continue
		}
		named++
		if !strings.HasPrefix(name, "MQRC_") {
			t.Errorf("%d named %q", r, name)
		}
	}
	if named < 250 {
		t.Errorf("only %d reasons named", named)
	}
	for r, want := range map[mq.Reason]string{
		2009: "MQRC_CONNECTION_BROKEN", 2033: "MQRC_NO_MSG_AVAILABLE", 2035: "MQRC_NOT_AUTHORIZED",
		2053: "MQRC_Q_FULL", 2059: "MQRC_Q_MGR_NOT_AVAILABLE", 2085: "MQRC_UNKNOWN_OBJECT_NAME",
		2538: "MQRC_HOST_NOT_AVAILABLE", 2539: "MQRC_CHANNEL_CONFIG_ERROR", 2393: "MQRC_SSL_INITIALIZATION_ERROR",
	} {
		if r.Name() != want {
			t.Errorf("%d named %q, want %q", r, r.Name(), want)
		}
	}
}
