package daemon_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestFaultStoreDownAtCompletionEmbedded is the store blip on the embedded
// default (SQLite, HTTP): the store fails 1 s into a paced PRODUCE of 40
// messages (20/s) and comes back 11 s later, past the lease. The caller
// gets 503 outcome-pending; meanwhile a duplicate answers in progress,
// /status and GET /commands show the pending outcome and readiness's store
// check fails. Once the store answers, the record is COMPLETED by attempt
// 1, one result is published, and the same request replays: 40 messages
// on the queue.
func TestFaultStoreDownAtCompletionEmbedded(t *testing.T) {
	const (
		count, txSize, rate = 40, 5, 20
		cutAfter, cutFor    = time.Second, 11 * time.Second
	)
	store, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "mqprobe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var down atomic.Bool
	outage := errors.New("disk I/O error (the test's outage)")
	counting := &storetest.Counting{Store: store,
		BeforeBegin: func(idempotency.Claim) error {
			if down.Load() {
				return outage
			}
			return nil
		},
		BeforeUpdate: func(idempotency.Update) error {
			if down.Load() {
				return outage
			}
			return nil
		}}
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.Idempotency.Store = config.StoreSQLite
		s.Cfg.Idempotency.Lease = 3 * time.Second
		s.Opts.Store = counting
	})
	key := "store-down-at-completion-embedded-" + daemontest.FaultRun()
	body := daemontest.FaultProduce(key, "DEV.QUEUE.1", count, txSize, rate)
	first := make(chan daemontest.Response, 1)
	go func() { first <- h.Post("/messages/produce", body, "Idempotency-Key", key) }()

	testenv.Eventually(t, 10*time.Second, "a put by the PRODUCE", func() bool {
		return h.Backend == nil || daemontest.QueueDepth(t, h.Backend, "DEV.QUEUE.1") > 0
	})
	time.Sleep(cutAfter)
	down.Store(true)
	cutAt := time.Now()

	r := <-first
	var p map[string]any
	_ = json.Unmarshal(r.Body, &p)
	if r.Status != http.StatusServiceUnavailable || p["type"] != "https://mqprobe.dev/problems/outcome-pending" || r.Header.Get("Retry-After") == "" {
		t.Errorf("first answer %d %v %s, want 503 outcome-pending with Retry-After", r.Status, r.Header, r.Body)
	}
	if dup := h.Post("/messages/produce", body, "Idempotency-Key", key); dup.Status != http.StatusConflict {
		t.Errorf("duplicate while pending: %d %s, want 409 in progress", dup.Status, dup.Body)
	}
	if status, _, b := h.Get("/status"); status != http.StatusOK || !strings.Contains(string(b), `"pendingOutcomes":[{`) || !strings.Contains(string(b), key) {
		t.Errorf("/status while pending: %d %s, want the pending outcome listed", status, b)
	}
	if status, _, b := h.Get("/commands/PRODUCE/" + key); status != http.StatusOK || !strings.Contains(string(b), `"pendingOutcome":{`) {
		t.Errorf("GET /commands while pending: %d %s, want its pendingOutcome", status, b)
	}
	if status, _, b := h.Get("/health/ready"); status != http.StatusServiceUnavailable || !strings.Contains(string(b), "not yet recorded") {
		t.Errorf("/health/ready while pending: %d %s, want the store check failing", status, b)
	}
	time.Sleep(time.Until(cutAt.Add(cutFor)))
	down.Store(false)

	var replay daemontest.Response
	testenv.Until(time.Minute, func() bool {
		replay = h.Post("/messages/produce", body, "Idempotency-Key", key)
		return replay.Status != http.StatusConflict && replay.Status != http.StatusServiceUnavailable
	})
	if replay.Status != http.StatusCreated || replay.Header.Get("Idempotent-Replay") != "true" {
		t.Errorf("the same request after the store came back: %d %v %s, want a 201 replay", replay.Status, replay.Header, replay.Body)
	}
	evs := h.Results(key)
	executed, replays := 0, 0
	for _, e := range evs {
		switch {
		case e.Data.Replay:
			replays++
		case e.Data.Status == result.StatusCompleted:
			executed++
		}
	}
	puts := daemontest.QueueDepth(t, h.Backend, "DEV.QUEUE.1")
	rec, ok, err := store.Get(context.Background(), "PRODUCE#"+key)
	if err != nil || !ok || rec.Status != idempotency.StatusCompleted || rec.Attempt != 1 {
		t.Errorf("record %s attempt %d (found %v, %v), want COMPLETED by attempt 1", rec.Status, rec.Attempt, ok, err)
	}
	if status, _, b := h.Get("/health/ready"); status != http.StatusOK {
		t.Errorf("/health/ready once recorded: %d %s", status, b)
	}
	got := daemontest.FaultFigures{Sent: 2, Executed: executed, Duplicated: min(max(puts-count, 0), 1), Lost: min(max(count-puts, 0), 1)}
	if puts != count || executed != 1 {
		t.Errorf("%d messages on DEV.QUEUE.1, %d completed results (%s); want %d and 1", puts, executed, fmt.Sprint(daemontest.Summary(evs)), count)
	}
	daemontest.ReportFault(t, "store-down-at-completion-embedded", got, daemontest.FaultFigures{Sent: 2, Executed: 1},
		"storeDownSeconds", cutFor.Seconds(), "messagesOnQueue", puts, "extraMessages", puts-count, "replays", replays)
}

// TestDrainWaitsForPendingOutcomes: a PRODUCE whose completion the store
// fails is pending when the daemon is told to stop. The drain waits for it
// up to its deadline; the one whose store comes back in time is recorded,
// the one whose store never does is abandoned with a WARN naming it.
func TestDrainWaitsForPendingOutcomes(t *testing.T) {
	for _, recovers := range []bool{true, false} {
		t.Run(fmt.Sprintf("store recovers %v", recovers), func(t *testing.T) {
			var down atomic.Bool
			outage := errors.New("connection refused (the test's outage)")
			logs := &testenv.Buffer{}
			h := daemontest.Start(t, func(s *daemontest.Setup) {
				s.Cfg.HTTP.ShutdownTimeout = 3 * time.Second
				s.Opts.Log = slog.New(slog.NewJSONHandler(logs, nil))
				s.Opts.Store.(*storetest.Counting).BeforeUpdate = func(u idempotency.Update) error {
					if down.Load() && u.Kind != idempotency.UpdateHeartbeat {
						return outage
					}
					return nil
				}
			})
			key := fmt.Sprintf("drain-pending-%v-%s", recovers, daemontest.FaultRun())
			down.Store(true)
			r := h.Post("/messages/produce", daemontest.FaultProduce(key, "DEV.QUEUE.1", 2, 2, 0), "Idempotency-Key", key)
			if r.Status != http.StatusServiceUnavailable {
				t.Fatalf("PRODUCE with the store failing its completion: %d %s, want 503 pending", r.Status, r.Body)
			}
			if recovers {
				time.AfterFunc(time.Second, func() { down.Store(false) })
			}
			began := time.Now()
			h.Shutdown()
			took := time.Since(began)
			rec, ok, err := h.Store.Get(context.Background(), "PRODUCE#"+key)
			abandoned := strings.Contains(logs.String(), "abandoning an outcome") && strings.Contains(logs.String(), key)
			if recovers {
				if err != nil || !ok || rec.Status != idempotency.StatusCompleted || abandoned {
					t.Errorf("record %s (found %v, %v), abandoned %v: want the drain to wait and the outcome recorded", rec.Status, ok, err, abandoned)
				}
				return
			}
			if rec.Status != idempotency.StatusInProgress || !abandoned || took < 2*time.Second {
				t.Errorf("record %s, abandoned %v after %s: want the drain to wait its deadline, then log the abandoned outcome (WARN)", rec.Status, abandoned, took)
			}
		})
	}
}
