package inflight

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestCountersStartResumesAndNilIgnoresUpdates(t *testing.T) {
	var c Counters
	c.Start(1000, 200)
	c.SetDone(250)
	c.SetCommitted(240)
	if total, done, committed := c.Values(); total != 1000 || done != 250 || committed != 240 {
		t.Fatalf("values = %d %d %d, want 1000 250 240", total, done, committed)
	}
	var none *Counters
	none.Start(1, 1)
	none.SetDone(1)
	none.SetCommitted(1)
	if total, done, committed := none.Values(); total != 0 || done != 0 || committed != 0 {
		t.Fatalf("nil counters = %d %d %d, want zeros", total, done, committed)
	}
}

func TestSnapshotRateCountsThisAttemptOnly(t *testing.T) {
	start := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	cmd := &Command{OperationType: "PRODUCE", Key: "k1", Attempt: 2, StartedAt: start}
	cmd.Counters.Start(1000, 500)
	if s := cmd.Snapshot(start.Add(time.Second)); s.RatePerSec != 0 || s.Done != 500 || s.Committed != 500 {
		t.Fatalf("before any put: %+v, want no rate, done = committed = 500", s)
	}
	cmd.Counters.SetDone(700)
	s := cmd.Snapshot(start.Add(2 * time.Second))
	if s.RatePerSec != 100 || s.Total != 1000 || s.Done != 700 || s.Committed != 500 || s.Attempt != 2 {
		t.Fatalf("snapshot %+v, want 100/s over the 200 this attempt put, total 1000, done 700, committed 500", s)
	}
}

func TestSnapshotNeverShowsMoreCommittedThanDone(t *testing.T) {
	cmd := &Command{StartedAt: time.Now()}
	cmd.Counters.Start(10, 0)
	cmd.Counters.SetCommitted(5) // a reader between the two stores of a settle
	if s := cmd.Snapshot(time.Now()); s.Committed > s.Done {
		t.Fatalf("committed %d > done %d", s.Committed, s.Done)
	}
}

func TestRegistryAddGetRemove(t *testing.T) {
	var r Registry
	a := &Command{OperationType: "PRODUCE", Tenant: "team-a", Key: "k1"}
	remove := r.Add(a)
	if got, ok := r.Get("PRODUCE", "team-a", "k1"); !ok || got != a {
		t.Fatalf("Get = %v %v, want the added command", got, ok)
	}
	for _, id := range [][3]string{{"PRODUCE", "", "k1"}, {"PRODUCE", "team-b", "k1"}, {"CONSUME", "team-a", "k1"}} {
		if _, ok := r.Get(id[0], id[1], id[2]); ok {
			t.Errorf("Get%v found team-a's PRODUCE k1", id)
		}
	}
	remove()
	if _, ok := r.Get("PRODUCE", "team-a", "k1"); ok || r.Len() != 0 {
		t.Fatalf("still registered after remove (len %d)", r.Len())
	}
}

// TestRegistryKeepsCommandsWithOneKeyApart: with idempotency disabled two
// commands with one key run at once; both are listed, and whichever ends
// first removes only itself.
func TestRegistryKeepsCommandsWithOneKeyApart(t *testing.T) {
	var r Registry
	now := time.Now()
	first, second := &Command{Key: "k", StartedAt: now}, &Command{Key: "k", StartedAt: now.Add(time.Second)}
	removeFirst := r.Add(first)
	removeSecond := r.Add(second)
	if list, _ := r.List("", 10, now); r.Len() != 2 || len(list) != 2 {
		t.Fatalf("len %d, %d listed; want both commands", r.Len(), len(list))
	}
	removeSecond()
	if got, ok := r.Get("", "", "k"); !ok || got != first || r.Len() != 1 {
		t.Fatalf("after the second ended: Get = %v %v (len %d), want the first still running", got, ok, r.Len())
	}
	removeSecond() // twice is harmless
	if r.Len() != 1 {
		t.Fatalf("a second remove of the same command removed another (len %d)", r.Len())
	}
	third := &Command{Key: "k"}
	removeThird := r.Add(third)
	removeFirst()
	if got, ok := r.Get("", "", "k"); !ok || got != third {
		t.Fatalf("after the first ended: Get = %v %v, want the third", got, ok)
	}
	removeThird()
	if _, ok := r.Get("", "", "k"); ok || r.Len() != 0 {
		t.Fatalf("len %d after all removed", r.Len())
	}
}

func TestRegistryListsTheTenantsOldestFirstWithinLimit(t *testing.T) {
	var r Registry
	base := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for i := range 5 {
		r.Add(&Command{OperationType: "PRODUCE", Key: fmt.Sprint("k", i), StartedAt: base.Add(time.Duration(5-i) * time.Second)})
	}
	r.Add(&Command{OperationType: "PRODUCE", Tenant: "team-a", Key: "other", StartedAt: base})
	list, more := r.List("", 3, base.Add(time.Minute))
	if more != 2 || len(list) != 3 {
		t.Fatalf("List = %d listed, %d more; want 3 and 2", len(list), more)
	}
	for i, want := range []string{"k4", "k3", "k2"} {
		if list[i].IdempotencyKey != want || list[i].Tenant != "" {
			t.Errorf("list[%d] = %s (tenant %q), want %s", i, list[i].IdempotencyKey, list[i].Tenant, want)
		}
	}
	if list, more := r.List("team-a", 100, base); len(list) != 1 || more != 0 || list[0].IdempotencyKey != "other" {
		t.Fatalf("team-a's list = %+v, %d more", list, more)
	}
	if list, more := r.List("team-b", 100, base); len(list) != 0 || more != 0 {
		t.Fatalf("team-b's list = %+v, %d more", list, more)
	}
}

func TestRegistryIsSafeForConcurrentUse(t *testing.T) {
	var r Registry
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				cmd := &Command{Key: fmt.Sprint(i, "-", j), StartedAt: time.Now()}
				remove := r.Add(cmd)
				cmd.Counters.SetDone(int64(j))
				r.List("", 10, time.Now())
				remove()
			}
		}()
	}
	wg.Wait()
	if r.Len() != 0 {
		t.Fatalf("%d commands left registered", r.Len())
	}
}
