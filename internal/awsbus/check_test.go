package awsbus

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// TestCheckNamesTheMissingPermission: where AWS refuses a check's call
// (moto does not enforce IAM, so an endpoint here answers as AWS does:
// SNS's AuthorizationError, SQS's and DynamoDB's AccessDeniedException),
// the error names the permission and the resource to grant it on, and
// the refusal is not taken for a call the endpoint lacks (no ListTopics
// fallback).
func TestCheckNamesTheMissingPermission(t *testing.T) {
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		target := r.Header.Get("X-Amz-Target")
		calls = append(calls, target+r.Form.Get("Action"))
		if target == "" { // SNS: the query protocol
			w.Header().Set("Content-Type", "text/xml")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`<ErrorResponse><Error><Type>Sender</Type><Code>AuthorizationError</Code>` +
				`<Message>User: arn:aws:iam::123456789012:user/probe is not authorized to perform: SNS:GetTopicAttributes</Message>` +
				`</Error><RequestId>r1</RequestId></ErrorResponse>`))
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amzn-Query-Error", "AccessDenied;Sender")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"__type":"com.amazon.coral.service#AccessDeniedException","message":"User: arn:aws:iam::123456789012:user/probe is not authorized"}`))
	}))
	defer srv.Close()
	c := NewResourceChecker(aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("a", "b", ""),
		BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		check func() error
		want  string
	}{
		{"topic", func() error {
			return c.CheckTopic(ctx, "results.snsTopicArn", "arn:aws:sns:eu-west-1:123456789012:results")
		}, "results.snsTopicArn arn:aws:sns:eu-west-1:123456789012:results: missing permission sns:GetTopicAttributes on arn:aws:sns:eu-west-1:123456789012:results: "},
		{"queue", func() error {
			return c.CheckQueue(ctx, "sqs.commandQueue", srv.URL+"/123456789012/commands")
		}, "missing permission sqs:GetQueueAttributes on arn:aws:sqs:eu-west-1:123456789012:commands: "},
		{"table", func() error {
			return c.CheckTable(ctx, "idempotency.dynamodb.table", "records")
		}, "idempotency.dynamodb.table records: missing permission dynamodb:DescribeTable on table records: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls = nil
			err := tc.check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("check: %v\nwant it to contain %q", err, tc.want)
			}
			if len(calls) != 1 {
				t.Errorf("calls %q, want the one check call (no fallback on a refusal)", calls)
			}
		})
	}
}
