package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mqprobe/mqprobe/internal/result"
)

// Bounds of one GET /results/stream.
const (
	// streamLifetime ends a stream, so that none holds its watch forever;
	// the client reconnects.
	streamLifetime = 10 * time.Minute
	// streamHeartbeat keeps proxies from closing an idle stream, and finds
	// a client gone.
	streamHeartbeat = 15 * time.Second
	// streamWriteTimeout bounds each write when http.writeTimeout is unset.
	streamWriteTimeout = 30 * time.Second
)

// resultsStream serves GET /results/stream: the caller's result events
// published from now on that the query's filters match, as server-sent
// events (text/event-stream) — "result" events whose data is the event,
// and a last "lagged" event when the reader fell too far behind. A
// browser reads it with fetch, so that the bearer token travels in the
// Authorization header, never in a URL (EventSource cannot send one).
func (a *api) resultsStream(w http.ResponseWriter, r *http.Request) {
	f, ok := a.resultFilter(w, r)
	if !ok {
		return
	}
	watch, err := a.cfg.Recent.Watch(f)
	if errors.Is(err, result.ErrTooManyWatches) {
		setRetryAfter(w, 5*time.Second)
		writeProblem(w, r, http.StatusServiceUnavailable, problem{Detail: fmt.Sprintf("%d result streams are open already, the most this daemon serves", result.MaxWatches)})
		return
	}
	defer watch.Close()
	stop := a.cfg.StreamContext
	if stop == nil {
		stop = context.Background()
	}
	rc := http.NewResponseController(w)
	// The server's read timeout would end the request mid-stream.
	_ = rc.SetReadDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(chunk []byte) bool {
		timeout := a.cfg.WriteTimeout
		if timeout <= 0 {
			timeout = streamWriteTimeout
		}
		_ = rc.SetWriteDeadline(time.Now().Add(timeout))
		if _, err := w.Write(chunk); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write([]byte(": result events of your tenant, from now on\n\n")) {
		return
	}
	lifetime := time.NewTimer(streamLifetime)
	defer lifetime.Stop()
	heartbeat := time.NewTicker(streamHeartbeat)
	defer heartbeat.Stop()
	for {
		select {
		case e, open := <-watch.Events:
			if !open {
				if watch.Lagged() {
					write([]byte("event: lagged\ndata: {}\n\n"))
				}
				return
			}
			if !write(sseEvent(e)) {
				return
			}
		case <-heartbeat.C:
			if !write([]byte(": keep-alive\n\n")) {
				return
			}
		case <-lifetime.C:
			return
		case <-r.Context().Done():
			return
		case <-stop.Done():
			return
		}
	}
}

// sseEvent is e as one server-sent event.
func sseEvent(e result.Event) []byte {
	var buf bytes.Buffer
	buf.WriteString("event: result\nid: ")
	buf.WriteString(e.ID)
	buf.WriteString("\ndata: ")
	enc := json.NewEncoder(&buf) // one line: Encode escapes newlines in strings
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil
	}
	buf.WriteString("\n")
	return buf.Bytes()
}
