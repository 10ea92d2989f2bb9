package httpapi_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// getJSON GETs path with a bearer token and decodes the answer.
func getJSON(t *testing.T, h *daemontest.Harness, path, token string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.Base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("GET %s: %d, not JSON: %s", path, resp.StatusCode, body)
	}
	return resp.StatusCode, m
}

// putDeadLetter puts a message with an MQDLH on QM1's dead-letter queue,
// as a queue manager does when it cannot deliver one to queue.
func putDeadLetter(t *testing.T, backend mq.Backend, queue, body string) {
	t.Helper()
	hdr, err := mq.DeadLetterHeader{Reason: mq.ReasonUnknownObjectName, DestQueue: queue, DestQMgr: "QM1",
		Encoding: mq.EncodingNativeLittle, CCSID: 1208, Format: mq.FormatString, PutApplType: 6, PutApplName: "amqsput",
		PutTime: time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	conn := daemontest.ConnectQM1(t, backend)
	defer conn.Close()
	q, err := conn.OpenQueue(context.Background(), "DEV.DEAD.LETTER.QUEUE", mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	msg := &mq.Message{Format: mq.FormatDeadLetterHeader, Payload: append(hdr, body...), Properties: mq.Properties{"app.origin": "lab"}}
	if _, err := q.Put(context.Background(), msg, mq.PutOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestQueueViews: the read-only queue views answer each known queue's
// health and browse messages (a dead-lettered one's header decoded)
// without claiming a record, within the caller's token, the allowlist and
// their bounds, and refuse SYSTEM.* queues but the dead-letter queue.
func TestQueueViews(t *testing.T) {
	const token = "queue-views-token"
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.HTTP.AuthToken = token
		s.Cfg.Targets.Inline = targets.Allowlist{Queues: []string{"DEV.*", "SYSTEM.*"}}
	})
	if r := h.Post("/messages/produce", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"batch":{"count":3,"messageSizeBytes":2000}}`,
		"Authorization", "Bearer "+token); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	putDeadLetter(t, h.Backend, "DEV.GONE", "lost order 42")

	t.Run("the known queues with health and verdict", func(t *testing.T) {
		status, body := getJSON(t, h, "/queues?maxDepthShare=0.5&maxOldestMessageAgeSeconds=300", token)
		if status != http.StatusOK {
			t.Fatalf("GET /queues: %d %v", status, body)
		}
		byName := map[string]map[string]any{}
		for _, q := range body["queues"].([]any) {
			q := q.(map[string]any)
			byName[q["queue"].(string)] = q
		}
		if len(byName) != 4 {
			t.Fatalf("GET /queues lists %d queues, want QM1's four: %v", len(byName), body)
		}
		health := byName["DEV.QUEUE.1"]["health"].(map[string]any)
		if health["currentDepth"] != 3.0 || health["verdict"] != "healthy" || health["oldestMessageAgeSeconds"] == nil {
			t.Errorf("DEV.QUEUE.1's health: %v, want depth 3, an oldest age and verdict healthy", health)
		}
		if byName["DEV.DEAD.LETTER.QUEUE"]["health"].(map[string]any)["currentDepth"] != 1.0 {
			t.Errorf("the dead-letter queue's health: %v", byName["DEV.DEAD.LETTER.QUEUE"])
		}
	})

	t.Run("browse a dead-letter queue", func(t *testing.T) {
		status, body := getJSON(t, h, "/queues/QM1/DEV.DEAD.LETTER.QUEUE/messages", token)
		if status != http.StatusOK {
			t.Fatalf("browse: %d %v", status, body)
		}
		msgs := body["messages"].([]any)
		if len(msgs) != 1 {
			t.Fatalf("browse lists %d messages, want 1: %v", len(msgs), body)
		}
		m := msgs[0].(map[string]any)
		dlh := m["deadLetterHeader"].(map[string]any)
		if dlh["reasonName"] != "MQRC_UNKNOWN_OBJECT_NAME" || dlh["originalQueue"] != "DEV.GONE" || dlh["putApplName"] != "amqsput" ||
			dlh["deadLetteredAt"] != "2026-11-27T04:00:00Z" {
			t.Errorf("the decoded MQDLH: %v", dlh)
		}
		if p, _ := base64.StdEncoding.DecodeString(m["payloadBase64"].(string)); string(p) != "lost order 42" {
			t.Errorf("the payload after the header: %q", p)
		}
		if m["properties"].(map[string]any)["app.origin"] != "lab" || len(m["msgId"].(string)) != 48 {
			t.Errorf("properties and hex MsgId: %v", m)
		}
		if depth := daemontest.QueueDepth(t, h.Backend, "DEV.DEAD.LETTER.QUEUE"); depth != 1 {
			t.Errorf("browsing removed messages: depth %d", depth)
		}
	})

	t.Run("bounded pages and payloads", func(t *testing.T) {
		status, body := getJSON(t, h, "/queues/QM1/DEV.QUEUE.1/messages?limit=2&payloadBytes=10", token)
		if status != http.StatusOK {
			t.Fatalf("browse: %d %v", status, body)
		}
		msgs := body["messages"].([]any)
		if len(msgs) != 2 || body["more"] != true {
			t.Errorf("limit=2 of 3 messages: %d listed, more %v", len(msgs), body["more"])
		}
		m := msgs[0].(map[string]any)
		if p, _ := base64.StdEncoding.DecodeString(m["payloadBase64"].(string)); len(p) != 10 || m["payloadTruncated"] != true || m["sizeBytes"] != 2000.0 {
			t.Errorf("payloadBytes=10 of 2000: %d bytes shown, truncated %v, size %v", len(p), m["payloadTruncated"], m["sizeBytes"])
		}
		for _, q := range []string{"limit=101", "limit=0", "payloadBytes=99999999", "limit=x"} {
			if status, body := getJSON(t, h, "/queues/QM1/DEV.QUEUE.1/messages?"+q, token); status != http.StatusBadRequest ||
				!strings.Contains(body["detail"].(string), strings.Split(q, "=")[0]) {
				t.Errorf("?%s: %d %v, want 400 naming the parameter", q, status, body)
			}
		}
	})

	t.Run("refusals", func(t *testing.T) {
		for _, c := range []struct {
			path   string
			status int
			says   string
		}{
			{"/queues/QM1/SYSTEM.ADMIN.COMMAND.QUEUE/messages", http.StatusForbidden, "SYSTEM.*"},
			{"/queues/QM1/SYSTEM.ADMIN.COMMAND.QUEUE", http.StatusForbidden, "SYSTEM.*"},
			{"/queues/QM1/OTHER.QUEUE/messages", http.StatusForbidden, "targets.inline.queues"},
			{"/queues/QM1/DEV.NONE/messages", http.StatusNotFound, "2085"},
			{"/queues/QM1/DEV.QUEUE.1?targetRef=nope", http.StatusNotFound, "nope"},
			{"/queues/QM1/DEV.QUEUE.1?maxDepthShare=-1", http.StatusBadRequest, "maxDepthShare"},
		} {
			status, body := getJSON(t, h, c.path, token)
			if status != c.status || !strings.Contains(fmt.Sprint(body["detail"]), c.says) {
				t.Errorf("GET %s: %d %v, want %d saying %q", c.path, status, body["detail"], c.status, c.says)
			}
		}
		if status, _ := getJSON(t, h, "/queues", ""); status != http.StatusUnauthorized {
			t.Errorf("GET /queues without the token: %d, want 401", status)
		}
	})

	if _, body := getJSON(t, h, "/idempotency", token); len(body["records"].([]any)) != 1 {
		t.Errorf("records after the queue views: %v, want only the PRODUCE's", body["records"])
	}
}
