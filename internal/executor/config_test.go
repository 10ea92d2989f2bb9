package executor_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/executor"
)

// TestResultsKeysValidate: results.replay and results.maxRawBodyBytes are
// checked by the executor, naming their keys; New refuses an unknown replay
// mode before it looks at its dependencies.
func TestResultsKeysValidate(t *testing.T) {
	_, err := executor.New(executor.Config{ReplayConfig: executor.ReplayConfig{Replay: "again"}}, executor.Deps{})
	if err == nil || err.Error() != `results.replay: must be one of republish, drop (got "again")` {
		t.Errorf("New with replay again: %v", err)
	}
	err = executor.RejectedConfig{MaxRawBodyBytes: -1}.Validate()
	if err == nil || err.Error() != "results.maxRawBodyBytes: must not be negative (got -1)" {
		t.Errorf("negative maxRawBodyBytes: %v", err)
	}
	if err := (executor.RejectedConfig{}).Validate(); err != nil {
		t.Errorf("zero (the default) refused: %v", err)
	}
}
