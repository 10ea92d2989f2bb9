package daemon_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// TestIdempotencyExpiryHeaderIsTheRecordsExpiresAt: every reply to a keyed
// command that knows its record (executed, replayed, refused as a reuse,
// failed) carries Idempotency-Expiry, the record's expiresAt as stored;
// evicting the record frees the key, so the repeat executes again.
func TestIdempotencyExpiryHeaderIsTheRecordsExpiresAt(t *testing.T) {
	h := daemontest.Start(t)
	stored := func(pk string) idempotency.Record {
		t.Helper()
		rec, ok, err := h.Store.Get(context.Background(), pk)
		if err != nil || !ok {
			t.Fatalf("record %s: %v %v", pk, ok, err)
		}
		return rec
	}
	expect := func(what string, resp daemontest.Response, status int, rec idempotency.Record) {
		t.Helper()
		if resp.Status != status {
			t.Fatalf("%s: %d %s, want %d", what, resp.Status, resp.Body, status)
		}
		if got, want := resp.Header.Get("Idempotency-Expiry"), idempotency.FormatTime(rec.ExpiresAt); got != want {
			t.Errorf("%s: Idempotency-Expiry %q, want the record's expiresAt %q", what, got, want)
		}
	}

	before := time.Now()
	first := h.Post("/messages/produce", daemontest.ProduceBody(3, ""), "Idempotency-Key", "expiry-1", "Idempotency-Expiry-Seconds", "600")
	rec := stored("PRODUCE#expiry-1")
	expect("executed", first, http.StatusCreated, rec)
	if ttl := rec.ExpiresAt.Sub(before); ttl < 599*time.Second || ttl > 601*time.Second {
		t.Errorf("expiresAt %s is %s after the request, want the 600 s asked for", rec.ExpiresAt, ttl)
	}
	expect("replayed", h.Post("/messages/produce", daemontest.ProduceBody(3, ""), "Idempotency-Key", "expiry-1"), http.StatusCreated, rec)
	expect("key reused", h.Post("/messages/produce", daemontest.ProduceBody(4, ""), "Idempotency-Key", "expiry-1"), http.StatusConflict, rec)

	failed := h.Post("/messages/produce", `{"target":{"queueManager":"QM1","queue":"NO.SUCH.QUEUE"},"batch":{"count":1}}`, "Idempotency-Key", "expiry-2")
	expect("failed", failed, http.StatusBadGateway, stored("PRODUCE#expiry-2"))

	status, header, body := h.Get("/idempotency/PRODUCE/expiry-1")
	if status != http.StatusOK || header.Get("Idempotency-Expiry") != idempotency.FormatTime(rec.ExpiresAt) {
		t.Errorf("GET record: %d %v %s", status, header, body)
	}
	req, _ := http.NewRequest(http.MethodDelete, h.Base+"/idempotency/PRODUCE/expiry-1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE record: %v %v", resp, err)
	}
	resp.Body.Close()
	again := h.Post("/messages/produce", daemontest.ProduceBody(3, ""), "Idempotency-Key", "expiry-1")
	if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replay") != "" {
		t.Errorf("after eviction: %d replay=%q, want a fresh execution", again.Status, again.Header.Get("Idempotent-Replay"))
	}
	expect("executed after eviction", again, http.StatusCreated, stored("PRODUCE#expiry-1"))
	if d := h.Depth("DEV.QUEUE.1"); d != 6 {
		t.Errorf("depth %d, want %d: the evicted command ran a second time", d, 6)
	}
	// A TEST answers 202 once claimed: its start reply advertises the record too.
	// (It runs until stopped: completing would move the record's expiry.)
	started := h.Post("/tests", fmt.Sprintf(`{%s,"durationSeconds":60,"batch":{"rateLimitPerSec":10}}`, daemontest.Target), "Idempotency-Key", "expiry-test")
	expect("TEST started", started, http.StatusAccepted, stored("TEST#expiry-test"))
	if stop := h.Post("/tests/expiry-test/stop", ""); stop.Status != http.StatusAccepted {
		t.Fatalf("stop: %d %s", stop.Status, stop.Body)
	}

	// A command refused before it was claimed has no record to advertise.
	bad := h.Post("/messages/produce", fmt.Sprintf(`{%s}`, daemontest.Target), "Idempotency-Key", "expiry-3")
	if bad.Status != http.StatusUnprocessableEntity || bad.Header.Get("Idempotency-Expiry") != "" {
		t.Errorf("rejected: %d Idempotency-Expiry=%q, want 422 and none", bad.Status, bad.Header.Get("Idempotency-Expiry"))
	}
}
