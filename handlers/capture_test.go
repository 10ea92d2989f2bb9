package handlers

import (
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// smallRecord is a record limit that lists a few dozen 1-byte messages.
const smallRecord = 2*(recordReserve/2+maxDoubtIDs*doubtIDBytes) + 2*8000

// TestConsumeCountsPastTheList: with more messages than the record can
// list, the first ones are listed, the rest counted; every checkpoint fits
// the record and every message got is counted.
func TestConsumeCountsPastTheList(t *testing.T) {
	f := newFixture(t)
	ids := f.putN(300)
	limits := defaultCapture()
	limits.RecordBytes = smallRecord
	res, err := consume(f.ctx, f.run(withTx(consumeCmd(300, 0), 50)), limits)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	r := res.(ConsumeResult)
	listed := len(r.Messages)
	if r.Received != 300 || !r.Truncated || listed == 0 || listed >= 300 {
		t.Fatalf("received %d, listed %d, truncated %v: want 300 received, some listed, truncated", r.Received, listed, r.Truncated)
	}
	if !slices.Equal(msgIDs(r.Messages), encodeIDs(ids[:listed])) {
		t.Errorf("listed messages are not the first %d got", listed)
	}
	f.wantDepth(0)
	for i, cp := range f.checkpointCalls() {
		if len(cp) > (smallRecord-recordReserve)/2 {
			t.Errorf("checkpoint %d holds %d bytes, more than half the record's room", i+1, len(cp))
		}
		p := decodeConsumeProgress(t, cp)
		if got := p.Committed + p.Counted; got != 50*i {
			t.Errorf("checkpoint %d: %d final (committed %d + counted %d), want %d", i+1, got, p.Committed, p.Counted, 50*i)
		}
	}
}

// TestConsumeResumesPastTheList: a resumed CONSUME whose list was full
// settles the unlisted in-doubt messages by their ids: each message is
// counted once whether the interrupted unit committed or not.
func TestConsumeResumesPastTheList(t *testing.T) {
	for _, from := range []int{3, 4} {
		t.Run("from checkpoint "+strconv.Itoa(from), func(t *testing.T) {
			f := newFixture(t)
			f.putN(300)
			limits := defaultCapture()
			limits.RecordBytes = smallRecord
			f.failCheckpoint = failOnCall(4, idempotency.ErrLeaseLost)
			_, err := consume(f.ctx, f.run(withTx(consumeCmd(300, 0), 50)), limits)
			if !errors.Is(err, idempotency.ErrLeaseLost) {
				t.Fatalf("got %v, want lease lost", err)
			}
			f.failCheckpoint = nil
			f.wantDepth(150) // three units committed, the fourth backed out
			run := f.run(withTx(consumeCmd(300, 0), 50))
			run.Progress = f.checkpointCalls()[from-1]
			if p := decodeConsumeProgress(t, run.Progress); len(p.Doubt) == 0 && p.Counted == 0 {
				t.Fatalf("checkpoint %d counts nothing unlisted: the test needs a full list", from)
			}
			res, err := consume(f.ctx, run, limits)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			r := res.(ConsumeResult)
			if r.Received != 300 || !r.Truncated {
				t.Fatalf("resumed: received %d truncated %v, want 300 and truncated", r.Received, r.Truncated)
			}
			f.wantDepth(0)
			c, _ := ReadCheckpoint("CONSUME", f.checkpointCalls()[len(f.checkpointCalls())-1])
			if c.Committed < 250 || c.LastMsgID == "" {
				t.Errorf("last checkpoint reads %+v, want at least 250 committed and the last id", c)
			}
		})
	}
}

// TestReadCheckpointCountsUnlistedMessages: a checkpoint whose list is full
// reports every final message, listed or counted, and the id of the last.
func TestReadCheckpointCountsUnlistedMessages(t *testing.T) {
	p := `{"committed":2,"truncated":true,"messages":[{"msgIdBase64":"m1"},{"msgIdBase64":"m2"}],` +
		`"counted":5,"lastCounted":"c5","doubt":["d1","d2"]}`
	for _, tc := range []struct {
		live      int64
		committed int
		last      string
	}{{0, 7, "c5"}, {8, 8, "d1"}, {9, 9, "d2"}, {50, 9, "d2"}} {
		c, ok := ReadCheckpointCommitted("CONSUME", p, tc.live)
		if !ok || c.Committed != tc.committed || c.LastMsgID != tc.last || c.FirstMsgID != "m1" || !c.Resumable {
			t.Errorf("live %d: %+v, want %d committed, last %s", tc.live, c, tc.committed, tc.last)
		}
	}
}
