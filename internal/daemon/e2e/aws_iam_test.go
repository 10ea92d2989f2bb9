package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestStackPolicyUnderIAMEnforcement runs the daemon on
// configs/cloudformation.yaml's stack in a moto of its own with IAM
// enforcement on (moto's reset-auth), as a user holding only the stack's
// PolicyArn: ready (its checks), commands received, executed, recorded,
// replayed, rejected and their results published, with no access denied.
//
// The stack is deployed with SecretArns, and a target's password read
// through a secret:// reference under SecretsPolicyArn.
//
// moto (5.2.1) checks every call's action, but a call's resource only for
// SQS: it authorizes SNS, DynamoDB and Secrets Manager calls against the
// resource "*", which no statement scoped to an ARN matches. So the
// statements on the table, the topic and the secrets are given to the user
// with the Resource "*" (their actions unchanged); the command queue's
// statement is given as the stack made it. What the other statements' ARNs
// admit is checked by configs/cloudformation_test.go against the template,
// not here.
func TestStackPolicyUnderIAMEnforcement(t *testing.T) {
	private, err := testenv.StartPrivate("moto")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(private.Stop)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	admin := awsConfigAt(private.Endpoint, "admin", "admin") // any key, until enforcement starts
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	name := "iam-enforced"
	// The secret a target's secret:// reference names, which the stack's
	// SecretArns grants.
	secret, err := secretsmanager.NewFromConfig(admin).CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("mqprobe/qm1"),
		SecretString: aws.String("app-password")})
	if err != nil {
		t.Fatal(err)
	}
	outputs, err := testenv.DeployStack(ctx, admin, filepath.Join(root, "configs", "cloudformation.yaml"), name, map[string]string{
		"TableName": name + "-table", "CommandQueueName": name + "-commands", "ResultsTopicName": name + "-results",
		"SecretArns": aws.ToString(secret.ARN)})
	if err != nil {
		t.Fatalf("deploy the stack: %v", err)
	}
	iamc := iam.NewFromConfig(admin)
	policy, widened := stackPolicyForMoto(ctx, t, iamc, outputs["PolicyArn"])
	secretsPolicy, widenedSecrets := stackPolicyForMoto(ctx, t, iamc, outputs["SecretsPolicyArn"])
	t.Logf("the daemon's user holds %s and %s, with the Resource of %d statements (SNS, DynamoDB, Secrets Manager) widened to * for moto",
		outputs["PolicyArn"], outputs["SecretsPolicyArn"], widened+widenedSecrets)
	daemonKey := iamUser(ctx, t, iamc, "mqprobe-daemon", policy, secretsPolicy)
	testerKey := iamUser(ctx, t, iamc, "tester", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)

	// The test's own reader of results, subscribed to the stack's topic.
	adminSQS := sqs.NewFromConfig(admin)
	results, err := adminSQS.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-mine")})
	if err != nil {
		t.Fatal(err)
	}
	resultsARN, err := adminSQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: results.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sns.NewFromConfig(admin).Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(outputs["ResultsTopicArn"]), Protocol: aws.String("sqs"),
		Endpoint: aws.String(resultsARN.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]), Attributes: map[string]string{"RawMessageDelivery": "true"}}); err != nil {
		t.Fatal(err)
	}

	enforceIAM(t, private.Endpoint)
	asDaemon := sqs.NewFromConfig(awsConfigAt(private.Endpoint, daemonKey[0], daemonKey[1]))
	if _, err := asDaemon.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-not-granted")}); err == nil || !strings.Contains(err.Error(), "StatusCode: 403") {
		t.Fatalf("the daemon's user created a queue the policy does not grant: %v; is enforcement on?", err)
	}
	// The test's clients, as the tester, for the helpers that use them.
	saved := sqsClient
	sqsClient = sqs.NewFromConfig(awsConfigAt(private.Endpoint, testerKey[0], testerKey[1]))
	t.Cleanup(func() { sqsClient = saved })

	procs := startDaemonProcesses(t, 1, map[string]string{
		"AWS_ENDPOINT_URL_SQS": private.Endpoint, "AWS_ENDPOINT_URL_SNS": private.Endpoint, "AWS_ENDPOINT_URL_DYNAMODB": private.Endpoint,
		"AWS_ENDPOINT_URL_SECRETS_MANAGER":  private.Endpoint,
		"MQPROBE_TARGETS_INLINE_SECRETREFS": "secret://mqprobe/*",
		"AWS_ACCESS_KEY_ID":                 daemonKey[0], "AWS_SECRET_ACCESS_KEY": daemonKey[1],
		"MQPROBE_MODE":                       "aws",
		"MQPROBE_IDEMPOTENCY_DYNAMODB_TABLE": outputs["IdempotencyTableName"],
		"MQPROBE_SQS_COMMANDQUEUE":           outputs["CommandQueueUrl"],
		"MQPROBE_RESULTS_SNSTOPICARN":        outputs["ResultsTopicArn"],
		"MQPROBE_SQS_WAITTIMESECONDS":        "1",
		"MQPROBE_TARGETS_ALLOWINLINE":        "true",
		"MQPROBE_LOG_LEVEL":                  "info",
	})
	reader := newResultQueue(t, aws.ToString(results.QueueUrl))
	sendCommand(t, outputs["CommandQueueUrl"], awsProduce("DEV.QUEUE.1", 3, ""), map[string]string{"Idempotency-Key": "iam-produce"})
	sendCommand(t, outputs["CommandQueueUrl"], awsProduce("DEV.QUEUE.1", 0, ""), map[string]string{"Idempotency-Key": "iam-rejected"})
	if e := reader.wait("iam-produce", 1, 30*time.Second)[0]; e.Data.Status != result.StatusCompleted || e.Data.Replay {
		t.Errorf("PRODUCE: %+v", e.Data)
	}
	// A password from Secrets Manager: the reference resolved under
	// SecretsPolicyArn.
	sendCommand(t, outputs["CommandQueueUrl"], `{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":"DEV.QUEUE.2",`+
		`"auth":{"user":"app","passwordRef":"secret://mqprobe/qm1"}},"batch":{"count":2}}`, map[string]string{"Idempotency-Key": "iam-secret"})
	if e := reader.wait("iam-secret", 1, 30*time.Second)[0]; e.Data.Status != result.StatusCompleted {
		t.Errorf("PRODUCE with a secret:// password: %+v %+v", e.Data, e.Data.Error)
	}
	if e := reader.wait("iam-rejected", 1, 30*time.Second)[0]; e.Data.Status != result.StatusRejected {
		t.Errorf("the invalid PRODUCE: %+v", e.Data)
	}
	// The same command again: the record read back, the result replayed.
	sendCommand(t, outputs["CommandQueueUrl"], awsProduce("DEV.QUEUE.1", 3, ""), map[string]string{"Idempotency-Key": "iam-produce"})
	if e := reader.wait("iam-produce", 2, 30*time.Second)[1]; e.Data.Status != result.StatusCompleted || !e.Data.Replay {
		t.Errorf("the duplicate PRODUCE: %+v, want its replay", e.Data)
	}
	if status, body, err := procs[0].Get("/health/ready"); status != http.StatusOK {
		t.Errorf("not ready under the stack's policy: %d %s %v", status, body, err)
	}
	log, err := os.ReadFile(procs[0].Log)
	if err != nil {
		t.Fatal(err)
	}
	for _, denied := range []string{"AccessDenied", "not authorized", "missing permission"} {
		if strings.Contains(string(log), denied) {
			t.Errorf("the daemon was refused a call (%q) under the stack's policy:\n%s", denied, log)
		}
	}
}

// awsConfigAt is the SDK configuration of a client of endpoint with a static
// key: built, not loaded, so the AWS_ENDPOINT_URL_* variables that point
// the other tests at the shared emulators do not apply.
func awsConfigAt(endpoint, keyID, secret string) aws.Config {
	return aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret, Source: "test"}, nil
		})}
}

// stackPolicyForMoto is the document of the managed policy arn, with the
// Resource of its SNS, DynamoDB and Secrets Manager statements "*" (see
// TestStackPolicyUnderIAMEnforcement), and how many statements that
// changed.
func stackPolicyForMoto(ctx context.Context, t *testing.T, iamc *iam.Client, arn string) (string, int) {
	t.Helper()
	p, err := iamc.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("policy %s: %v", arn, err)
	}
	v, err := iamc.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(arn), VersionId: p.Policy.DefaultVersionId})
	if err != nil {
		t.Fatalf("policy %s: %v", arn, err)
	}
	encoded, err := url.PathUnescape(aws.ToString(v.PolicyVersion.Document))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version   string
		Statement []map[string]any
	}
	if err := json.Unmarshal([]byte(encoded), &doc); err != nil {
		t.Fatalf("policy %s: %v\n%s", arn, err, encoded)
	}
	widened := 0
	for _, s := range doc.Statement {
		actions, _ := json.Marshal(s["Action"])
		if strings.Contains(string(actions), `"sns:`) || strings.Contains(string(actions), `"dynamodb:`) || strings.Contains(string(actions), `"secretsmanager:`) {
			s["Resource"] = "*"
			widened++
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), widened
}

// iamUser creates an IAM user holding policies and returns its access key
// id and secret.
func iamUser(ctx context.Context, t *testing.T, iamc *iam.Client, name string, policies ...string) [2]string {
	t.Helper()
	if _, err := iamc.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	for i, policy := range policies {
		if _, err := iamc.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String(fmt.Sprintf("%s-%d", name, i)),
			PolicyDocument: aws.String(policy)}); err != nil {
			t.Fatal(err)
		}
	}
	key, err := iamc.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return [2]string{aws.ToString(key.AccessKey.AccessKeyId), aws.ToString(key.AccessKey.SecretAccessKey)}
}

// enforceIAM turns moto's IAM enforcement on from the next request
// (moto-api/reset-auth: no unauthenticated requests left).
func enforceIAM(t *testing.T, endpoint string) {
	t.Helper()
	resp, err := http.Post(endpoint+"/moto-api/reset-auth", "text/plain", strings.NewReader("0"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("moto reset-auth: %s", resp.Status)
	}
}
