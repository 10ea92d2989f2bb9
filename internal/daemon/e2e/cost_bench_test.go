//go:build ibmmq

package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// BenchmarkCommandCost: what a command costs on AWS, every request the
// daemon process sends to SQS, SNS and DynamoDB counted on the wire
// (testenv.AWSMeter) and billed at testenv.AWSPrices. Commands come from
// a goaws SQS queue and results go to one; records are in moto's DynamoDB, whose failed conditional PutItem returns the record as AWS's
// does (dynalite's does not, and a duplicate would also read it). The MQ
// side is the IBM MQ client path to an mqserver process. Each figure is
// per command, over b.N rounds of costCommands commands (produceCommands
// PRODUCEs, one TEST) sent at once after one warm-up command (which looks
// the results queue up); receives that found nothing are
// reported apart (sqs-idle/cmd), as their number follows pollers and
// time rather than commands.
func BenchmarkCommandCost(b *testing.B) {
	const costCommands, produceCommands = 20, 2
	goaws, moto := emulators[0], emulators[1]
	// moto's long poll waits out its whole wait time unless maxMessages
	// messages are there (a second per command here), goaws's does not.
	mixed := &awsEmulator{name: "goaws+moto", sqs: goaws.sqs, sns: goaws.sns, dynamodb: moto.dynamodb, allOld: true}
	if err := useEmulator(mixed); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := useEmulator(emulators[0]); err != nil {
			b.Error(err)
		}
	})
	srv := daemontest.StartMQServer(b)
	depth := `{"operationType":"DEPTH",` + srv.Target("DEV.QUEUE.1") + `}`
	vars := func(extra map[string]string) map[string]string {
		v := ibmmqProcessEnv(srv)
		v["MQPROBE_SQS_MAXMESSAGES"] = "10"
		for k, x := range extra {
			v[k] = x
		}
		return v
	}
	for _, maxMessages := range []int{1, 10} {
		b.Run(fmt.Sprintf("depth-new/maxMessages=%d", maxMessages), func(b *testing.B) {
			m := startWarm(b, vars(map[string]string{"MQPROBE_SQS_MAXMESSAGES": strconv.Itoa(maxMessages)}), depth)
			var u testenv.Usage
			for range b.N {
				u = u.Add(m.run(b, depth, m.keys(costCommands)))
			}
			reportCost(b, u, b.N*costCommands)
		})
	}
	for _, dup := range []struct{ name, cache string }{{"depth-duplicate", "0"}, {"depth-duplicate-local-cache", "100000"}} {
		b.Run(dup.name, func(b *testing.B) {
			m := startWarm(b, vars(map[string]string{"MQPROBE_IDEMPOTENCY_LOCALCACHESIZE": dup.cache}), depth)
			var u testenv.Usage
			for range b.N {
				keys := m.keys(costCommands)
				m.run(b, depth, keys)
				u = u.Add(m.run(b, depth, keys))
			}
			reportCost(b, u, b.N*costCommands)
		})
	}
	b.Run("produce-10000-tx100", func(b *testing.B) {
		produce := `{"operationType":"PRODUCE",` + srv.Target("DEV.QUEUE.2") +
			`,"batch":{"count":10000,"messageSizeBytes":64,"transaction":{"enabled":true,"txSize":100}},"mqProps":{"expiryMs":1}}`
		m := startWarm(b, vars(nil), depth)
		var u testenv.Usage
		for range b.N {
			u = u.Add(m.run(b, produce, m.keys(produceCommands)))
		}
		reportCost(b, u, b.N*produceCommands)
	})
	// A TEST's cost is its claim and completion plus what it does while it
	// runs (lease heartbeats, progress events): measured for 6 s and 12 s,
	// the difference ÷ 6 s is the cost of a second, and 60 s is the 6 s
	// run plus 54 such seconds.
	b.Run("test-60s", func(b *testing.B) {
		m := startWarm(b, vars(nil), depth)
		test := func(seconds int) string {
			return fmt.Sprintf(`{"operationType":"TEST",%s,"durationSeconds":%d,"batch":{"messageSizeBytes":256,"rateLimitPerSec":100}}`,
				srv.Target("DEV.QUEUE.3"), seconds)
		}
		var total costFigures
		for range b.N {
			short := figuresOf(m.run(b, test(6), m.keys(1)))
			long := figuresOf(m.run(b, test(12), m.keys(1)))
			total = total.plus(short.plus(long.minus(short).times(54.0 / 6)))
		}
		total.report(b, b.N)
	})
}

// startWarm starts a metered daemon process and runs one command through
// it, so that what the process does once (looking the results queue up)
// is not counted.
func startWarm(b *testing.B, vars map[string]string, body string) *costRun {
	m := &costRun{meteredAWS: startMetered(b, vars), run0: strconv.FormatInt(time.Now().UnixNano(), 36)}
	m.results = newResultQueue(b, m.env.results)
	m.run(b, body, m.keys(1))
	return m
}

type costRun struct {
	*meteredAWS
	results *resultQueue
	run0    string
	seq     int
}

// keys are n new idempotency keys.
func (m *costRun) keys(n int) []string {
	out := make([]string, n)
	for i := range out {
		m.seq++
		out[i] = fmt.Sprintf("cost-%s-%d", m.run0, m.seq)
	}
	return out
}

// run sends body under each key at once (in batches of 10), waits for each key's final
// result event and for the command queue to be empty, and returns what
// the daemon's requests cost meanwhile.
func (m *costRun) run(b *testing.B, body string, keys []string) testenv.Usage {
	b.Helper()
	m.usage()
	seen := map[string]int{}
	// Ten at a time, as a publisher batching its sends would: so that
	// commands wait on the queue and sqs.maxMessages can take several.
	for batch := range slices.Chunk(keys, 10) {
		var entries []sqstypes.SendMessageBatchRequestEntry
		for i, k := range batch {
			seen[k] = len(m.results.of(k))
			entries = append(entries, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(body),
				MessageAttributes: map[string]sqstypes.MessageAttributeValue{
					"Idempotency-Key": {DataType: aws.String("String"), StringValue: aws.String(k)}}})
		}
		out, err := sqsClient.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(m.env.commands), Entries: entries})
		if err != nil || len(out.Failed) > 0 {
			b.Fatalf("send %v: %v %+v", batch, err, out)
		}
	}
	for _, k := range keys {
		for n := seen[k] + 1; ; n++ {
			evs := m.results.wait(k, n, 2*time.Minute)
			if s := evs[len(evs)-1].Data.Status; s == result.StatusCompleted || s == result.StatusFailed {
				if s == result.StatusFailed {
					b.Fatalf("command %s failed: %+v", k, evs[len(evs)-1].Data.Error)
				}
				break
			}
		}
	}
	waitSQSQueueDrained(b, m.env.commands, time.Minute)
	return m.usage()
}

// costFigures is a bill in the units the report gives.
type costFigures struct {
	wru, rru, sqs, sqsIdle, sns, ddbCalls, usd float64
}

func figuresOf(u testenv.Usage) costFigures {
	calls := 0
	for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem", "GetItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem"} {
		calls += u.Calls[op]
	}
	return costFigures{wru: u.WRU, rru: u.RRU, sqs: u.SQSRequests, sqsIdle: u.SQSIdleRequests, sns: u.SNSPublishes,
		ddbCalls: float64(calls), usd: testenv.AWSPrices.USD(u)}
}

func (c costFigures) plus(d costFigures) costFigures {
	return costFigures{c.wru + d.wru, c.rru + d.rru, c.sqs + d.sqs, c.sqsIdle + d.sqsIdle, c.sns + d.sns, c.ddbCalls + d.ddbCalls, c.usd + d.usd}
}

func (c costFigures) minus(d costFigures) costFigures { return c.plus(d.times(-1)) }

func (c costFigures) times(f float64) costFigures {
	return costFigures{c.wru * f, c.rru * f, c.sqs * f, c.sqsIdle * f, c.sns * f, c.ddbCalls * f, c.usd * f}
}

func (c costFigures) report(b *testing.B, commands int) {
	per := c.times(1 / float64(commands))
	b.ReportMetric(per.wru, "WRU/cmd")
	b.ReportMetric(per.rru, "RRU/cmd")
	b.ReportMetric(per.ddbCalls, "dynamodb-calls/cmd")
	b.ReportMetric(per.sqs, "sqs-requests/cmd")
	b.ReportMetric(per.sqsIdle, "sqs-idle/cmd")
	b.ReportMetric(per.sns, "sns-publishes/cmd")
	b.ReportMetric(per.usd*1e6, "USD/Mcmds")
}

func reportCost(b *testing.B, u testenv.Usage, commands int) {
	b.Logf("%d commands: %v", commands, u.Calls)
	figuresOf(u).report(b, commands)
}
