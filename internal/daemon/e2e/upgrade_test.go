package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/result"
)

// The rolling-upgrade tests: the previous release's mqprobe
// (daemontest.PreviousRelease, built from git) and this tree's run side by
// side on one DynamoDB table and one SQS command queue, as they do while a
// deployment rolls, and each completes, replays, refuses or resumes what the
// other started, exactly once. Subtests are named scenario/direction
// ("old-to-new": the old release starts, the new one follows).

// TestUpgradeMixedVersions: on each emulator, one old and one new process
// share the table and the command queue, each with its own embedded queue
// manager (whose depth shows what that process executed).
//   - replay: a PRODUCE completed by one (over HTTP) is replayed by the
//     other: same status, same body apart from "replay", nothing put again;
//   - key-reuse: the key with a different request is refused by the other
//     (409), nothing put;
//   - consume-replay: a CONSUME completed by one is replayed by the other,
//     its captured messages included;
//   - sqs-duplicates: commands sent twice each to the shared queue, taken by
//     whichever process, each execute exactly once, every copy replayed.
func TestUpgradeMixedVersions(t *testing.T) {
	previous, current := daemontest.Versions(t)
	onEachEmulator(t, func(t *testing.T, _ *awsEmulator) {
		env := newLocalAWS(t, 50)
		// No process dies here: a long visibility timeout keeps a stall of
		// a busy machine from becoming a redelivery.
		vars := daemonProcessEnv(env, map[string]string{"MQPROBE_IDEMPOTENCY_LEASE": "2s", "MQPROBE_SQS_VISIBILITYTIMEOUT": "30s"})
		old, new := startVersion(t, previous, vars), startVersion(t, current, vars)
		results := newResultQueue(t, env.results)
		run := fmt.Sprintf("upgrade-%d", time.Now().UnixNano()%1e9)
		const count = 3
		produce := func(n int) string {
			return fmt.Sprintf(`{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"batch":{"count":%d,"messageSizeBytes":16}}`, n)
		}
		eachDirection(t, "replay+key-reuse", old, new, func(t *testing.T, dir string, first, second *daemontest.Process) {
			key := run + "-" + dir
			firstBefore, secondBefore := first.Depth(t, "DEV.QUEUE.1"), second.Depth(t, "DEV.QUEUE.1")
			original := first.Post(t, "/messages/produce", produce(count), "Idempotency-Key", key)
			if original.Status != http.StatusCreated {
				t.Fatalf("replay %s: %s executing: %d %s, want 201", dir, first.Name, original.Status, original.Body)
			}
			if r := original.JSON(t)["replay"]; r == true {
				t.Errorf("replay %s: %s's first answer says replay %v", dir, first.Name, r)
			}
			replay := second.Post(t, "/messages/produce", produce(count), "Idempotency-Key", key)
			if replay.Status != original.Status || replay.Header.Get("Idempotent-Replay") != "true" {
				t.Errorf("replay %s: %s answered %d Idempotent-Replay=%q %s, want %d and true",
					dir, second.Name, replay.Status, replay.Header.Get("Idempotent-Replay"), replay.Body, original.Status)
			}
			if err := daemontest.SameApartFromReplay(original.Body, replay.Body); err != nil {
				t.Errorf("replay %s: %s replaying %s's record: %v", dir, second.Name, first.Name, err)
			}
			// This tree's replays say so in the body too (the previous
			// release sent the stored "replay":false).
			if r := replay.JSON(t)["replay"]; second == new && r != true {
				t.Errorf("replay %s: %s's replay body says replay %v, want true", dir, second.Name, r)
			}
			reused := second.Post(t, "/messages/produce", produce(count+1), "Idempotency-Key", key)
			if reused.Status != http.StatusConflict {
				t.Errorf("key-reuse %s: %s answered %d %s to the key with a different request, want 409", dir, second.Name, reused.Status, reused.Body)
			}
			if d := first.Depth(t, "DEV.QUEUE.1") - firstBefore; d != count {
				t.Errorf("replay %s: %s put %d messages, want %d", dir, first.Name, d, count)
			}
			if d := second.Depth(t, "DEV.QUEUE.1") - secondBefore; d != 0 {
				t.Errorf("replay/key-reuse %s: %s put %d messages replaying or refusing, want 0", dir, second.Name, d)
			}

			// A CONSUME's record holds what it captured: the other
			// version replays that, getting nothing.
			consume := fmt.Sprintf(`{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"maxMessages":%d}`, count)
			captured := first.Post(t, "/messages/consume", consume, "Idempotency-Key", key+"-consume")
			if captured.Status != http.StatusOK {
				t.Fatalf("consume-replay %s: %s executing: %d %s, want 200", dir, first.Name, captured.Status, captured.Body)
			}
			var c struct {
				Result struct{ Messages []json.RawMessage }
			}
			if err := json.Unmarshal(captured.Body, &c); err != nil || len(c.Result.Messages) != count {
				t.Fatalf("consume-replay %s: %s captured %d messages (%v): %s, want %d", dir, first.Name, len(c.Result.Messages), err, captured.Body, count)
			}
			replayed := second.Post(t, "/messages/consume", consume, "Idempotency-Key", key+"-consume")
			if replayed.Status != captured.Status || replayed.Header.Get("Idempotent-Replay") != "true" {
				t.Errorf("consume-replay %s: %s answered %d Idempotent-Replay=%q %s, want %d and true",
					dir, second.Name, replayed.Status, replayed.Header.Get("Idempotent-Replay"), replayed.Body, captured.Status)
			}
			if err := daemontest.SameApartFromReplay(captured.Body, replayed.Body); err != nil {
				t.Errorf("consume-replay %s: %s replaying %s's record: %v", dir, second.Name, first.Name, err)
			}
			if r := replayed.JSON(t)["replay"]; second == new && r != true {
				t.Errorf("consume-replay %s: %s's replay body says replay %v, want true", dir, second.Name, r)
			}
		})

		t.Run("sqs-duplicates", func(t *testing.T) {
			const commands, copies = 8, 2
			before := old.Depth(t, "DEV.QUEUE.2") + new.Depth(t, "DEV.QUEUE.2")
			prefix := run + "-sqs-"
			for i := range commands {
				body := fmt.Sprintf(`{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"},"batch":{"count":%d,"messageSizeBytes":16}}`, count)
				for range copies {
					sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": fmt.Sprintf("%s%02d", prefix, i)})
				}
			}
			ours := func(e receivedEvent) bool { return strings.HasPrefix(e.Data.IdempotencyKey, prefix) }
			results.waitUntil(t, 90*time.Second, func(evs []receivedEvent) (bool, string) {
				n := countReceivedEvents(evs, ours)
				return n >= commands*copies, fmt.Sprintf("%d of %d result events", n, commands*copies)
			})
			waitSQSQueueDrained(t, env.commands, 30*time.Second)
			results.collectFor(t, time.Second)
			byKey := map[string][]receivedEvent{}
			for _, e := range results.received() {
				if ours(e) {
					byKey[e.Data.IdempotencyKey] = append(byKey[e.Data.IdempotencyKey], e)
				}
			}
			directions := map[string]int{}
			for i := range commands {
				key := fmt.Sprintf("%s%02d", prefix, i)
				var executed, replayed []receivedEvent
				for _, e := range byKey[key] {
					if e.Data.Replay {
						replayed = append(replayed, e)
					} else {
						executed = append(executed, e)
					}
				}
				// A copy redelivered after its ack was lost is replayed
				// once more: more replays are legitimate, fewer are not.
				if len(executed) != 1 || executed[0].Data.Status != result.StatusCompleted || len(replayed) < copies-1 {
					t.Errorf("sqs-duplicates: key %s: %d executions, %d replays (%s), want 1 COMPLETED and at least %d", key, len(executed), len(replayed), describeSources(byKey[key]), copies-1)
					continue
				}
				for _, r := range replayed {
					dir := versionOf(executed[0].Source) + "-to-" + versionOf(r.Source)
					directions[dir]++
					if err := daemontest.SameApartFromReplay(eventData(t, executed[0]), eventData(t, r)); err != nil {
						t.Errorf("sqs-duplicates %s: key %s: %v", dir, key, err)
					}
				}
			}
			if put := old.Depth(t, "DEV.QUEUE.2") + new.Depth(t, "DEV.QUEUE.2") - before; put != commands*count {
				t.Errorf("sqs-duplicates: %d messages put over both versions, want %d (%d commands × %d)", put, commands*count, commands, count)
			}
			t.Logf("replays by direction: %v", directions)
		})
	})
}

// startVersion starts one aws-mode `mqprobe run` process of v on vars,
// named after the version and the test, and stops it (SIGTERM) when t ends,
// printing its log if t failed.
func startVersion(t *testing.T, v daemontest.Version, vars map[string]string) *daemontest.Process {
	t.Helper()
	name := fmt.Sprintf("%s-%d", v.Label, nameSeq.Add(1))
	p, err := launchDaemonProcess(v.Bin, t.TempDir(), name, name, vars)
	if p != nil {
		t.Cleanup(func() {
			p.Stop(syscall.SIGTERM)
			if t.Failed() {
				t.Logf("%s (%s, %s) stderr:\n%s", p.Name, v.Bin, p.Base, daemontest.LogTail(p.Log, 16<<10))
			}
		})
	}
	if err != nil {
		t.Fatalf("%s release (%s): %v", v.Label, v.Bin, err)
	}
	return p
}

// eachDirection runs f as subtests scenario/old-to-new and
// scenario/new-to-old, first being the process that starts the commands.
func eachDirection(t *testing.T, scenario string, old, new *daemontest.Process, f func(t *testing.T, dir string, first, second *daemontest.Process)) {
	t.Run(scenario, func(t *testing.T) {
		t.Run("old-to-new", func(t *testing.T) { f(t, "old-to-new", old, new) })
		t.Run("new-to-old", func(t *testing.T) { f(t, "new-to-old", new, old) })
	})
}

// versionOf is the version label of the process an event's source names
// ("mqprobe/old-3" → "old").
func versionOf(source string) string {
	label, _, _ := strings.Cut(strings.TrimPrefix(source, "mqprobe/"), "-")
	return label
}

func describeSources(evs []receivedEvent) string {
	var parts []string
	for _, e := range evs {
		parts = append(parts, fmt.Sprintf("%s %s replay=%v attempt %d", e.Source, e.Data.Status, e.Data.Replay, e.Data.Attempt))
	}
	return strings.Join(parts, ", ")
}

// eventData is an event's data as JSON, for SameApartFromReplay.
func eventData(t *testing.T, e receivedEvent) []byte {
	t.Helper()
	data, err := json.Marshal(e.Data)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
