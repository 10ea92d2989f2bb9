package configs_test

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mqprobe/mqprobe/internal/command"
)

// TestCanaryRuleSendsAKeyedTest renders the canary rule's input as
// EventBridge would and decodes it as the daemon does: a valid TEST keyed by
// the scheduled event's id.
func TestCanaryRuleSendsAKeyedTest(t *testing.T) {
	data, err := os.ReadFile("canary.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// CloudFormation's short tags (!Ref, !Sub, !GetAtt) are plain tagged
	// nodes to a YAML parser.
	var tmpl struct {
		Resources struct {
			CanaryRule struct {
				Properties struct {
					ScheduleExpression string `yaml:"ScheduleExpression"`
					Targets            []struct {
						InputTransformer struct {
							InputPathsMap map[string]string `yaml:"InputPathsMap"`
							InputTemplate string            `yaml:"InputTemplate"`
						} `yaml:"InputTransformer"`
					} `yaml:"Targets"`
				} `yaml:"Properties"`
			} `yaml:"CanaryRule"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(data, &tmpl); err != nil {
		t.Fatal(err)
	}
	rule := tmpl.Resources.CanaryRule.Properties
	if rule.ScheduleExpression != "rate(5 minutes)" || len(rule.Targets) != 1 {
		t.Fatalf("rule %+v", rule)
	}
	in := rule.Targets[0].InputTransformer
	if in.InputPathsMap["id"] != "$.id" {
		t.Errorf("input paths %v", in.InputPathsMap)
	}
	body := strings.NewReplacer("<id>", `"53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa"`, "<time>", `"2026-11-22T12:00:00Z"`,
		"${TargetRef}", "qm1").Replace(in.InputTemplate)
	dec, err := command.NewDecoder(command.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dec.Decode(command.Input{Body: []byte(body), Transport: command.TransportBus, MessageID: "sqs-id"})
	if err != nil {
		t.Fatalf("the canary's command is invalid: %v\n%s", err, body)
	}
	type decoded struct {
		op        command.Operation
		key       string
		from      command.KeySource
		targetRef string
		seconds   int
	}
	have := decoded{got.Command.OperationType, got.IdempotencyKey, got.KeySource, got.Command.TargetRef, got.Command.DurationSeconds}
	if want := (decoded{command.Test, "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa", command.KeyFromEventID, "qm1", 10}); have != want {
		t.Errorf("decoded %+v, want %+v", have, want)
	}
}
