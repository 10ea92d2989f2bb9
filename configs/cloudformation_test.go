package configs_test

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/result"
)

// daemonCalls are the AWS actions mqprobe's daemon calls in aws mode, each
// with the file that calls it (through the SDK's <Operation>Input). Not among
// them: DynamoDB Scan (a listing no index serves: every tenant's records,
// which the daemon's API never asks; and the expired-record cleanup, which
// the daemon leaves to TTL on DynamoDB) and DeleteItem, the table calls of `mqprobe store init`
// (the template creates the table) and sqs:SendMessage (results go to SNS
// here; the CLI's `send` is not the daemon).
var daemonCalls = map[string]string{
	"dynamodb:GetItem":              "internal/idempotency/dynamodb/store.go",  // replays, readiness
	"dynamodb:PutItem":              "internal/idempotency/dynamodb/begin.go",  // the conditional claim
	"dynamodb:UpdateItem":           "internal/idempotency/dynamodb/update.go", // heartbeat, complete, release
	"dynamodb:Query":                "internal/idempotency/dynamodb/list.go",   // GET /idempotency, on the listing indexes
	"dynamodb:BatchGetItem":         "internal/idempotency/dynamodb/list.go",   // the records of a listed page
	"sqs:GetQueueUrl":               "internal/awsbus/queue.go",                // sqs.commandQueue given by name
	"sqs:ReceiveMessage":            "internal/awsbus/subscriber.go",           // through watermill-aws
	"sqs:ChangeMessageVisibility":   "internal/awsbus/visibility.go",           // extend, nack delay
	"sqs:DeleteMessage":             "internal/awsbus/visibility.go",           // ack
	"sns:Publish":                   "internal/awsbus/publisher.go",            // result events
	"secretsmanager:GetSecretValue": "internal/secrets/aws.go",                 // secret:// references
}

// The resource checks' calls (readiness, `mqprobe doctor`), from the list
// the checker keeps, so the policy cannot miss one.
func init() {
	for _, action := range awsbus.CheckActions {
		daemonCalls[action] = "internal/awsbus/check.go"
	}
}

// resultAttributes are the message attributes the result publisher sets
// (internal/awsbus/publisher.go, eventAttributes), which filter policies
// can select on.
var resultAttributes = []string{"type", "operationType", "status", "idempotencyKey", "traceparent"}

// cfnValue turns a YAML node into plain values the way CloudFormation reads
// it: short-form functions (!Ref, !GetAtt, !Sub, ...) become their long
// forms ({"Ref": ...}, {"Fn::GetAtt": [resource, attribute]}, ...).
func cfnValue(t *testing.T, n *yaml.Node) any {
	t.Helper()
	var v any
	switch n.Kind {
	case yaml.DocumentNode:
		return cfnValue(t, n.Content[0])
	case yaml.AliasNode:
		return cfnValue(t, n.Alias)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = cfnValue(t, n.Content[i+1])
		}
		v = m
	case yaml.SequenceNode:
		s := []any{}
		for _, c := range n.Content {
			s = append(s, cfnValue(t, c))
		}
		v = s
	case yaml.ScalarNode:
		if isFunction(n.Tag) {
			v = n.Value
		} else if err := n.Decode(&v); err != nil {
			t.Fatalf("line %d: %v", n.Line, err)
		}
	}
	if !isFunction(n.Tag) {
		return v
	}
	switch fn := n.Tag[1:]; fn {
	case "Ref":
		return map[string]any{"Ref": v}
	case "GetAtt":
		if s, ok := v.(string); ok {
			res, attr, _ := strings.Cut(s, ".")
			v = []any{res, attr}
		}
		return map[string]any{"Fn::GetAtt": v}
	default:
		return map[string]any{"Fn::" + fn: v}
	}
}

func isFunction(tag string) bool { return strings.HasPrefix(tag, "!") && !strings.HasPrefix(tag, "!!") }

func ref(name string) any { return map[string]any{"Ref": name} }

func getAtt(res, attr string) any { return map[string]any{"Fn::GetAtt": []any{res, attr}} }

func loadTemplate(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tmpl, _ := cfnValue(t, &doc).(map[string]any)
	if tmpl["AWSTemplateFormatVersion"] != "2010-09-09" {
		t.Fatalf("%s is not a CloudFormation template", path)
	}
	return tmpl
}

// props returns a resource's properties after checking its type.
func props(t *testing.T, tmpl map[string]any, name, typ string) map[string]any {
	t.Helper()
	res, _ := tmpl["Resources"].(map[string]any)[name].(map[string]any)
	if res["Type"] != typ {
		t.Fatalf("resource %s is %v, want %s", name, res["Type"], typ)
	}
	p, _ := res["Properties"].(map[string]any)
	return p
}

func wantEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func TestCloudFormationResources(t *testing.T) {
	tmpl := loadTemplate(t, "cloudformation.yaml")
	params, _ := tmpl["Parameters"].(map[string]any)
	param := func(name string) map[string]any { p, _ := params[name].(map[string]any); return p }

	table := props(t, tmpl, "IdempotencyTable", "AWS::DynamoDB::Table")
	wantEqual(t, "TableName default", param("TableName")["Default"], dynamodb.DefaultTable)
	wantEqual(t, "table name", table["TableName"], ref("TableName"))
	// The attribute names of seed 000 that the store writes.
	wantEqual(t, "key schema", table["KeySchema"], []any{map[string]any{"AttributeName": "pk", "KeyType": "HASH"}})
	var attrs []any
	for _, a := range []string{"pk", "listTarget", "listTenant", "listedAt"} {
		attrs = append(attrs, map[string]any{"AttributeName": a, "AttributeType": "S"})
	}
	wantEqual(t, "attributes", table["AttributeDefinitions"], attrs)
	// The listing indexes, as the store creates them.
	var indexes []any
	for _, ix := range []struct{ name, hash, other string }{
		{dynamodb.TargetIndex, "listTarget", "listTenant"}, {dynamodb.TenantIndex, "listTenant", "listTarget"},
	} {
		indexes = append(indexes, map[string]any{"IndexName": ix.name,
			"KeySchema":  []any{map[string]any{"AttributeName": ix.hash, "KeyType": "HASH"}, map[string]any{"AttributeName": "listedAt", "KeyType": "RANGE"}},
			"Projection": map[string]any{"ProjectionType": "INCLUDE", "NonKeyAttributes": []any{ix.other, "status", "operationType", "expiresAtMs"}}})
	}
	wantEqual(t, "indexes", table["GlobalSecondaryIndexes"], indexes)
	wantEqual(t, "billing", table["BillingMode"], "PAY_PER_REQUEST")
	wantEqual(t, "TTL", table["TimeToLiveSpecification"], map[string]any{"AttributeName": "ttl", "Enabled": true})

	props(t, tmpl, "CommandDeadLetterQueue", "AWS::SQS::Queue")
	queue := props(t, tmpl, "CommandQueue", "AWS::SQS::Queue")
	wantEqual(t, "redrive policy", queue["RedrivePolicy"], map[string]any{
		"deadLetterTargetArn": getAtt("CommandDeadLetterQueue", "Arn"), "maxReceiveCount": ref("MaxReceiveCount")})
	if _, ok := params["MaxReceiveCount"]; !ok {
		t.Error("no MaxReceiveCount parameter")
	}

	props(t, tmpl, "ResultsTopic", "AWS::SNS::Topic")
	props(t, tmpl, "FailedResultsQueue", "AWS::SQS::Queue")
	sub := props(t, tmpl, "FailedResultsSubscription", "AWS::SNS::Subscription")
	wantEqual(t, "subscription topic", sub["TopicArn"], ref("ResultsTopic"))
	wantEqual(t, "subscription endpoint", sub["Endpoint"], getAtt("FailedResultsQueue", "Arn"))
	wantEqual(t, "subscription protocol", sub["Protocol"], "sqs")
	filter, _ := sub["FilterPolicy"].(map[string]any)
	if len(filter) == 0 || sub["FilterPolicyScope"] != "MessageAttributes" {
		t.Errorf("subscription filter %v on %v, want a message-attribute filter", filter, sub["FilterPolicyScope"])
	}
	statuses := []any{string(result.StatusCompleted), string(result.StatusFailed), string(result.StatusRejected), string(result.StatusInProgress)}
	for attr, values := range filter {
		if !slices.Contains(resultAttributes, attr) {
			t.Errorf("filter on %q: results carry only %v", attr, resultAttributes)
		}
		for _, v := range values.([]any) {
			if attr == "status" && !slices.Contains(statuses, v) {
				t.Errorf("filter status %v is none of %v", v, statuses)
			}
		}
	}
	delivery := props(t, tmpl, "FailedResultsQueuePolicy", "AWS::SQS::QueuePolicy")
	wantEqual(t, "queue policy queues", delivery["Queues"], []any{ref("FailedResultsQueue")})
	wantEqual(t, "queue policy", delivery["PolicyDocument"].(map[string]any)["Statement"], []any{map[string]any{
		"Sid": "ResultsTopicDelivers", "Effect": "Allow", "Principal": map[string]any{"Service": "sns.amazonaws.com"},
		"Action": "sqs:SendMessage", "Resource": getAtt("FailedResultsQueue", "Arn"),
		"Condition": map[string]any{"ArnEquals": map[string]any{"aws:SourceArn": ref("ResultsTopic")}}}})

	schedule := props(t, tmpl, "CanarySchedule", "AWS::Scheduler::Schedule")
	wantEqual(t, "schedule", schedule["ScheduleExpression"], map[string]any{"Fn::Sub": "rate(${CanaryIntervalMinutes} minutes)"})
	target, _ := schedule["Target"].(map[string]any)
	wantEqual(t, "schedule target", target["Arn"], getAtt("CommandQueue", "Arn"))
	wantEqual(t, "schedule role", target["RoleArn"], getAtt("CanarySchedulerRole", "Arn"))
	props(t, tmpl, "CanarySchedulerRole", "AWS::IAM::Role")
}

// TestCloudFormationCanarySendsTheCanaryTest renders the schedule's input
// as the Scheduler would and decodes it as the daemon does: the TEST of
// configs/canary.yaml, keyed by the scheduled time.
func TestCloudFormationCanarySendsTheCanaryTest(t *testing.T) {
	tmpl := loadTemplate(t, "cloudformation.yaml")
	input, _ := props(t, tmpl, "CanarySchedule", "AWS::Scheduler::Schedule")["Target"].(map[string]any)["Input"].(map[string]any)
	sub, _ := input["Fn::Sub"].(string)
	body := strings.NewReplacer("${AWS::StackName}", "mqprobe", "${CanaryTargetRef}", "qm1",
		"<aws.scheduler.scheduled-time>", "2026-11-22T12:05:00Z").Replace(sub)
	dec, err := command.NewDecoder(command.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dec.Decode(command.Input{Body: []byte(body), Transport: command.TransportBus, MessageID: "sqs-id"})
	if err != nil {
		t.Fatalf("the schedule's command is invalid: %v\n%s", err, body)
	}
	type decoded struct {
		op        command.Operation
		targetRef string
		key       string
		from      command.KeySource
	}
	have := decoded{got.Command.OperationType, got.Command.TargetRef, got.IdempotencyKey, got.KeySource}
	if want := (decoded{command.Test, "qm1", "canary-mqprobe-2026-11-22T12:05:00Z", command.KeyFromCommand}); have != want {
		t.Errorf("decoded %+v, want %+v", have, want)
	}

	canary := loadTemplate(t, "canary.yaml")
	rule := props(t, canary, "CanaryRule", "AWS::Events::Rule")
	transformer := rule["Targets"].([]any)[0].(map[string]any)["InputTransformer"].(map[string]any)
	event := strings.NewReplacer("<id>", `"event-1"`, "<time>", `"2026-11-22T12:05:00Z"`, "${TargetRef}", "qm1").
		Replace(transformer["InputTemplate"].(map[string]any)["Fn::Sub"].(string))
	want, err := dec.Decode(command.Input{Body: []byte(event), Transport: command.TransportBus, MessageID: "sqs-id"})
	if err != nil {
		t.Fatalf("canary.yaml's command: %v", err)
	}
	if got.RequestHash != want.RequestHash {
		t.Errorf("the schedule's command differs from canary.yaml's:\n%s\n%s", got.Canonical, want.Canonical)
	}
}

// statement is one IAM policy statement and where it is.
type statement struct {
	where string
	body  map[string]any
}

// policyStatements finds every policy document of the template's
// resources; the branches of an Fn::If are both statements.
func policyStatements(t *testing.T, tmpl map[string]any) []statement {
	var out []statement
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if k == "PolicyDocument" || k == "AssumeRolePolicyDocument" {
					stmts, _ := c.(map[string]any)["Statement"].([]any)
					for i, s := range stmts {
						for _, b := range branches(s) {
							out = append(out, statement{fmt.Sprintf("%s.%s.Statement[%d]", where, k, i), b})
						}
					}
					continue
				}
				walk(where+"."+k, c)
			}
		case []any:
			for i, c := range v {
				walk(fmt.Sprintf("%s[%d]", where, i), c)
			}
		}
	}
	walk("Resources", tmpl["Resources"])
	if len(out) == 0 {
		t.Fatal("no policy statements")
	}
	return out
}

func branches(s any) []map[string]any {
	m, _ := s.(map[string]any)
	cond, ok := m["Fn::If"].([]any)
	if !ok {
		return []map[string]any{m}
	}
	var out []map[string]any
	for _, b := range cond[1:] {
		if !reflect.DeepEqual(b, ref("AWS::NoValue")) {
			out = append(out, branches(b)...)
		}
	}
	return out
}

// strs lists every string inside v, function arguments included.
func strs(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case map[string]any:
		var out []string
		for _, c := range v {
			out = append(out, strs(c)...)
		}
		return out
	case []any:
		var out []string
		for _, c := range v {
			out = append(out, strs(c)...)
		}
		return out
	}
	return nil
}

func TestCloudFormationPoliciesAreExact(t *testing.T) {
	tmpl := loadTemplate(t, "cloudformation.yaml")
	for _, s := range policyStatements(t, tmpl) {
		for _, banned := range []string{"NotAction", "NotResource", "NotPrincipal"} {
			if _, ok := s.body[banned]; ok {
				t.Errorf("%s uses %s", s.where, banned)
			}
		}
		actions, resources := strs(s.body["Action"]), strs(s.body["Resource"])
		if len(actions) == 0 {
			t.Errorf("%s grants no Action", s.where)
		}
		if len(resources) == 0 && !strings.Contains(s.where, "AssumeRolePolicyDocument") {
			t.Errorf("%s names no Resource", s.where)
		}
		for _, v := range append(append(actions, resources...), strs(s.body["Principal"])...) {
			if strings.Contains(v, "*") {
				t.Errorf("%s has a wildcard: %q", s.where, v)
			}
		}
	}

	// The daemon's policies: exactly the calls, each on its own resource;
	// the secrets in a policy of their own that exists only with SecretArns.
	resourceOf := map[string]any{
		"dynamodb": getAtt("IdempotencyTable", "Arn"), "sqs": getAtt("CommandQueue", "Arn"),
		"sns": ref("ResultsTopic"), "secretsmanager": ref("SecretArns"),
	}
	policyOf := map[string]string{
		"dynamodb": "MqprobePolicy", "sqs": "MqprobePolicy", "sns": "MqprobePolicy", "secretsmanager": "MqprobeSecretsPolicy",
	}
	// Each policy with its condition and the output that names it.
	daemonPolicies := []struct{ name, condition, output string }{
		{"MqprobePolicy", "", "PolicyArn"},
		{"MqprobeSecretsPolicy", "ReadsSecrets", "SecretsPolicyArn"},
	}
	wantEqual(t, "condition ReadsSecrets", tmpl["Conditions"].(map[string]any)["ReadsSecrets"],
		map[string]any{"Fn::Not": []any{map[string]any{"Fn::Equals": []any{map[string]any{"Fn::Join": []any{"", ref("SecretArns")}}, ""}}}})
	outputs, _ := tmpl["Outputs"].(map[string]any)
	var granted []string
	for _, p := range daemonPolicies {
		props(t, tmpl, p.name, "AWS::IAM::ManagedPolicy")
		wantEqual(t, p.name+" condition", resource(tmpl, p.name)["Condition"], nilIfEmpty(p.condition))
		out, _ := outputs[p.output].(map[string]any)
		wantEqual(t, "output "+p.output, out["Value"], ref(p.name))
		wantEqual(t, "output "+p.output+" condition", out["Condition"], nilIfEmpty(p.condition))
		for _, s := range policyStatements(t, map[string]any{"Resources": map[string]any{p.name: resource(tmpl, p.name)}}) {
			for _, a := range strs(s.body["Action"]) {
				granted = append(granted, a)
				service, _, _ := strings.Cut(a, ":")
				want := resourceOf[service]
				if a == "dynamodb:Query" {
					want = listingIndexes
				}
				if !reflect.DeepEqual(s.body["Resource"], want) {
					t.Errorf("%s grants %s on %v, want %v", s.where, a, s.body["Resource"], want)
				}
				if policyOf[service] != p.name {
					t.Errorf("%s grants %s, which belongs in %s", s.where, a, policyOf[service])
				}
			}
		}
	}
	var called []string
	for a := range daemonCalls {
		called = append(called, a)
	}
	sort.Strings(granted)
	sort.Strings(called)
	if !slices.Equal(granted, called) {
		t.Errorf("the policy grants\n%v\nthe daemon calls\n%v", granted, called)
	}
}

// listingIndexes are the resources of dynamodb:Query: the table's listing
// indexes, not the table (which a Query of the table would read).
var listingIndexes = []any{
	map[string]any{"Fn::Sub": "${IdempotencyTable.Arn}/index/" + dynamodb.TargetIndex},
	map[string]any{"Fn::Sub": "${IdempotencyTable.Arn}/index/" + dynamodb.TenantIndex},
}

// resource returns a resource of the template, its Type and Condition with
// its Properties.
func resource(tmpl map[string]any, name string) map[string]any {
	r, _ := tmpl["Resources"].(map[string]any)[name].(map[string]any)
	return r
}

// nilIfEmpty is what a template holds for an absent key named by s.
func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// refs lists the resources and parameters v refers to, by Ref, Fn::GetAtt
// or Fn::Sub.
func refs(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["Ref"].(string); ok {
			return []string{r}
		}
		if a, ok := v["Fn::GetAtt"].([]any); ok && len(a) > 0 {
			if r, ok := a[0].(string); ok {
				return []string{r}
			}
		}
		for k, c := range v {
			if k == "Fn::Sub" {
				sub := c
				if l, ok := c.([]any); ok && len(l) > 0 {
					sub = l[0]
					out = append(out, refs(l[1:])...)
				}
				if s, ok := sub.(string); ok {
					for _, m := range subRef.FindAllStringSubmatch(s, -1) {
						out = append(out, m[1])
					}
				}
				continue
			}
			out = append(out, refs(c)...)
		}
	case []any:
		for _, c := range v {
			out = append(out, refs(c)...)
		}
	}
	return out
}

// subRef is a reference inside an Fn::Sub string: ${Name} or ${Name.Attr}.
var subRef = regexp.MustCompile(`\$\{([A-Za-z0-9:]+)[.}]`)

// TestCloudFormationConditionsAreWhole keeps the template deployable where
// a condition is false: conditions hold whole resources and outputs, never
// an AWS::NoValue inside a list (AWS drops it; moto keeps a null, and an
// IAM policy with a null statement is refused), and whatever refers to a
// conditional resource carries its condition.
func TestCloudFormationConditionsAreWhole(t *testing.T) {
	tmpl := loadTemplate(t, "cloudformation.yaml")
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				walk(where+"."+k, c)
			}
		case []any:
			for i, c := range v {
				m, _ := c.(map[string]any)
				if cond, ok := m["Fn::If"].([]any); ok && slices.ContainsFunc(cond[1:], func(b any) bool {
					return reflect.DeepEqual(b, ref("AWS::NoValue"))
				}) {
					t.Errorf("%s[%d] is AWS::NoValue when %v is false", where, i, cond[0])
				}
				walk(fmt.Sprintf("%s[%d]", where, i), c)
			}
		}
	}
	walk("", tmpl)

	resources, _ := tmpl["Resources"].(map[string]any)
	outputs, _ := tmpl["Outputs"].(map[string]any)
	conditional := map[string]any{}
	for name, r := range resources {
		if c, ok := r.(map[string]any)["Condition"]; ok {
			conditional[name] = c
		}
	}
	if len(conditional) == 0 {
		t.Fatal("no resource has a condition, not even MqprobeSecretsPolicy (ReadsSecrets)")
	}
	check := func(kind string, all map[string]any) {
		for name, v := range all {
			for _, r := range refs(v) {
				if c, ok := conditional[r]; ok && v.(map[string]any)["Condition"] != c {
					t.Errorf("%s %s refers to %s without its condition %v", kind, name, r, c)
				}
			}
		}
	}
	check("resource", resources)
	check("output", outputs)
}

// TestDaemonCallsAreInTheCode keeps daemonCalls honest: each file named
// still builds the request of its action.
func TestDaemonCallsAreInTheCode(t *testing.T) {
	for action, file := range daemonCalls {
		service, op, _ := strings.Cut(action, ":")
		src, err := os.ReadFile("../" + file)
		if err != nil {
			t.Errorf("%s: %v", action, err)
			continue
		}
		if input := service + "." + op + "Input{"; !strings.Contains(string(src), input) {
			t.Errorf("%s: %s builds no %s", action, file, input)
		}
	}
}
