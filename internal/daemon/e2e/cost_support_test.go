package e2e_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

const depthCommand = `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`

// meteredAWS is a daemon process whose every AWS request goes through an
// AWSMeter per service: what it costs, counted on the wire.
type meteredAWS struct {
	env           *localAWS
	sqs, sns, ddb *testenv.AWSMeter
	proc          *daemontest.Process
}

// startMetered starts a daemon process on a fresh localAWS of the current
// emulator with extra variables, its SQS, SNS and DynamoDB endpoints
// metered.
func startMetered(t testing.TB, extra map[string]string) *meteredAWS {
	t.Helper()
	m := &meteredAWS{env: newLocalAWS(t, 10)}
	desc, err := ddbClient.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(m.env.table)})
	if err != nil {
		t.Fatalf("describe %s: %v", m.env.table, err)
	}
	var tableKey []string
	for _, k := range desc.Table.KeySchema {
		tableKey = append(tableKey, aws.ToString(k.AttributeName))
	}
	var indexKeys [][]string
	for _, ix := range desc.Table.GlobalSecondaryIndexes {
		var keys []string
		for _, k := range ix.KeySchema {
			keys = append(keys, aws.ToString(k.AttributeName))
		}
		indexKeys = append(indexKeys, keys)
	}
	m.sqs, m.sns = testenv.MeterSQS(t, current.sqs), testenv.MeterSNS(t, current.sns)
	m.ddb = testenv.MeterDynamoDB(t, current.dynamodb, tableKey, indexKeys)
	vars := daemonProcessEnv(m.env, extra)
	maps.Copy(vars, awsEnv)
	maps.Copy(vars, map[string]string{"AWS_ENDPOINT_URL_SQS": m.sqs.URL, "AWS_ENDPOINT_URL_SNS": m.sns.URL,
		"AWS_ENDPOINT_URL_DYNAMODB": m.ddb.URL})
	m.proc, _ = daemontest.StartProcess(t, "metered", vars)
	return m
}

// recordSize is the size of the record of the idempotency key key.
func (m *meteredAWS) recordSize(t testing.TB, key string) int {
	t.Helper()
	out, err := ddbClient.Scan(context.Background(), &awsdynamodb.ScanInput{TableName: aws.String(m.env.table)})
	if err != nil {
		t.Fatalf("scan %s: %v", m.env.table, err)
	}
	for _, it := range out.Items {
		pk, _ := it["pk"].(*ddbtypes.AttributeValueMemberS)
		if pk != nil && strings.Contains(pk.Value, key) {
			size, err := m.ddb.ItemSize(context.Background(), m.env.table, map[string]string{"pk": pk.Value})
			if err != nil || size == 0 {
				t.Fatalf("size of %s: %d, %v", pk.Value, size, err)
			}
			return size
		}
	}
	t.Fatalf("no record of %s in %s", key, m.env.table)
	return 0
}

// usage is what the daemon's requests cost since the last call.
func (m *meteredAWS) usage() testenv.Usage {
	return m.sqs.Reset().Add(m.sns.Reset()).Add(m.ddb.Reset())
}

// TestMeterCountsOneNewDepth: one new DEPTH, sent through SQS with its
// result to SQS, costs exactly this on the wire: its claim (a conditional
// PutItem writing a small item and both listing indexes' keys, 1 + 2 WRU),
// its completion (an UpdateItem setting listedAt, an index key of both:
// 1 + 2 WRU), one non-empty ReceiveMessage, the result's SendMessage and
// the command's delete — no read. The meter's own GetItems are not billed.
func TestMeterCountsOneNewDepth(t *testing.T) {
	m := startMetered(t, map[string]string{"MQPROBE_SQS_MAXMESSAGES": "10"})
	results := newResultQueue(t, m.env.results)
	// The first command also looks the results queue up, once per process.
	for _, key := range []string{"cost-warm-up", "cost-one-depth"} {
		m.usage()
		sendCommand(t, m.env.commands, depthCommand, map[string]string{"Idempotency-Key": key})
		results.wait(key, 1, 20*time.Second)
		waitSQSQueueDrained(t, m.env.commands, 15*time.Second)
	}
	u := m.usage()
	t.Logf("one new DEPTH: %+v", u)
	delete(u.Calls, "ReceiveMessage (empty)")
	deletes := u.Calls["DeleteMessage"] + u.Calls["DeleteMessageBatch"]
	delete(u.Calls, "DeleteMessage")
	delete(u.Calls, "DeleteMessageBatch")
	want := map[string]int{"PutItem": 1, "UpdateItem": 1, "ReceiveMessage": 1, "SendMessage": 1}
	if fmt.Sprint(u.Calls) != fmt.Sprint(want) || deletes != 1 {
		t.Errorf("one new DEPTH made %v and %d deletes, want %v and 1 delete", u.Calls, deletes, want)
	}
	// The claim writes a record under 1 KB; the completion the record
	// with the DEPTH's answer, whatever size it has now.
	size := m.recordSize(t, "cost-one-depth")
	wantWRU := 1 + 2 + math.Ceil(float64(size)/1024) + 2
	if u.WRU != wantWRU || u.RRU != 0 || u.SQSRequests != 3 || u.SNSPublishes != 0 {
		t.Errorf("one new DEPTH billed %.1f WRU, %.1f RRU, %.0f SQS requests, %.0f SNS publishes; want %.0f (record of %d bytes), 0, 3, 0",
			u.WRU, u.RRU, u.SQSRequests, u.SNSPublishes, wantWRU, size)
	}
	wantUSD := (wantWRU*0.625 + 3*0.40) / 1e6
	if usd := testenv.AWSPrices.USD(u); math.Abs(usd-wantUSD) > 1e-12 {
		t.Errorf("it costs US$%g, want %.0f × 0.625 + 3 × 0.40 per million = US$%g", usd, wantWRU, wantUSD)
	}
}
