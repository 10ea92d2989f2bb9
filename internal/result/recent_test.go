package result_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/result"
)

func TestRecentKeepsTheNewestAndFilters(t *testing.T) {
	r := result.NewRecent(3, 0)
	for i := range 5 {
		status := result.StatusCompleted
		if i%2 == 1 {
			status = result.StatusFailed
		}
		ev := result.New("mqprobe/test", result.Data{IdempotencyKey: fmt.Sprint("k", i%2), OperationType: "DEPTH", Status: status}, time.Now())
		if err := r.Publish(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	all := r.Find(result.Filter{})
	if len(all) != 3 || all[0].Data.Status != result.StatusCompleted || all[2].Data.Status != result.StatusCompleted {
		t.Fatalf("kept %d events %+v, want the newest 3, newest first", len(all), all)
	}
	if got := r.Find(result.Filter{IdempotencyKey: "k1"}); len(got) != 1 || got[0].Type != result.TypeFailed {
		t.Errorf("by key: %+v", got)
	}
	if got := r.Find(result.Filter{Status: result.StatusCompleted, Limit: 1}); len(got) != 1 {
		t.Errorf("limit: %d events", len(got))
	}
}

// TestRecentFiltersByTargetAndTime: a target filter names a queue or a
// whole queue manager; since and until bound the event time inclusively.
func TestRecentFiltersByTargetAndTime(t *testing.T) {
	r := result.NewRecent(10, 0)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, target := range []string{"QM1:DEV.QUEUE.1", "QM1:DEV.QUEUE.2", "QM2:DEV.QUEUE.1", ""} {
		ev := result.New("mqprobe/test", result.Data{IdempotencyKey: fmt.Sprint("k", i), Target: target}, start.Add(time.Duration(i)*time.Minute))
		if err := r.Publish(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(f result.Filter) string {
		var out []string
		for _, e := range r.Find(f) {
			out = append(out, e.Data.IdempotencyKey)
		}
		return strings.Join(out, ",")
	}
	for name, tt := range map[string]struct {
		f    result.Filter
		want string
	}{
		"queue":               {result.Filter{Target: "QM1:DEV.QUEUE.1"}, "k0"},
		"queue manager":       {result.Filter{Target: "QM1"}, "k1,k0"},
		"other queue manager": {result.Filter{Target: "QM2"}, "k2"},
		"prefix is not a qm":  {result.Filter{Target: "QM"}, ""},
		"since":               {result.Filter{Since: start.Add(time.Minute)}, "k3,k2,k1"},
		"until":               {result.Filter{Until: start.Add(time.Minute)}, "k1,k0"},
		"between":             {result.Filter{Since: start.Add(time.Minute), Until: start.Add(2 * time.Minute)}, "k2,k1"},
		"target and time":     {result.Filter{Target: "QM1", Since: start.Add(30 * time.Second)}, "k1"},
	} {
		if got := keys(tt.f); got != tt.want {
			t.Errorf("%s: %q, want %q", name, got, tt.want)
		}
	}
}

func TestRecentIsBoundedBySize(t *testing.T) {
	r := result.NewRecent(1000, 10_000)
	big := json.RawMessage(`"` + strings.Repeat("x", 3000) + `"`)
	for i := range 20 {
		ev := result.New("mqprobe/test", result.Data{IdempotencyKey: fmt.Sprint("k", i), Result: big}, time.Now())
		if err := r.Publish(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	// Two events of ~3.5 KB fit in 10 KB; the newest are kept.
	if got := r.Find(result.Filter{}); len(got) != 2 || got[0].Data.IdempotencyKey != "k19" || got[1].Data.IdempotencyKey != "k18" {
		t.Fatalf("kept %d events, newest %v; want the 2 newest", len(got), got[0].Data.IdempotencyKey)
	}
	// An event larger than the bound is still kept, alone.
	huge := json.RawMessage(`"` + strings.Repeat("y", 20_000) + `"`)
	if err := r.Publish(context.Background(), result.New("mqprobe/test", result.Data{IdempotencyKey: "huge", Result: huge}, time.Now())); err != nil {
		t.Fatal(err)
	}
	if got := r.Find(result.Filter{}); len(got) != 1 || got[0].Data.IdempotencyKey != "huge" {
		t.Fatalf("after an oversize event: %d events", len(got))
	}
}

func TestEventTypeFollowsStatus(t *testing.T) {
	for status, want := range map[result.Status]result.Type{result.StatusCompleted: result.TypeCompleted,
		result.StatusFailed: result.TypeFailed, result.StatusRejected: result.TypeRejected, result.StatusInProgress: result.TypeProgress} {
		ev := result.New("mqprobe/x", result.Data{Status: status}, time.Now())
		if ev.Type != want || ev.SpecVersion != "1.0" || ev.DataContentType != "application/json" || ev.ID == "" {
			t.Errorf("%s: %+v", status, ev)
		}
	}
}

// TestRecentConfig: results.recent and results.recentMaxBytes refuse
// negative values by key, and the store they describe keeps what they say.
func TestRecentConfig(t *testing.T) {
	err := result.RecentConfig{Recent: -1, RecentMaxBytes: -1}.Validate()
	for _, key := range []string{"results.recent: must not be negative", "results.recentMaxBytes: must not be negative"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("got %v, want %q", err, key)
		}
	}
	if err := result.DefaultRecentConfig().Validate(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	r := result.RecentConfig{Recent: 2}.NewRecent()
	for i := range 3 {
		_ = r.Publish(context.Background(), result.Event{ID: fmt.Sprint(i)})
	}
	if got := r.Find(result.Filter{}); len(got) != 2 || got[0].ID != "2" || got[1].ID != "1" {
		t.Errorf("kept %+v, want the 2 newest", got)
	}
}

// TestRecentWatches: a watch receives the matching events published after
// it began; one whose reader falls behind ends, saying so, rather than
// hold more or block publishing; and watches are bounded.
func TestRecentWatches(t *testing.T) {
	r := result.NewRecent(10, 0)
	publish := func(key string) {
		t.Helper()
		if err := r.Publish(context.Background(), result.New("mqprobe/test", result.Data{IdempotencyKey: key, OperationType: "DEPTH", Status: result.StatusCompleted}, time.Now())); err != nil {
			t.Fatal(err)
		}
	}
	publish("before")
	w, err := r.Watch(result.Filter{IdempotencyKey: "mine", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	publish("other")
	publish("mine")
	publish("mine")
	for i := range 2 {
		if e := <-w.Events; e.Data.IdempotencyKey != "mine" {
			t.Fatalf("event %d of the watch: key %q, want only mine, and only new ones", i, e.Data.IdempotencyKey)
		}
	}

	// Never read: it ends once its buffer is full, and publishing goes on.
	slow, err := r.Watch(result.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for range 300 {
		publish("x")
	}
	n := 0
	for range slow.Events {
		n++
	}
	if !slow.Lagged() || n == 0 || n >= 300 {
		t.Errorf("a watch never read: lagged %v after %d of 300 events, want it ended, lagged, with what it held", slow.Lagged(), n)
	}
	w.Close()
	if _, open := <-w.Events; open || w.Lagged() {
		t.Error("a closed watch still delivers, or says it lagged")
	}

	var open []*result.Watch
	for range result.MaxWatches {
		w, err := r.Watch(result.Filter{})
		if err != nil {
			t.Fatalf("watch %d: %v", len(open)+1, err)
		}
		open = append(open, w)
	}
	if _, err := r.Watch(result.Filter{}); err != result.ErrTooManyWatches {
		t.Errorf("watch %d: %v, want ErrTooManyWatches", result.MaxWatches+1, err)
	}
	open[0].Close()
	if _, err := r.Watch(result.Filter{}); err != nil {
		t.Errorf("a watch after one closed: %v", err)
	}
}

// TestRecentKeepsWhatAListWould checks the ring against the plain rule —
// append, then drop the oldest while over the count or the bytes, the
// newest always kept — over random sizes that wrap it many times.
func TestRecentKeepsWhatAListWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, bounds := range []struct{ count, bytes int }{{1, 0}, {5, 0}, {40, 0}, {40, 6_000}, {1000, 3_000}} {
		r := result.NewRecent(bounds.count, bounds.bytes)
		var want []result.Event
		wantBytes := 0
		size := func(e result.Event) int { return 512 + len(e.Data.Result) } // the store's own estimate
		for i := range 500 {
			body := json.RawMessage(`"` + strings.Repeat("x", rng.IntN(2_000)) + `"`)
			ev := result.New("mqprobe/test", result.Data{IdempotencyKey: fmt.Sprint("k", i), Result: body}, time.Now())
			if err := r.Publish(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
			want, wantBytes = append(want, ev), wantBytes+size(ev)
			for len(want) > 1 && (len(want) > bounds.count || (bounds.bytes > 0 && wantBytes > bounds.bytes)) {
				want, wantBytes = want[1:], wantBytes-size(want[0])
			}
			got := r.Find(result.Filter{})
			if len(got) != len(want) {
				t.Fatalf("bounds %+v, after %d events: kept %d, want %d", bounds, i+1, len(got), len(want))
			}
			for j := range got {
				if k, w := got[j].Data.IdempotencyKey, want[len(want)-1-j].Data.IdempotencyKey; k != w {
					t.Fatalf("bounds %+v, after %d events: event %d is %s, want %s", bounds, i+1, j, k, w)
				}
			}
		}
	}
}

// BenchmarkRecentPublish: a Publish into a full store costs the same
// whatever the number of events kept.
func BenchmarkRecentPublish(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprint("kept=", n), func(b *testing.B) {
			r := result.NewRecent(n, 0)
			ev := result.New("mqprobe/test", result.Data{IdempotencyKey: "k", OperationType: "DEPTH"}, time.Now())
			for range n {
				r.Publish(context.Background(), ev) //nolint:errcheck // Recent's Publish cannot fail
			}
			b.ResetTimer()
			for range b.N {
				if err := r.Publish(context.Background(), ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
