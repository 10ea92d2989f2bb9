package e2e_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
)

// memoryBoundMiB is the resident memory docs/security.md promises the embedded
// default stays under, whatever callers send.
const memoryBoundMiB = 512

// liveBound is the slowest /health/live answer the memory attacks may cause.
const liveBound = 5 * time.Second

// TestMemoryAttacksStayWithinTheBound runs the memory attacks of a hostile
// caller against one `mqprobe run` on the embedded default: the process's
// peak RSS stays under the documented bound and /health/live keeps
// answering throughout: within liveBound, which leaves room for the rest of
// the suite running beside it on 2 cores (alone it answers within a second).
func TestMemoryAttacksStayWithinTheBound(t *testing.T) {
	p, _ := daemontest.StartProcess(t, "memory-attacks", map[string]string{"MQPROBE_LOG_LEVEL": "error"})
	client := &http.Client{Timeout: 2 * time.Minute}
	post := func(path, body string) (int, string) {
		resp, err := client.Post(p.Base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Errorf("POST %s: %v", path, err)
			return 0, ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return resp.StatusCode, string(b)
	}

	var slowest atomic.Int64
	var liveFailures atomic.Int32
	stopLive := make(chan struct{})
	var live sync.WaitGroup
	live.Go(func() {
		probe := &http.Client{Timeout: liveBound}
		for {
			select {
			case <-stopLive:
				return
			case <-time.After(100 * time.Millisecond):
			}
			start := time.Now()
			resp, err := probe.Get(p.Base + "/health/live")
			if err != nil || resp.StatusCode != http.StatusOK {
				liveFailures.Add(1)
			}
			if err == nil {
				resp.Body.Close()
			}
			if d := int64(time.Since(start)); d > slowest.Load() {
				slowest.Store(d)
			}
		}
	})

	const queue = `"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}`
	t.Run("30 PRODUCEs of 100 MB bodies", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 30 {
			wg.Go(func() {
				status, body := post("/messages/produce", `{`+queue+`,"batch":{"count":1,"messageSizeBytes":104857600}}`)
				// Admitted ones fail at the queue's MAXMSGL, the rest find no room.
				if status != http.StatusBadGateway && status != http.StatusServiceUnavailable {
					t.Errorf("answer %d %s; want 502 (MAXMSGL) or 503 (no room)", status, body)
				}
			})
		}
		wg.Wait()
	})
	t.Run("one PRODUCE of 1000 x 4 MiB", func(t *testing.T) {
		status, body := post("/messages/produce", `{`+queue+`,"batch":{"count":1000,"messageSizeBytes":4194304}}`)
		if status != http.StatusBadGateway || !strings.Contains(body, "2056") {
			t.Errorf("answer %d %s; want 502 with 2056 once the queue manager's bytes are used", status, body)
		}
		if status, body := post("/messages/consume", `{`+queue+`,"maxMessages":5000,"waitSeconds":0}`); status != http.StatusOK {
			t.Errorf("draining: %d %s", status, body)
		}
	})
	t.Run("2000 submitted bodies of 250 KB", func(t *testing.T) {
		fixed := base64.StdEncoding.EncodeToString(make([]byte, 180_000))
		body := `{"operationType":"PRODUCE",` + queue + `,"batch":{"count":1,"messageSizeBytes":0},"mqProps":{"expiryMs":1},"payload":{"mode":"fixed","fixedBase64":"` + fixed + `"}}`
		var next atomic.Int32
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				for next.Add(1) <= 2000 {
					if status, resp := post("/commands", body); status != http.StatusAccepted && status != http.StatusTooManyRequests {
						t.Errorf("submit: %d %s; want 202 or 429", status, resp)
						return
					}
				}
			})
		}
		wg.Wait()
	})
	t.Run("40 readers that never read GET /results", func(t *testing.T) {
		// 8 MiB of 4 KiB messages captured by CONSUMEs of 32: result events
		// of about 170 KiB each fill what GET /results keeps.
		for range 4 {
			if status, body := post("/messages/produce", `{`+queue+`,"batch":{"count":2000,"messageSizeBytes":4096}}`); status != http.StatusCreated {
				t.Fatalf("produce: %d %s", status, body)
			}
			for range 2000 / 32 {
				if status, body := post("/messages/consume", `{`+queue+`,"maxMessages":32,"waitSeconds":0}`); status != http.StatusOK {
					t.Fatalf("consume: %d %s", status, body)
				}
			}
		}
		var conns []net.Conn
		for range 40 {
			c, err := (&net.Dialer{Control: daemontest.SmallReceiveBuffer}).Dial("tcp", strings.TrimPrefix(p.Base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			fmt.Fprintf(c, "GET /results?limit=1000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		}
		time.Sleep(3 * time.Second)
		for _, c := range conns {
			c.Close()
		}
	})

	close(stopLive)
	live.Wait()
	rss, peak, err := p.Memory()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("RSS %.0f MiB now, %.0f MiB at peak; slowest /health/live %s", rss, peak, time.Duration(slowest.Load()))
	if peak > memoryBoundMiB {
		t.Errorf("peak RSS %.0f MiB, over the %d MiB bound", peak, memoryBoundMiB)
	}
	if d := time.Duration(slowest.Load()); d > liveBound || liveFailures.Load() > 0 {
		t.Errorf("/health/live: slowest %s, %d failures; want every answer within %s", d, liveFailures.Load(), liveBound)
	}
}
