package daemon_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// postAsync sends a command in the background; the reply arrives on the
// channel (status 0 when the request itself failed).
func postAsync(h *daemontest.Harness, path, body string, headers ...string) <-chan daemontest.Response {
	done := make(chan daemontest.Response, 1)
	go func() {
		req, err := http.NewRequest(http.MethodPost, h.Base+path, bytes.NewReader([]byte(body)))
		if err != nil {
			done <- daemontest.Response{}
			return
		}
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- daemontest.Response{}
			return
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		done <- daemontest.Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
	}()
	return done
}

// commandState is GET /commands/{op}/{key}'s reply as the tests read it.
type commandState struct {
	Status   string `json:"status"`
	Attempt  int    `json:"attempt"`
	Lease    *struct{ Holder, ExpiresAt string }
	Progress *struct {
		Total, Done, Committed int64
		RatePerSec             float64
		StartedAt              string
		Resumable              *bool
	}
	Result json.RawMessage `json:"result"`
}

func getCommand(t *testing.T, h *daemontest.Harness, token, op, key string) (int, commandState) {
	t.Helper()
	r := getAs(t, h, token, "/commands/"+op+"/"+key)
	var s commandState
	if r.Status == http.StatusOK {
		if err := json.Unmarshal(r.Body, &s); err != nil {
			t.Fatalf("GET /commands/%s/%s: %v: %s", op, key, err, r.Body)
		}
	}
	return r.Status, s
}

// TestPacedProduceIsObservableWhileItRuns: a PRODUCE paced to 200 msg/s
// shows through GET /commands and /status, as it runs, done growing and
// committed ≤ done ≤ total, held by this instance; once it completes the
// record shows the reply the caller got.
func TestPacedProduceIsObservableWhileItRuns(t *testing.T) {
	const instance, key, total = "probe-pod-3", "paced-observed-1", 400
	h := daemontest.Start(t, func(s *daemontest.Setup) { s.Cfg.InstanceID = instance })
	body := fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":64,"rateLimitPerSec":200,"transaction":{"enabled":true,"txSize":20}}}`,
		daemontest.Target, total)
	reply := postAsync(h, "/messages/produce", body, "Idempotency-Key", key)

	var samples []int64
	testenv.Until(10*time.Second, func() bool {
		status, s := getCommand(t, h, "", "PRODUCE", key)
		if status == http.StatusNotFound || s.Status != "IN_PROGRESS" || s.Progress == nil || s.Progress.Done == 0 {
			return false // not claimed, or no put yet
		}
		p := s.Progress
		if p.Total != total || p.Committed > p.Done || p.Done > p.Total || p.StartedAt == "" || s.Attempt != 1 {
			t.Fatalf("mid-flight progress %+v (attempt %d), want total %d and committed ≤ done ≤ total", *p, s.Attempt, total)
		}
		if s.Lease == nil || s.Lease.Holder != instance {
			t.Fatalf("lease %+v, want held by %s", s.Lease, instance)
		}
		if n := len(samples); n > 0 && p.Done < samples[n-1] {
			t.Fatalf("done went back: %v then %d", samples, p.Done)
		} else if n > 0 && p.Done == samples[n-1] {
			return false // no put since the last sample
		}
		samples = append(samples, p.Done)

		var st struct {
			InFlight struct {
				Count    int
				Commands []struct {
					OperationType, IdempotencyKey string
					Total, Done                   int64
				}
			}
		}
		_, _, raw := h.Get("/status")
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatalf("/status: %v: %s", err, raw)
		}
		if st.InFlight.Count != 1 || len(st.InFlight.Commands) != 1 || st.InFlight.Commands[0].IdempotencyKey != key ||
			st.InFlight.Commands[0].Total != total || st.InFlight.Commands[0].Done < p.Done {
			t.Fatalf("/status inFlight %s, want this PRODUCE with done ≥ %d", raw, p.Done)
		}
		return len(samples) >= 3
	})
	if len(samples) < 3 {
		t.Fatalf("saw the PRODUCE running %d times (done %v) before the deadline", len(samples), samples)
	}
	r := <-reply
	if r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	status, s := getCommand(t, h, "", "PRODUCE", key)
	if status != http.StatusOK || s.Status != "COMPLETED" || s.Lease != nil || s.Progress != nil || !bytes.Equal(s.Result, r.Body) {
		t.Fatalf("after completion: %d %+v, want COMPLETED with the reply %s", status, s, r.Body)
	}
	_, _, raw := h.Get("/status")
	if !bytes.Contains(raw, []byte(`"inFlight":{"count":0,"commands":[]}`)) {
		t.Fatalf("/status after completion lists in-flight commands: %s", raw)
	}
}

// TestQueueFullProduceReportsProgressAndResumes: a PRODUCE that meets
// MQRC_Q_FULL (2053) after 50 of 80 answers FAILED with progress: 50
// committed, resumable. GET /commands says the same. With room made, the
// same key and body resume at 50 and complete.
func TestQueueFullProduceReportsProgressAndResumes(t *testing.T) {
	const key = "queue-full-resume-1"
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Opts.Backend = nil // the configured one, built by the daemon
		s.Cfg.MQ.Embedded.QueueManagers[0].MaxDepth = 50
	})
	body := fmt.Sprintf(`{%s,"batch":{"count":80,"messageSizeBytes":32,"transaction":{"enabled":true,"txSize":10}}}`, daemontest.Target)
	r := h.Post("/messages/produce", body, "Idempotency-Key", key)
	var failed struct {
		Status   string
		Error    struct{ Reason int32 }
		Result   json.RawMessage
		Progress *struct {
			Total, Done, Committed int64
			FirstMsgID             string `json:"firstMsgId"`
			LastMsgID              string `json:"lastMsgId"`
			Resumable              bool
		}
	}
	if err := json.Unmarshal(r.Body, &failed); err != nil || r.Status != http.StatusBadGateway || failed.Status != "FAILED" ||
		failed.Error.Reason != int32(mq.ReasonQFull) || string(failed.Result) != "null" {
		t.Fatalf("produce into a full queue: %d %s (%v)", r.Status, r.Body, err)
	}
	p := failed.Progress
	if p == nil || p.Total != 80 || p.Done != 50 || p.Committed != 50 || !p.Resumable || p.FirstMsgID == "" || p.LastMsgID == "" {
		t.Fatalf("failure progress %s, want total 80, done 50, committed 50, first/last msgId, resumable", r.Body)
	}
	status, s := getCommand(t, h, "", "PRODUCE", key)
	if status != http.StatusOK || s.Status != "FAILED" || s.Lease != nil || s.Progress == nil || s.Progress.Committed != 50 ||
		s.Progress.Resumable == nil || !*s.Progress.Resumable || !bytes.Equal(s.Result, bytes.TrimSpace(r.Body)) {
		t.Fatalf("GET /commands after the failure: %d %+v", status, s)
	}

	if r := h.Post("/messages/consume", fmt.Sprintf(`{%s,"maxMessages":50}`, daemontest.Target)); r.Status != http.StatusOK {
		t.Fatalf("making room: %d %s", r.Status, r.Body)
	}
	r = h.Post("/messages/produce", body, "Idempotency-Key", key)
	var done struct {
		Attempt int
		Result  struct {
			Enqueued    int
			ResumedFrom *int   `json:"resumedFrom"`
			FirstMsgID  string `json:"firstMsgId"`
		}
	}
	if err := json.Unmarshal(r.Body, &done); err != nil || r.Status != http.StatusCreated {
		t.Fatalf("resend: %d %s", r.Status, r.Body)
	}
	if done.Attempt != 2 || done.Result.ResumedFrom == nil || *done.Result.ResumedFrom != 50 || done.Result.Enqueued != 80 || done.Result.FirstMsgID != p.FirstMsgID {
		t.Fatalf("resend %s, want attempt 2 resumed from 50 to 80 keeping the first msgId", r.Body)
	}
	if depth := h.Depth("DEV.QUEUE.1"); depth != 30 {
		t.Fatalf("depth %d, want the 30 the resumed attempt put", depth)
	}
}

// TestGetCommandIsTenantScoped: each tenant reads its own record of a key
// they both used; an unknown key is 404 naming it.
func TestGetCommandIsTenantScoped(t *testing.T) {
	h, _ := startTenants(t)
	const key = "shared-key-7"
	for token, count := range map[string]int{tokenA: 3, tokenB: 5} {
		body := fmt.Sprintf(`{"targetRef":"lab-1","batch":{"count":%d,"messageSizeBytes":16}}`, count)
		if r := as(h, token, "/messages/produce", body, "Idempotency-Key", key); r.Status != http.StatusCreated {
			t.Fatalf("produce: %d %s", r.Status, r.Body)
		}
	}
	for token, want := range map[string]int{tokenA: 3, tokenB: 5} {
		status, s := getCommand(t, h, token, "PRODUCE", key)
		var res struct{ Result struct{ Enqueued int } }
		if status != http.StatusOK || json.Unmarshal(s.Result, &res) != nil || res.Result.Enqueued != want {
			t.Errorf("tenant's own record: %d %s, want enqueued %d", status, s.Result, want)
		}
	}
	r := getAs(t, h, tokenImplicit, "/commands/PRODUCE/"+key)
	if r.Status != http.StatusNotFound || !bytes.Contains(r.Body, []byte(key)) || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("implicit tenant reads another tenant's key: %d %s", r.Status, r.Body)
	}
	r = getAs(t, h, tokenA, "/commands/CONSUME/never-sent")
	if r.Status != http.StatusNotFound || !bytes.Contains(r.Body, []byte("no CONSUME command with idempotency key never-sent")) {
		t.Errorf("unknown key: %d %s", r.Status, r.Body)
	}
}
