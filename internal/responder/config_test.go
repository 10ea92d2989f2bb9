package responder_test

import (
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/responder"
)

func TestValidateNamesTheFieldAndTheRule(t *testing.T) {
	good := responder.Config{Name: "echo", TargetRef: "lab", Concurrency: 4}
	if err := responder.Validate([]responder.Config{good, {Name: "inline", QueueManager: "QM1", Queue: "DEV.QUEUE.1"}}, []string{"lab"}); err != nil {
		t.Fatalf("valid responders refused: %v", err)
	}
	many := make([]responder.Config, responder.MaxResponders+1)
	for i := range many {
		many[i] = responder.Config{Name: strings.Repeat("r", i+1), TargetRef: "lab"}
	}
	cases := []struct {
		name string
		cfgs []responder.Config
		want string
	}{
		{"no name", []responder.Config{{TargetRef: "lab"}}, "responders[0].name: is required"},
		{"duplicate name", []responder.Config{good, good}, `responders[1].name: "echo" names another responder too`},
		{"unknown profile", []responder.Config{{Name: "a", TargetRef: "nope"}}, `responders[0].targetRef: "nope" names no targets.profiles entry`},
		{"no target", []responder.Config{{Name: "a", Queue: "Q"}}, "responders[0]: targetRef or queueManager is required"},
		{"both targets", []responder.Config{{Name: "a", TargetRef: "lab", QueueManager: "QM1"}}, "responders[0]: give targetRef or queueManager, not both"},
		{"inline without queue", []responder.Config{{Name: "a", QueueManager: "QM1"}}, "responders[0].queue: is required without targetRef"},
		{"bad queue name", []responder.Config{{Name: "a", TargetRef: "lab", Queue: "A B"}}, "responders[0].queue: must be an MQ name"},
		{"concurrency over", []responder.Config{{Name: "a", TargetRef: "lab", Concurrency: 17}}, "responders[0].concurrency: must be between 0 and 16 (got 17)"},
		{"too many", many, "responders: at most 16 responders (got 17)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := responder.Validate(c.cfgs, []string{"lab"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}
