package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// The aws-mode tests that need more than one daemon run real `mqprobe run`
// processes, built once per test run, each with its own HTTP port and its
// own embedded queue manager (so each has its own QM1 queues, and a killed
// process's messages are gone with it), all sharing one command queue,
// results queue and idempotency table.

// TestThreeInstancesShareQueueAndTable: 200 distinct commands, each sent
// three times at once, consumed by three processes sharing the queue and the
// table, are executed exactly 200 times: 200 × count messages put over all
// instances, one non-replay result per command and a replay per duplicate.
func TestThreeInstancesShareQueueAndTable(t *testing.T) {
	onEachEmulator(t, func(t *testing.T, _ *awsEmulator) { threeInstancesShareQueueAndTable(t, nil) })
}

// threeInstancesShareQueueAndTable runs the three instances on their own
// embedded queue managers (srv nil) or, with the ibmmq backend, on srv's.
func threeInstancesShareQueueAndTable(t *testing.T, srv *daemontest.MQServer) {
	const commands, copies, count = 200, 3, 5
	env := newLocalAWS(t, 50)
	// No instance dies here, so no message needs its visibility to run out:
	// a long timeout keeps a 2-core machine's stall from turning into an
	// SQS redelivery (a legitimate extra replay this test would count).
	vars := map[string]string{"MQPROBE_SQS_VISIBILITYTIMEOUT": "30s"}
	target := daemontest.Target
	if srv != nil {
		maps.Copy(vars, ibmmqProcessEnv(srv))
		target = srv.Target("DEV.QUEUE.1")
	}
	procs := startDaemonProcesses(t, 3, daemonProcessEnv(env, vars))
	results := newResultQueue(t, env.results)

	run := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	keys := make([]string, commands)
	for i := range keys {
		keys[i] = fmt.Sprintf("three-%s-%03d", run, i)
	}
	body := func(i int) string {
		return fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":%d,"messageSizeBytes":64},"tags":{"n":"%d"}}`, target, count, i)
	}
	began := time.Now()
	var (
		wg      sync.WaitGroup
		sent    atomic.Int64
		mu      sync.Mutex
		errs    []error
		retried = map[string]int{} // key → sends the SDK retried
	)
	sem := make(chan struct{}, 24)
	for i, key := range keys {
		for range copies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				attempts, err := sendCommandCountingAttempts(env.commands, body(i), map[string]string{"Idempotency-Key": key})
				mu.Lock()
				defer mu.Unlock()
				if attempts > 1 {
					retried[key]++
				}
				if err != nil {
					errs = append(errs, err)
					return
				}
				sent.Add(1)
			}()
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("sending %d commands: %d failed: %v", commands*copies, len(errs), err)
	}
	t.Logf("sent %d messages in %s (%d sends retried by the SDK)", sent.Load(), time.Since(began).Round(time.Millisecond), len(retried))

	// Every message ends in exactly one result event: the execution or a
	// replay (a copy meeting the claim in progress is nacked and replays
	// when it comes back).
	isOurs := func(e receivedEvent) bool { return strings.HasPrefix(e.Data.IdempotencyKey, "three-"+run+"-") }
	slowest := results.waitUntil(t, 90*time.Second, func(evs []receivedEvent) (bool, string) {
		n := countReceivedEvents(evs, isOurs)
		return n >= commands*copies, fmt.Sprintf("%d of %d result events", n, commands*copies)
	})
	t.Logf("all %d result events after %s (the slowest took %s from its creation to its receipt)",
		commands*copies, time.Since(began).Round(time.Millisecond), slowest.Round(time.Millisecond))
	waitSQSQueueDrained(t, env.commands, 20*time.Second)
	results.collectFor(t, time.Second) // anything published late

	byKey := map[string][]receivedEvent{}
	for _, e := range results.received() {
		if isOurs(e) {
			byKey[e.Data.IdempotencyKey] = append(byKey[e.Data.IdempotencyKey], e)
		}
	}
	executions, replays, redelivered, lost, duplicated := 0, 0, 0, 0, 0
	executedBy := map[string]int{} // event source → executions
	for _, key := range keys {
		var executed []receivedEvent
		keyReplays := 0
		for _, e := range byKey[key] {
			switch {
			case e.Data.Status != result.StatusCompleted:
				t.Errorf("key %s: %s event %+v", key, e.Data.Status, e.Data.Error)
			case e.Data.Replay:
				keyReplays++
			default:
				executed = append(executed, e)
			}
		}
		executions += len(executed)
		replays += keyReplays
		for _, e := range executed {
			executedBy[e.Source]++
		}
		switch len(executed) {
		case 0:
			lost++
		case 1:
		default:
			duplicated += len(executed) - 1
		}
		if len(executed) != 1 {
			t.Errorf("key %s: %d non-replay results, want exactly 1", key, len(executed))
			continue
		}
		var res struct{ Enqueued int }
		if err := json.Unmarshal(executed[0].Data.Result, &res); err != nil || res.Enqueued != count || executed[0].Data.Attempt != 1 {
			t.Errorf("key %s: execution attempt %d result %s, want attempt 1 enqueuing %d", key, executed[0].Data.Attempt, executed[0].Data.Result, count)
		}
		// SQS delivers at least once: now and then (moto more often) a copy
		// arrives twice and rightly replays twice. Fewer replays than
		// copies would be a copy without an outcome.
		if keyReplays < copies-1 {
			t.Errorf("key %s: %d replays, want at least %d (one per duplicate)", key, keyReplays, copies-1)
		}
		if extra := keyReplays - (copies - 1); extra > 0 {
			redelivered += extra
			t.Logf("key %s: %d replays beyond one per copy (%d of its sends retried by the SDK): SQS delivered a copy again", key, extra, retried[key])
		}
	}
	if len(byKey) != commands || executions != commands {
		t.Errorf("%d keys with results, %d executions (%d replays); want %d, %d",
			len(byKey), executions, replays, commands, commands)
	}
	// A redelivery is rare; many would mean results published twice.
	if redelivered > commands*copies/100 {
		t.Errorf("%d copies replayed twice, more than 1%% of %d: not SQS's rare redelivery", redelivered, commands*copies)
	}

	if srv != nil {
		// One queue for all: exactly one execution's messages per command.
		d := procs[0].DepthOf(t, target)
		if d != commands*count {
			t.Errorf("the shared DEV.QUEUE.1 holds %d messages, want exactly %d (%d commands × %d)", d, commands*count, commands, count)
		}
		daemontest.ReportFault(t, "ibmmq-three-instances-shared-queue",
			daemontest.FaultFigures{Sent: commands * copies, Executed: executions - duplicated, Duplicated: duplicated, Lost: lost},
			daemontest.FaultFigures{Sent: commands * copies, Executed: commands},
			"onSharedQueue", d, "replays", replays)
		for _, p := range procs {
			if executedBy["mqprobe/"+p.Name] == 0 {
				t.Errorf("instance %s executed nothing (%v): the work was not shared", p.Name, executedBy)
			}
		}
		t.Logf("executions per instance: %v", executedBy)
		if n := sqsQueueMessages(t, env.deadLetters); n != 0 {
			t.Errorf("%d commands in the dead-letter queue", n)
		}
		return
	}
	total := 0
	depths := make([]int, len(procs))
	for i, p := range procs {
		depths[i] = p.Depth(t, "DEV.QUEUE.1")
		total += depths[i]
	}
	t.Logf("messages put per instance: %v", depths)
	if total != commands*count {
		t.Errorf("DEV.QUEUE.1 depths %v sum to %d, want exactly %d (%d executions × %d)", depths, total, commands*count, commands, count)
	}
	for i, d := range depths {
		if d == 0 {
			t.Errorf("instance %s executed nothing (depths %v): the work was not shared", procs[i].Name, depths)
		}
		if n := executedBy["mqprobe/"+procs[i].Name]; d != n*count {
			t.Errorf("instance %s: depth %d, want %d: %d executions reported × %d", procs[i].Name, d, n*count, n, count)
		}
	}
	if n := sqsQueueMessages(t, env.deadLetters); n != 0 {
		t.Errorf("%d commands in the dead-letter queue", n)
	}
}

// TestFaultKilledInstanceIsTakenOver: the instance running a slow PRODUCE
// is killed with SIGKILL after some of it is committed; the other instance
// gets the command once its visibility lapses and, the dead holder's lease
// expired, takes the claim over (attempt 2) and completes it once. Each
// instance has its own embedded queue manager, whose messages die with it:
// a PRODUCE on it checkpoints nothing per commit, as there is nothing a
// takeover could keep, so the survivor starts over and puts all of them.
// (On a queue manager that outlives the instance the takeover resumes from
// the checkpoint: TestIBMMQKilledInstanceRepeatsAtMostOneTransaction.)
func TestFaultKilledInstanceIsTakenOver(t *testing.T) {
	onEachEmulator(t, faultKilledInstanceIsTakenOver)
}

func faultKilledInstanceIsTakenOver(t *testing.T, _ *awsEmulator) {
	const count, txSize = 40, 5
	env := newLocalAWS(t, 50)
	procs := startDaemonProcesses(t, 2, daemonProcessEnv(env, map[string]string{
		"MQPROBE_IDEMPOTENCY_LEASE":     "2s",
		"MQPROBE_SQS_VISIBILITYTIMEOUT": "3s",
	}))
	results := newResultQueue(t, env.results)
	key := fmt.Sprintf("takeover-%d", time.Now().UnixNano()%1e9)
	body := fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":%d,"messageSizeBytes":64,"rateLimitPerSec":20,"transaction":{"enabled":true,"txSize":%d}}}`,
		daemontest.Target, count, txSize)
	sent := time.Now()
	sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": key})

	// Two commits mean the first checkpoint is written (a checkpoint
	// follows its commit, and the next transaction follows the checkpoint).
	var victim, survivor *daemontest.Process
	seen := 0
	testenv.Eventually(t, 30*time.Second, fmt.Sprintf("an instance committing %d messages", 2*txSize), func() bool {
		for i, p := range procs {
			if d := p.Depth(t, "DEV.QUEUE.1"); d >= 2*txSize {
				victim, survivor, seen = p, procs[1-i], d
				return true
			}
		}
		return false
	})
	if seen >= count {
		t.Fatalf("instance %s finished (depth %d) before it could be killed: the command is too fast", victim.Name, seen)
	}
	victim.Kill(t)
	killed := time.Now()
	t.Logf("killed %s at depth %d, %s after sending", victim.Name, seen, killed.Sub(sent).Round(time.Millisecond))

	tk := awaitTakeover(t, env, results, key, survivor, count, 30*time.Second, true)
	t.Logf("completed %s after the kill; %s started over (the victim had committed %d)", time.Since(killed).Round(time.Millisecond), survivor.Name, seen)
	daemontest.ReportFault(t, "sigkill-mid-produce-embedded", tk.figures, daemontest.FaultFigures{Sent: 1, Executed: 1},
		"attempt", tk.attempt, "diedWithTheVictim", seen, "txSize", txSize)
}

// takeover is what the survivor of a handed-over PRODUCE reported.
type takeover struct {
	from, attempt int
	figures       daemontest.FaultFigures
}

// awaitTakeover waits for key's result and checks that survivor completed it
// on attempt 2, resuming from a checkpoint (or, with startsOver, from the
// start, reporting no resumedFrom), with the count of messages it reports
// and holds (a dead instance's embedded queues die with it), and that the
// record, the command queue and the result events say it ran once.
func awaitTakeover(t *testing.T, env *localAWS, results *resultQueue, key string, survivor *daemontest.Process, count int, timeout time.Duration, startsOver bool) takeover {
	t.Helper()
	e := results.wait(key, 1, timeout)[0]
	if e.Data.Status != result.StatusCompleted || e.Data.Replay || e.Data.Attempt != 2 || e.Source != "mqprobe/"+survivor.Name {
		t.Fatalf("result %s replay=%v attempt %d source %s error %+v; want COMPLETED on attempt 2 by %s, not a replay",
			e.Data.Status, e.Data.Replay, e.Data.Attempt, e.Source, e.Data.Error, survivor.Name)
	}
	var res struct {
		Enqueued    int
		ResumedFrom *int
	}
	if err := json.Unmarshal(e.Data.Result, &res); err != nil {
		t.Fatalf("result %s: %v", e.Data.Result, err)
	}
	if startsOver != (res.ResumedFrom == nil) {
		t.Fatalf("result %s: resumedFrom %v, want it only when resuming (starts over: %v)", e.Data.Result, res.ResumedFrom, startsOver)
	}
	from := 0
	if res.ResumedFrom != nil {
		from = *res.ResumedFrom
	}
	survivorPut := survivor.Depth(t, "DEV.QUEUE.1")
	if res.Enqueued != count || survivorPut != count-from {
		t.Errorf("enqueued %d (cumulative over attempts), survivor holds %d; want %d and %d − resumedFrom %d",
			res.Enqueued, survivorPut, count, count, from)
	}
	rec, ok, err := dynamodb.New(ddbClient, env.table).Get(context.Background(), "PRODUCE#"+key)
	if err != nil || !ok || rec.Status != idempotency.StatusCompleted || rec.Attempt != 2 {
		t.Errorf("record %+v (found %v, %v), want COMPLETED on attempt 2", rec, ok, err)
	}
	waitSQSQueueDrained(t, env.commands, 15*time.Second)
	results.quiet(key, 1, time.Second)
	tk := takeover{from: from, attempt: e.Data.Attempt, figures: daemontest.FaultFigures{Sent: 1}}
	switch executions := countReceivedEvents(results.of(key), func(e receivedEvent) bool {
		return e.Data.Status == result.StatusCompleted && !e.Data.Replay
	}); {
	case executions > 1:
		tk.figures.Duplicated++
	case executions == 1 && res.Enqueued == count && survivorPut == count-from:
		tk.figures.Executed++
	default:
		tk.figures.Lost++
	}
	return tk
}

// TestPublishFailureIsReplayed: with results going to an SNS topic that has
// been deleted, a command executes, is recorded COMPLETED, fails to publish
// and is nacked, and keeps failing on redelivery; once the topic (same ARN)
// and its subscription are back, the next redelivery publishes the stored
// result as a replay, and the command was executed once.
func TestPublishFailureIsReplayed(t *testing.T) {
	onEachEmulator(t, publishFailureIsReplayed)
}

func publishFailureIsReplayed(t *testing.T, _ *awsEmulator) {
	const count = 6
	ctx := context.Background()
	env := newLocalAWS(t, 50)
	topicName := uniqueName(t)
	created, err := snsClient.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(topicName)})
	if err != nil {
		t.Fatalf("create topic: %v", err)
	}
	topic := aws.ToString(created.TopicArn)
	t.Cleanup(func() { _, _ = snsClient.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(topic)}) })
	resultsARN := sqsQueueARN(t, env.results)
	subscribe := func() {
		t.Helper()
		_, err := snsClient.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"),
			Endpoint: aws.String(resultsARN), Attributes: map[string]string{"RawMessageDelivery": "true"}})
		if err != nil {
			t.Fatalf("subscribe the results queue: %v", err)
		}
	}
	subscribe()
	key := fmt.Sprintf("publish-fail-%d", time.Now().UnixNano()%1e9)

	// Every publish attempt of key is recorded; the gate holds redeliveries
	// of key off (as an unavailable store: nothing runs, the message is
	// nacked) while the topic is being restored.
	var (
		mu        sync.Mutex
		gateShut  bool
		admitted  int // Begins of key let through
		attempts  []result.Data
		published []error
	)
	h := daemontest.Start(t, inAWSMode(env), func(s *daemontest.Setup) {
		s.Cfg.Results.QueueURL = ""
		s.Cfg.Results.TopicARN = topic
		s.Cfg.Bus.RetryDelay = 500 * time.Millisecond
		s.Cfg.Idempotency.LocalCacheSize = 0 // every redelivery reaches the store, and the gate
		s.Opts.Store.(*storetest.Counting).BeforeBegin = func(c idempotency.Claim) error {
			if c.IdempotencyKey != key {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			if gateShut {
				return errors.New("held off by the test while the topic is restored")
			}
			admitted++
			return nil
		}
		s.Opts.WrapPublisher = func(p result.Publisher) result.Publisher {
			return result.PublisherFunc(func(ctx context.Context, e result.Event) error {
				err := p.Publish(ctx, e)
				if e.Data.IdempotencyKey == key {
					mu.Lock()
					attempts, published = append(attempts, e.Data), append(published, err)
					mu.Unlock()
				}
				return err
			})
		}
	})
	results := newResultQueue(t, env.results)
	_ = h.Depth("DEV.QUEUE.1") // the daemon works and the topic takes events

	if _, err := snsClient.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(topic)}); err != nil {
		t.Fatalf("delete topic: %v", err)
	}
	body := fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":%d,"messageSizeBytes":64}}`, daemontest.Target, count)
	sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": key})

	// The execution and at least one replay fail to publish.
	snapshot := func() ([]result.Data, []error, int) {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(attempts), slices.Clone(published), admitted
	}
	if !testenv.Until(30*time.Second, func() bool { a, _, _ := snapshot(); return len(a) >= 2 }) {
		a, p, _ := snapshot()
		t.Fatalf("after 30s %d publish attempts (%v), want the execution and a redelivery", len(a), p)
	}
	a, p, _ := snapshot()
	if a[0].Replay || a[0].Status != result.StatusCompleted || a[0].Attempt != 1 || !a[1].Replay {
		t.Errorf("publish attempts %+v, want the execution then a replay", a[:2])
	}
	for i, err := range p {
		if err == nil {
			t.Fatalf("publish attempt %d succeeded while the topic was deleted", i+1)
		}
	}
	t.Logf("publish with the topic deleted: %v", p[0])
	rec, ok, err := dynamodb.New(ddbClient, env.table).Get(ctx, "PRODUCE#"+key)
	if err != nil || !ok || rec.Status != idempotency.StatusCompleted {
		t.Fatalf("record %+v (found %v, %v), want COMPLETED although unpublished", rec, ok, err)
	}
	results.poll()
	if evs := results.of(key); len(evs) != 0 {
		t.Fatalf("%d events reached the results queue while the topic was deleted", len(evs))
	}

	// Restore the topic with no redelivery in flight, so none publishes to
	// the re-created topic before its subscription exists.
	mu.Lock()
	gateShut = true
	mu.Unlock()
	testenv.Eventually(t, 15*time.Second, "the publishing of every redelivery of "+key+" finished", func() bool {
		a, _, n := snapshot()
		return len(a) == n
	})
	again, err := snsClient.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(topicName)})
	if err != nil {
		t.Fatalf("re-create topic: %v", err)
	}
	if got := aws.ToString(again.TopicArn); got != topic {
		t.Fatalf("re-created topic has ARN %s, want the configured %s", got, topic)
	}
	subscribe()
	mu.Lock()
	gateShut = false
	mu.Unlock()

	evs := results.wait(key, 1, 30*time.Second)
	e := evs[0]
	if e.Data.Status != result.StatusCompleted || !e.Data.Replay || e.Data.Attempt != 1 {
		t.Errorf("event %s replay=%v attempt %d, want the replay of the attempt-1 completion", e.Data.Status, e.Data.Replay, e.Data.Attempt)
	}
	var res struct{ Enqueued int }
	if err := json.Unmarshal(e.Data.Result, &res); err != nil || res.Enqueued != count {
		t.Errorf("replayed result %s, want enqueued %d", e.Data.Result, count)
	}
	waitSQSQueueDrained(t, env.commands, 15*time.Second)
	results.quiet(key, 1, time.Second)
	if d := h.Depth("DEV.QUEUE.1"); d != count {
		t.Errorf("depth %d, want %d: executed exactly once", d, count)
	}
	a, p, _ = snapshot()
	executions := 0
	for _, d := range a {
		if !d.Replay {
			executions++
		}
	}
	if executions != 1 || p[len(p)-1] != nil {
		t.Errorf("%d executions over %d publish attempts (last error %v), want 1 execution and a final successful replay", executions, len(a), p[len(p)-1])
	}
	t.Logf("%d publish attempts, the last one after the topic came back", len(a))
}

// --- daemon processes ---

// daemonProcessEnv is the configuration of a daemon process on env, as
// MQPROBE_* variables (plus extra); the port and instance are added per
// process.
func daemonProcessEnv(env *localAWS, extra map[string]string) map[string]string {
	vars := map[string]string{
		"MQPROBE_MODE":                       "aws",
		"MQPROBE_SQS_COMMANDQUEUE":           env.commandsName,
		"MQPROBE_SQS_WAITTIMESECONDS":        "1",
		"MQPROBE_SQS_VISIBILITYTIMEOUT":      "5s",
		"MQPROBE_SQS_MAXMESSAGES":            "4",
		"MQPROBE_RESULTS_SQSQUEUE":           env.resultsName,
		"MQPROBE_IDEMPOTENCY_STORE":          "dynamodb",
		"MQPROBE_IDEMPOTENCY_DYNAMODB_TABLE": env.table,
		"MQPROBE_BUS_NACKDELAY":              "1s",
		"MQPROBE_TARGETS_ALLOWINLINE":        "true",
		"MQPROBE_HTTP_SHUTDOWNTIMEOUT":       "3s",
		"MQPROBE_LOG_LEVEL":                  "warn",
	}
	maps.Copy(vars, extra)
	return vars
}

// ibmmqProcessEnv points a daemon process's ibmmq backend at srv (the
// daemon binary has it when the tests run with -tags ibmmq).
func ibmmqProcessEnv(srv *daemontest.MQServer) map[string]string {
	return map[string]string{"MQPROBE_MQ_BACKEND": "ibmmq", "MQPROBE_TARGETS_INLINE_HOSTS": "127.0.0.1:" + srv.Port}
}

// startDaemonProcesses starts n daemon processes at once with vars and waits
// until each is ready. A cleanup stops them all with SIGTERM (SIGKILL after
// 20s) and prints their logs if the test failed; a watchdog kills them
// before the test binary's own timeout would leave them orphaned.
func startDaemonProcesses(t *testing.T, n int, vars map[string]string) []*daemontest.Process {
	t.Helper()
	bin := daemontest.Binary(t)
	dir := t.TempDir()
	procs := make([]*daemontest.Process, n)
	var started []*daemontest.Process
	var mu sync.Mutex
	stopAll := func(sig os.Signal) {
		mu.Lock()
		ps := slices.Clone(started)
		mu.Unlock()
		for _, p := range ps {
			p.Stop(sig)
		}
	}
	var watchdog *time.Timer
	if deadline, ok := t.Deadline(); ok && time.Until(deadline) > 20*time.Second {
		watchdog = time.AfterFunc(time.Until(deadline)-10*time.Second, func() { stopAll(os.Kill) })
	}
	t.Cleanup(func() {
		if watchdog != nil {
			watchdog.Stop()
		}
		mu.Lock()
		ps := slices.Clone(started)
		mu.Unlock()
		died := map[*daemontest.Process]bool{}
		for _, p := range procs {
			if p == nil {
				continue
			}
			select {
			case <-p.Exited:
				if died[p] = !p.KilledByTest() && !p.StoppedByTest.Load(); died[p] {
					t.Errorf("%s died during the test: %v", p.Name, p.Err)
				}
			default:
			}
		}
		var wg sync.WaitGroup
		for _, p := range ps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.Stop(syscall.SIGTERM)
			}()
		}
		wg.Wait()
		for _, p := range ps {
			if p.Err != nil && !p.KilledByTest() && !died[p] && slices.Contains(procs, p) {
				t.Errorf("%s: exited with %v after SIGTERM", p.Name, p.Err)
			}
			if t.Failed() {
				t.Logf("%s (%s) stderr:\n%s", p.Name, p.Base, daemontest.LogTail(p.Log, 32<<10))
			}
		}
	})

	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("%s-%d", strings.ToLower(nameStrip.ReplaceAllString(t.Name(), "")), i+1)
			// A port found free can be taken before the daemon binds it:
			// try another.
			for try := range 3 {
				p, err := launchDaemonProcess(bin, dir, fmt.Sprintf("%s-try%d", name, try), name, vars)
				if p != nil {
					mu.Lock()
					started = append(started, p)
					mu.Unlock()
				}
				errs[i] = err
				if err == nil {
					procs[i] = p
					return
				}
				if p != nil {
					select {
					case <-p.Exited: // died early (port taken?): retry
					default:
						return // alive but not ready: give up
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("starting %d daemon processes: %v", n, err)
	}
	return procs
}

// launchDaemonProcess starts one process and waits (up to 30s) until it is
// ready. It returns the process whenever one was started.
func launchDaemonProcess(bin, dir, logName, name string, vars map[string]string) (*daemontest.Process, error) {
	port, err := daemontest.FreeLoopbackPort()
	if err != nil {
		return nil, err
	}
	p := &daemontest.Process{Name: name, Base: "http://127.0.0.1:" + port, Log: filepath.Join(dir, logName+".log"), Exited: make(chan struct{})}
	logFile, err := os.Create(p.Log)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	p.Cmd = exec.Command(bin, "run")
	p.Cmd.Dir = dir
	p.Cmd.Stdout, p.Cmd.Stderr = logFile, logFile
	all := maps.Clone(vars)
	all["MQPROBE_HTTP_ADDR"] = "127.0.0.1:" + port
	all["MQPROBE_INSTANCEID"] = name
	p.Cmd.Env = processEnv(all)
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{}
	daemontest.DieWithParent(p.Cmd.SysProcAttr)
	// Pdeathsig follows the thread that forks: keep it one that lives.
	runtime.LockOSThread()
	err = p.Cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() {
		p.Err = p.Cmd.Wait()
		close(p.Exited)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if status, _, _ := p.Get("/health/ready"); status == http.StatusOK {
			return p, nil
		}
		select {
		case <-p.Exited:
			return p, fmt.Errorf("%s exited before it was ready (%v):\n%s", name, p.Err, daemontest.LogTail(p.Log, 4<<10))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return p, fmt.Errorf("%s not ready within 30s:\n%s", name, daemontest.LogTail(p.Log, 4<<10))
		}
	}
}

// processEnv is the environment of an mqprobe process: this one's as a
// container would have it (no machine variables, such as AWS_CA_BUNDLE or
// proxies, and none of the test's own MQPROBE_* settings), the current
// emulator's endpoints and credentials, then vars.
func processEnv(vars map[string]string) []string {
	var env []string
	for _, kv := range testenv.WithoutMachineEnv(os.Environ()) {
		if !strings.HasPrefix(kv, "MQPROBE_") {
			env = append(env, kv)
		}
	}
	all := maps.Clone(awsEnv)
	maps.Copy(all, vars)
	for _, k := range slices.Sorted(maps.Keys(all)) {
		env = append(env, k+"="+all[k])
	}
	return env
}

// --- queues ---

// trySendCommand sends body with String attributes, for goroutines.
func trySendCommand(queueURL, body string, attrs map[string]string) error {
	_, err := sendCommandCountingAttempts(queueURL, body, attrs)
	return err
}

// sendCommandCountingAttempts sends a command and says how many
// SendMessage requests the SDK made for it. More than one means the SDK
// retried, and SQS may then hold the command twice: a send whose answer was
// lost may still have been enqueued.
func sendCommandCountingAttempts(queueURL, body string, attrs map[string]string) (attempts int, err error) {
	in := &sqs.SendMessageInput{QueueUrl: aws.String(queueURL), MessageBody: aws.String(body),
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{}}
	for k, v := range attrs {
		in.MessageAttributes[k] = sqstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	countAttempts := func(stack *middleware.Stack) error {
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("countAttempts",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				attempts++
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	}
	_, err = sqsClient.SendMessage(context.Background(), in, func(o *sqs.Options) { o.APIOptions = append(o.APIOptions, countAttempts) })
	return attempts, err
}

func sqsQueueARN(t testing.TB, url string) string {
	t.Helper()
	out, err := sqsClient.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatalf("queue ARN: %v", err)
	}
	return out.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
}

// sqsQueueMessages is how many messages a queue holds, visible or not.
func sqsQueueMessages(t testing.TB, url string) int {
	t.Helper()
	out, err := sqsClient.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		t.Fatalf("queue attributes: %v", err)
	}
	n := 0
	for _, a := range []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
		sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible} {
		v, err := strconv.Atoi(out.Attributes[string(a)])
		if err != nil {
			t.Fatalf("queue attribute %s = %q", a, out.Attributes[string(a)])
		}
		n += v
	}
	return n
}

// waitSQSQueueDrained waits until every command was deleted (acked).
func waitSQSQueueDrained(t testing.TB, url string, timeout time.Duration) {
	t.Helper()
	n := 0
	if !testenv.UntilEvery(timeout, 100*time.Millisecond, func() bool { n = sqsQueueMessages(t, url); return n == 0 }) {
		t.Fatalf("command queue still holds %d messages after %s", n, timeout)
	}
}

// received returns every event received so far.
func (q *resultQueue) received() []receivedEvent {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.events)
}

// waitUntil polls until done says the events received so far are enough.
// It fails when no event has arrived for quiet: a stall, not a slow machine
// (a loaded CI runner with moto takes minutes for what goaws does in
// seconds, which is no finding), or after 5 × quiet in all, which only a
// loop that never settles would reach. It returns the longest time an event took
// from its creation to its receipt here.
func (q *resultQueue) waitUntil(t testing.TB, quiet time.Duration, done func([]receivedEvent) (bool, string)) (slowest time.Duration) {
	t.Helper()
	began, lastEvent := time.Now(), time.Now()
	// Each poll waits up to a second for a message; the ticker only spaces
	// the polls of an emulator that answers an empty queue at once.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		before := len(q.received())
		q.poll()
		for _, e := range q.received()[before:] {
			slowest = max(slowest, time.Since(e.Time))
		}
		ok, progress := done(q.received())
		if ok {
			return slowest
		}
		switch {
		case time.Since(began) > 5*quiet:
			t.Fatalf("still waiting after %s: %s", time.Since(began).Round(time.Second), progress)
		case len(q.received()) > before:
			lastEvent = time.Now()
			continue
		case time.Since(lastEvent) > quiet:
			t.Fatalf("no event for %s (waiting %s): %s", quiet, time.Since(began).Round(time.Second), progress)
		}
		<-tick.C // the queue is empty for now
	}
}

// collectFor polls for d more.
func (q *resultQueue) collectFor(t testing.TB, d time.Duration) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); <-tick.C {
		q.poll()
	}
}

func countReceivedEvents(evs []receivedEvent, match func(receivedEvent) bool) int {
	n := 0
	for _, e := range evs {
		if match(e) {
			n++
		}
	}
	return n
}
