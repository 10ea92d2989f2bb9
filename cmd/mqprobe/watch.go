package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/daemonclient"
	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// commandPollEvery is how often a live line asks for the command's state.
var commandPollEvery = 250 * time.Millisecond

// liveState is what the live line shows of a running command.
type liveState struct {
	found     bool // the command has a record yet
	status    string
	total     int64 // messages the command puts or gets at most; 0 unknown
	done      int64 // put or got so far by the running attempt
	committed int64
	rate      float64 // messages per second; 0 unknown
	startedAt time.Time
}

// stateSource reads a command's live state.
type stateSource func(ctx context.Context) (liveState, error)

// httpStateSource reads GET /commands/{operation}/{key}. 404 is a command
// not recorded yet.
func httpStateSource(dc *daemonclient.Client, operation, key string) stateSource {
	path := daemonclient.CommandStatePath(operation, key)
	return func(ctx context.Context) (liveState, error) {
		resp, data, err := dc.Do(ctx, http.MethodGet, path, nil, nil)
		if err != nil {
			return liveState{}, err
		}
		switch resp.StatusCode {
		case http.StatusOK:
		case http.StatusNotFound:
			return liveState{}, nil
		default:
			return liveState{}, fmt.Errorf("GET %s: %s", path, resp.Status)
		}
		var s daemonclient.CommandState
		if err := json.Unmarshal(data, &s); err != nil {
			return liveState{}, fmt.Errorf("GET %s: %w", path, err)
		}
		live := liveState{found: true, status: s.Status}
		if p := s.Progress; p != nil {
			live.total, live.done, live.committed, live.rate, live.startedAt = p.Total, p.Done, p.Committed, p.RatePerSec, p.StartedAt
		}
		return live, nil
	}
}

// recordInspector reads one command's idempotency record;
// *idempotency.Engine is one.
type recordInspector interface {
	Inspect(ctx context.Context, operationType, tenant, key string) (idempotency.Record, bool, error)
}

// storeStateSource reads the command's idempotency record (aws mode): its
// status and the committed count of its last checkpoint.
func storeStateSource(records recordInspector, operation, key string) stateSource {
	return func(ctx context.Context) (liveState, error) {
		rec, ok, err := records.Inspect(ctx, operation, "", key)
		if err != nil || !ok {
			return liveState{}, err
		}
		live := liveState{found: true, status: string(rec.Status)}
		if c, ok := handlers.ReadCheckpoint(command.Operation(operation), rec.Progress); ok {
			live.done, live.committed = int64(c.Committed), int64(c.Committed)
		}
		return live, nil
	}
}

// commandWatch redraws a live line from a stateSource until stopped.
type commandWatch struct {
	cancel context.CancelFunc
	done   chan struct{}
	line   *progressLine
}

// startCommandWatch polls source every commandPollEvery and draws what it
// learns; total (from the command) stands in while the daemon names none.
// verb names what the command does to a message: "put", "got".
func startCommandWatch(ctx context.Context, source stateSource, verb string, total int64, line *progressLine) *commandWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &commandWatch{cancel: cancel, done: make(chan struct{}), line: line}
	go func() {
		defer close(w.done)
		start := time.Now()
		var rate rateMeter
		tick := time.NewTicker(commandPollEvery)
		defer tick.Stop()
		for {
			s, err := source(ctx)
			if ctx.Err() != nil {
				return
			}
			now := time.Now()
			if err == nil {
				if s.total == 0 {
					s.total = total
				}
				if s.rate == 0 {
					s.rate = rate.observe(s.committed, now)
				}
				w.draw(s, verb, now.Sub(start), now)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

func (w *commandWatch) draw(s liveState, verb string, elapsed time.Duration, now time.Time) {
	if !s.startedAt.IsZero() {
		elapsed = now.Sub(s.startedAt)
	}
	frac := -1.0
	if s.total > 0 {
		frac = float64(s.done) / float64(s.total)
	}
	if !s.found {
		w.line.show(frac, elapsed, 0, []counter{{"waiting for the daemon", "state=waiting"}}, now)
		return
	}
	done := strconv.FormatInt(s.done, 10)
	if s.total > 0 {
		done += "/" + strconv.FormatInt(s.total, 10)
	}
	counters := []counter{
		{verb + " " + done, verb + "=" + done},
		{"committed " + strconv.FormatInt(s.committed, 10), "committed=" + strconv.FormatInt(s.committed, 10)},
	}
	if s.rate > 0 {
		r := strconv.FormatFloat(s.rate, 'f', 1, 64)
		counters = append(counters, counter{r + " msg/s", "rate=" + r + "msg/s"})
		if s.total > s.done {
			eta := (time.Duration(float64(s.total-s.done)/s.rate) * time.Second).Round(time.Second)
			counters = append(counters, counter{"ETA " + eta.String(), "eta=" + eta.String()})
		}
	}
	if s.status != "" && s.status != "IN_PROGRESS" {
		counters = append(counters, counter{s.status, "status=" + s.status})
	}
	w.line.show(frac, elapsed, 0, counters, now)
}

// stop ends the watch and its line; a nil watch does nothing.
func (w *commandWatch) stop() {
	if w == nil {
		return
	}
	w.cancel()
	<-w.done
	w.line.end()
}

// rateMeter estimates a rate from a growing count: over the time since
// it was first observed.
type rateMeter struct {
	first     int64
	firstAt   time.Time
	observing bool
}

func (m *rateMeter) observe(count int64, now time.Time) float64 {
	if !m.observing {
		m.first, m.firstAt, m.observing = count, now, true
		return 0
	}
	secs := now.Sub(m.firstAt).Seconds()
	if count <= m.first || secs <= 0 {
		return 0
	}
	return float64(count-m.first) / secs
}
