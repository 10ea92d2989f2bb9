package configs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"

	store "github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// notModeled are the template's resources that moto (5.2.1) accepts in a
// stack but does not create: its CloudFormation has no model for their
// types. The stack lists them without a logical ID; the template tests
// above check their properties instead.
var notModeled = map[string]string{
	"FailedResultsQueuePolicy":  "AWS::SQS::QueuePolicy",
	"FailedResultsSubscription": "AWS::SNS::Subscription",
	"CanarySchedule":            "AWS::Scheduler::Schedule",
}

// outputResources are the template's outputs, each with the resource whose
// physical ID it is.
var outputResources = map[string]string{
	"IdempotencyTableName":      "IdempotencyTable",
	"CommandQueueUrl":           "CommandQueue",
	"CommandDeadLetterQueueUrl": "CommandDeadLetterQueue",
	"ResultsTopicArn":           "ResultsTopic",
	"FailedResultsQueueUrl":     "FailedResultsQueue",
	"PolicyArn":                 "MqprobePolicy",
	"SecretsPolicyArn":          "MqprobeSecretsPolicy",
}

// TestCloudFormationDeploysIntoMoto deploys cloudformation.yaml into moto,
// an AWS emulator independent of the template's authors, once without
// SecretArns and once with two, and checks through the SDK what the stack
// created: the resources, their settings, the daemon's policies statement
// by statement, and that each output names what was created.
func TestCloudFormationDeploysIntoMoto(t *testing.T) {
	endpoint, stop, err := testenv.Moto()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	cfg := aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(endpoint),
	}
	tmpl := loadTemplate(t, "cloudformation.yaml")
	for name, typ := range notModeled {
		if got := resource(tmpl, name)["Type"]; got != typ {
			t.Fatalf("notModeled names %s as %s; the template has it as %v", name, typ, got)
		}
	}
	for name := range tmpl["Outputs"].(map[string]any) {
		if _, ok := outputResources[name]; !ok {
			t.Fatalf("output %s is not in outputResources: check it here", name)
		}
	}

	t.Run("WithoutSecrets", func(t *testing.T) {
		deployIntoMoto(t, cfg, tmpl, nil, 3)
	})
	t.Run("WithTwoSecrets", func(t *testing.T) {
		deployIntoMoto(t, cfg, tmpl, []string{
			"arn:aws:secretsmanager:us-east-1:123456789012:secret:mqprobe/qm1-AbCdEf",
			"arn:aws:secretsmanager:us-east-1:123456789012:secret:mqprobe/qm2-GhIjKl",
		}, 7)
	})
}

// deployIntoMoto deploys the template with secrets as SecretArns and
// maxReceiveCount as MaxReceiveCount, under names of its own (moto outlives
// the test), checks the stack and deletes it.
func deployIntoMoto(t *testing.T, cfg aws.Config, tmpl map[string]any, secrets []string, maxReceiveCount int) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	name := "mqprobe-cfn-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	tableName, queueName, topicName := name+"-idempotency", name+"-commands", name+"-results"
	cf, ddb, sqsc, snsc, iamc := cloudformation.NewFromConfig(cfg), dynamodb.NewFromConfig(cfg),
		sqs.NewFromConfig(cfg), sns.NewFromConfig(cfg), iam.NewFromConfig(cfg)
	// Deleting even a stack that failed halfway: moto does not roll back.
	t.Cleanup(func() { deleteFromMoto(t, cfg, name) })

	outputs, err := testenv.DeployStack(ctx, cfg, "cloudformation.yaml", name, map[string]string{
		"TableName":        tableName,
		"CommandQueueName": queueName,
		"ResultsTopicName": topicName,
		"MaxReceiveCount":  strconv.Itoa(maxReceiveCount),
		"SecretArns":       strings.Join(secrets, ","),
	})
	if err != nil {
		t.Fatal(err)
	}

	// The stack's resources: the template's, less those moto does not model
	// and, without secrets, the secrets' policy.
	resources, unnamed := stackResources(ctx, t, cf, name)
	var want []string
	for logical, r := range tmpl["Resources"].(map[string]any) {
		cond := r.(map[string]any)["Condition"]
		switch {
		case notModeled[logical] != "": // not created
		case cond == nil:
			want = append(want, logical)
		case cond == "ReadsSecrets":
			if len(secrets) > 0 {
				want = append(want, logical)
			}
		default:
			t.Fatalf("resource %s has condition %v, which this test does not know", logical, cond)
		}
	}
	wantEqual(t, "the stack's resources", slices.Sorted(maps.Keys(resources)), slices.Sorted(slices.Values(want)))

	// Every output, naming what the stack created.
	wantOutputs := map[string]string{}
	for output, logical := range outputResources {
		if slices.Contains(want, logical) {
			wantOutputs[output] = resources[logical]
		}
	}
	wantEqual(t, "outputs", outputs, wantOutputs)

	// The idempotency table: seed 000's key, on demand.
	table, err := ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(outputs["IdempotencyTableName"])})
	if err != nil {
		t.Fatalf("the table of output IdempotencyTableName: %v", err)
	}
	wantEqual(t, "table name", aws.ToString(table.Table.TableName), tableName)
	var keys, attrs []string
	for _, k := range table.Table.KeySchema {
		keys = append(keys, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
	}
	for _, a := range table.Table.AttributeDefinitions {
		attrs = append(attrs, aws.ToString(a.AttributeName)+" "+string(a.AttributeType))
	}
	wantEqual(t, "key schema", keys, []string{"pk HASH"})
	wantEqual(t, "attributes", attrs, []string{"pk S", "listTarget S", "listTenant S", "listedAt S"})
	// The template's indexes are the store's: store init finds them all.
	info, err := store.New(ddb, tableName).EnsureTable(ctx)
	if err != nil {
		t.Fatalf("store init on the deployed table: %v", err)
	}
	wantEqual(t, "indexes store init finds", info.Indexes,
		map[string]string{store.TargetIndex: store.IndexPresent, store.TenantIndex: store.IndexPresent})
	if table.Table.BillingModeSummary == nil || table.Table.BillingModeSummary.BillingMode != ddbtypes.BillingModePayPerRequest {
		t.Errorf("billing %+v, want PAY_PER_REQUEST", table.Table.BillingModeSummary)
	}
	tableArn := aws.ToString(table.Table.TableArn)
	ttl, err := ddb.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: table.Table.TableName})
	if err != nil {
		t.Fatal(err)
	}
	switch d := ttl.TimeToLiveDescription; d.TimeToLiveStatus {
	case ddbtypes.TimeToLiveStatusEnabled, ddbtypes.TimeToLiveStatusEnabling:
		wantEqual(t, "TTL attribute", aws.ToString(d.AttributeName), "ttl")
	default:
		t.Logf("moto does not model IdempotencyTable's TimeToLiveSpecification (TTL on ttl): checked by the template test; DescribeTimeToLive says %s", d.TimeToLiveStatus)
	}

	// The queues.
	queue := func(output, name string, want map[string]string) map[string]string {
		t.Helper()
		q, err := sqsc.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: aws.String(outputs[output]), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
		if err != nil {
			t.Fatalf("the queue of output %s: %v", output, err)
		}
		if arn := q.Attributes["QueueArn"]; !strings.HasSuffix(arn, ":"+name) {
			t.Errorf("output %s is queue %s, want %s", output, arn, name)
		}
		for k, v := range want {
			if q.Attributes[k] != v {
				t.Errorf("queue %s: %s = %q, want %q", name, k, q.Attributes[k], v)
			}
		}
		return q.Attributes
	}
	commands := queue("CommandQueueUrl", queueName, map[string]string{"VisibilityTimeout": "60",
		"ReceiveMessageWaitTimeSeconds": "20", "MaximumMessageSize": "262144", "SqsManagedSseEnabled": "true"})
	dlq := queue("CommandDeadLetterQueueUrl", queueName+"-dlq", map[string]string{
		"MessageRetentionPeriod": "1209600", "SqsManagedSseEnabled": "true"})
	failed := queue("FailedResultsQueueUrl", topicName+"-failed", map[string]string{"SqsManagedSseEnabled": "true"})
	var redrive map[string]any
	if err := json.Unmarshal([]byte(commands["RedrivePolicy"]), &redrive); err != nil {
		t.Fatalf("RedrivePolicy %q: %v", commands["RedrivePolicy"], err)
	}
	wantEqual(t, "redrive to", redrive["deadLetterTargetArn"], dlq["QueueArn"])
	wantEqual(t, "redrive after", fmt.Sprint(redrive["maxReceiveCount"]), strconv.Itoa(maxReceiveCount))
	notModeledEvidence := map[string]string{}
	if p := failed["Policy"]; p == "" {
		notModeledEvidence["FailedResultsQueuePolicy"] = "the failed-results queue has no Policy"
	} else {
		notModeledEvidence["FailedResultsQueuePolicy"] = "the failed-results queue's Policy is " + p
	}

	// The results topic.
	topicArn := outputs["ResultsTopicArn"]
	topic, err := snsc.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(topicArn)})
	if err != nil {
		t.Fatalf("the topic of output ResultsTopicArn: %v", err)
	}
	if arn := topic.Attributes["TopicArn"]; arn != topicArn || !strings.HasSuffix(arn, ":"+topicName) {
		t.Errorf("output ResultsTopicArn %s is topic %s, want %s", topicArn, arn, topicName)
	}
	subs, err := snsc.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: aws.String(topicArn)})
	if err != nil {
		t.Fatal(err)
	}
	notModeledEvidence["FailedResultsSubscription"] = fmt.Sprintf("the results topic has %d subscriptions", len(subs.Subscriptions))

	// The daemon's policies: exactly its calls (daemonCalls), on exactly
	// the resources created and the secrets given.
	arnOf := map[string][]string{"dynamodb": {tableArn}, "sqs": {commands["QueueArn"]}, "sns": {topicArn}, "secretsmanager": secrets}
	allow := func(sid, service string) string {
		var actions []string
		for a := range daemonCalls {
			if strings.HasPrefix(a, service+":") && a != "dynamodb:Query" {
				actions = append(actions, a)
			}
		}
		return normalStatement(map[string]any{"Sid": sid, "Effect": "Allow", "Action": actions, "Resource": arnOf[service]})
	}
	// Query, on the listing indexes only.
	listing := normalStatement(map[string]any{"Sid": "IdempotencyListing", "Effect": "Allow", "Action": []string{"dynamodb:Query"},
		"Resource": []string{tableArn + "/index/" + store.TargetIndex, tableArn + "/index/" + store.TenantIndex}})
	wantStatements(t, "PolicyArn", managedPolicy(ctx, t, iamc, outputs, "PolicyArn"),
		allow("IdempotencyRecords", "dynamodb"), listing, allow("Commands", "sqs"), allow("Results", "sns"))
	if len(secrets) > 0 {
		wantStatements(t, "SecretsPolicyArn", managedPolicy(ctx, t, iamc, outputs, "SecretsPolicyArn"),
			allow("SecretReferences", "secretsmanager"))
	}

	// The canary's role: the scheduler of this account may assume it.
	account := strings.Split(tableArn, ":")[4]
	role, err := iamc.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(resources["CanarySchedulerRole"])})
	if err != nil {
		t.Fatalf("CanarySchedulerRole: %v", err)
	}
	wantEqual(t, "CanarySchedulerRole trust", policyDocument(t, aws.ToString(role.Role.AssumeRolePolicyDocument)), map[string]any{
		"Version": "2012-10-17", "Statement": []any{map[string]any{
			"Effect": "Allow", "Principal": map[string]any{"Service": "scheduler.amazonaws.com"}, "Action": "sts:AssumeRole",
			"Condition": map[string]any{"StringEquals": map[string]any{"aws:SourceAccount": account}}}}})
	inline, err := iamc.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: role.Role.RoleName})
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "CanarySchedulerRole policies", inline.PolicyNames, []string{"send-canary"})
	send, err := iamc.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: role.Role.RoleName, PolicyName: aws.String("send-canary")})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := url.PathUnescape(aws.ToString(send.PolicyDocument))
	var sendDoc map[string]any
	if err := json.Unmarshal([]byte(doc), &sendDoc); err != nil {
		t.Logf("moto does not render CanarySchedulerRole's inline policy send-canary as JSON (%.40q...): checked by the template test", doc)
	} else {
		wantEqual(t, "send-canary", sendDoc, map[string]any{"Version": "2012-10-17", "Statement": []any{
			map[string]any{"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": commands["QueueArn"]}}})
	}

	for _, logical := range slices.Sorted(maps.Keys(notModeled)) {
		evidence := fmt.Sprintf("the stack lists it not by name but among %d resources without a logical ID", unnamed)
		if e := notModeledEvidence[logical]; e != "" {
			evidence += "; " + e
		}
		t.Logf("moto does not model %s (%s): checked by the template test; %s", logical, notModeled[logical], evidence)
	}
}

// stackResources returns the physical ID of each resource of the stack by
// logical ID, and how many resources it lists without one (moto lists so
// those it did not create).
func stackResources(ctx context.Context, t *testing.T, cf *cloudformation.Client, stack string) (map[string]string, int) {
	t.Helper()
	out, unnamed := map[string]string{}, 0
	pages := cloudformation.NewListStackResourcesPaginator(cf, &cloudformation.ListStackResourcesInput{StackName: aws.String(stack)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatalf("resources of stack %s: %v", stack, err)
		}
		for _, r := range page.StackResourceSummaries {
			if r.ResourceStatus != "CREATE_COMPLETE" {
				t.Errorf("stack %s: %s is %s", stack, aws.ToString(r.LogicalResourceId), r.ResourceStatus)
			}
			if aws.ToString(r.LogicalResourceId) == "" {
				unnamed++
				continue
			}
			out[aws.ToString(r.LogicalResourceId)] = aws.ToString(r.PhysicalResourceId)
		}
	}
	return out, unnamed
}

// managedPolicy returns the statements of the default version of the
// managed policy the output names, each normalised by normalStatement,
// after checking it can be attached.
func managedPolicy(ctx context.Context, t *testing.T, iamc *iam.Client, outputs map[string]string, output string) []string {
	t.Helper()
	arn := outputs[output]
	if arn == "" {
		t.Fatalf("no output %s", output)
	}
	p, err := iamc.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("policy %s: %v", arn, err)
	}
	if !p.Policy.IsAttachable {
		t.Errorf("policy %s cannot be attached", arn)
	}
	v, err := iamc.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(arn), VersionId: p.Policy.DefaultVersionId})
	if err != nil {
		t.Fatalf("policy %s: %v", arn, err)
	}
	doc := policyDocument(t, aws.ToString(v.PolicyVersion.Document))
	if doc["Version"] != "2012-10-17" || len(doc) != 2 {
		t.Errorf("policy %s: %v", arn, doc)
	}
	stmts, _ := doc["Statement"].([]any)
	var out []string
	for _, s := range stmts {
		m, ok := s.(map[string]any)
		if !ok {
			t.Fatalf("policy %s has statement %v", arn, s)
		}
		out = append(out, normalStatement(m))
	}
	return out
}

// wantStatements checks the statements of the policy the output names.
func wantStatements(t *testing.T, output string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("policy %s grants\n%s\nwant\n%s", output, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// policyDocument decodes an IAM policy document, which IAM returns URL
// encoded.
func policyDocument(t *testing.T, encoded string) map[string]any {
	t.Helper()
	doc, err := url.PathUnescape(encoded)
	if err != nil {
		t.Fatalf("policy document %q: %v", encoded, err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(doc), &out); err != nil {
		t.Fatalf("policy document %q: %v", doc, err)
	}
	return out
}

// normalStatement returns the statement as JSON, with its Action and
// Resource as sorted lists, which IAM reads the same as one string or the
// same list in another order; the other keys stay as they are.
func normalStatement(s map[string]any) string {
	out := maps.Clone(s)
	for _, k := range []string{"Action", "Resource"} {
		var l []any
		switch v := s[k].(type) {
		case string:
			l = []any{v}
		case []string:
			for _, e := range v {
				l = append(l, e)
			}
		case []any:
			l = slices.Clone(v)
		default:
			continue
		}
		slices.SortFunc(l, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		out[k] = l
	}
	j, err := json.Marshal(out)
	if err != nil {
		panic(err) // decoded JSON or strings
	}
	return string(j)
}

// deleteFromMoto deletes the stack, and the managed policies moto leaves
// behind when it deletes a stack.
func deleteFromMoto(t *testing.T, cfg aws.Config, stack string) {
	// The test's context is over by now.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	iamc := iam.NewFromConfig(cfg)
	var policies []string
	pages := cloudformation.NewListStackResourcesPaginator(cloudformation.NewFromConfig(cfg),
		&cloudformation.ListStackResourcesInput{StackName: aws.String(stack)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			break // no stack, or none to list: DeleteStack tells
		}
		for _, r := range page.StackResourceSummaries {
			if aws.ToString(r.ResourceType) == "AWS::IAM::ManagedPolicy" {
				policies = append(policies, aws.ToString(r.PhysicalResourceId))
			}
		}
	}
	if err := testenv.DeleteStack(ctx, cfg, stack); err != nil {
		if t.Failed() {
			// moto cannot even describe a stack it failed to create.
			t.Logf("after the failure above, the stack stays: %v", err)
		} else {
			t.Error(err)
		}
		return
	}
	for _, arn := range policies {
		_, err := iamc.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
		var gone *iamtypes.NoSuchEntityException
		switch {
		case errors.As(err, &gone):
		case err != nil:
			t.Errorf("policy %s after deleting its stack: %v", arn, err)
		default:
			t.Logf("moto does not delete AWS::IAM::ManagedPolicy with its stack: deleting %s", arn)
			if _, err := iamc.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: aws.String(arn)}); err != nil {
				t.Errorf("deleting policy %s: %v", arn, err)
			}
		}
	}
}
