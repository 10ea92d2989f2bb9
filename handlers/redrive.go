package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/isoduration"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// Bounds of one REDRIVE.
const (
	// redriveListMax caps the messages a dry run lists; the counts cover
	// all of them.
	redriveListMax = 100
	// redriveOpenMax caps the destination queues held open at once.
	redriveOpenMax = 64
)

// Why a matching message stays on the dead-letter queue (RedriveResult's
// skippedBy keys; an open refused by the queue manager is its MQRC name).
const (
	skipNoHeader         = "noDeadLetterHeader"
	skipOtherQMgr        = "otherQueueManager"
	skipNotAllowed       = "destinationNotAllowed"
	skipSystemQueue      = "systemQueue"
	skipDeadLetterItself = "destinationIsDeadLetterQueue"
)

// RedriveResult is REDRIVE's data.result. Moved, ByReason, ByDestination
// and Transactions cover the whole command, earlier attempts included; the
// rest covers this attempt.
type RedriveResult struct {
	DryRun bool `json:"dryRun"`
	// Moved messages left the dead-letter queue for their destination (a
	// dry run: would have).
	Moved         int            `json:"moved"`
	ByReason      map[string]int `json:"byReason"`
	ByDestination map[string]int `json:"byDestination"`
	Transactions  int            `json:"transactions"`
	// Browsed is every message this attempt looked at; Skipped those that
	// matched the filter but stay, counted by cause in SkippedBy.
	Browsed   int            `json:"browsed"`
	Skipped   int            `json:"skipped"`
	SkippedBy map[string]int `json:"skippedBy,omitempty"`
	Elapsed   string         `json:"elapsed"`
	// Messages (dry run only) lists the first of the messages that would
	// move, up to 100; Complete reports whether it lists every one.
	Messages []RedriveMessage `json:"messages,omitempty"`
	Complete *bool            `json:"listComplete,omitempty"`
	// ResumedFrom is Moved as the previous attempt's checkpoint left it.
	ResumedFrom *int `json:"resumedFrom,omitempty"`
}

// RedriveMessage is one dead-lettered message as its MQDLH describes it.
type RedriveMessage struct {
	MsgIDBase64 string `json:"msgId"`
	DeadLetterHeader
	PayloadBytes int    `json:"payloadBytes"`
	Destination  string `json:"destination"`
}

// redriveProgress is REDRIVE's checkpoint: the committed units' counts, and
// the messages of the unit whose commit was under way when it was stored.
// A resume looks for those on the dead-letter queue: gone, the commit
// happened and they count; still there, it was backed out and they move
// again.
type redriveProgress struct {
	Moved         int            `json:"moved"`
	Transactions  int            `json:"transactions"`
	ByReason      map[string]int `json:"byReason,omitempty"`
	ByDestination map[string]int `json:"byDestination,omitempty"`
	Doubt         []redriveMove  `json:"doubt,omitempty"`
}

// redriveMove is one message of a unit of work.
type redriveMove struct {
	MsgID       string `json:"msgId"` // base64
	Reason      string `json:"reason"`
	Destination string `json:"destination"`
}

// fold counts the moves of a committed unit.
func (p *redriveProgress) fold(moves []redriveMove) {
	if p.ByReason == nil {
		p.ByReason, p.ByDestination = map[string]int{}, map[string]int{}
	}
	for _, m := range moves {
		p.Moved++
		p.ByReason[m.Reason]++
		p.ByDestination[m.Destination]++
	}
}

// redriveFilter is a command's filter, compiled.
type redriveFilter struct {
	reasons  map[mq.Reason]bool // nil: any
	queues   []string
	minAge   time.Duration
	maxMoves int // 0: no limit
}

func newRedriveFilter(f *command.RedriveFilter) (redriveFilter, error) {
	var rf redriveFilter
	if f == nil {
		return rf, nil
	}
	rf.queues, rf.minAge, rf.maxMoves = f.OriginalQueues, time.Duration(f.MinAgeSeconds)*time.Second, f.MaxMessages
	for i, v := range f.Reasons {
		if rf.reasons == nil {
			rf.reasons = map[mq.Reason]bool{}
		}
		switch v := v.(type) {
		case float64:
			rf.reasons[mq.Reason(v)] = true
		case string:
			r, ok := mq.ReasonNamed(v)
			if !ok {
				return rf, fmt.Errorf("filter.reasons[%d]: %q is no MQRC name this daemon knows: give the number", i, v)
			}
			rf.reasons[r] = true
		default:
			return rf, fmt.Errorf("filter.reasons[%d]: must be a number or an MQRC name", i)
		}
	}
	return rf, nil
}

// matches reports whether the filter admits h at now.
func (f redriveFilter) matches(h mq.DeadLetterHeader, now time.Time) bool {
	if f.reasons != nil && !f.reasons[h.Reason] {
		return false
	}
	if len(f.queues) > 0 && !anyMatch(f.queues, h.DestQueue) {
		return false
	}
	if f.minAge > 0 && (h.PutTime.IsZero() || now.Sub(h.PutTime) < f.minAge) {
		return false
	}
	return true
}

func anyMatch(patterns []string, s string) bool {
	for _, p := range patterns {
		if targets.Match(p, s, false) {
			return true
		}
	}
	return false
}

// reasonKey names a dead-letter reason in counts: its MQRC name, else its
// number (MQFB_* feedback codes, application codes).
func reasonKey(r mq.Reason) string {
	if n := r.Name(); n != "" {
		return n
	}
	return strconv.Itoa(int(r))
}

// redriver is one REDRIVE attempt.
type redriver struct {
	run    Run
	filter redriveFilter
	txSize int
	conn   *mq.PooledConn
	dlq    mq.Queue // browsed, and got from under syncpoint
	dests  map[string]mq.Queue

	done    redriveProgress // committed, cumulative over attempts
	unit    []redriveMove   // moved in the open unit of work
	uow     *unitOfWork
	res     RedriveResult
	skipped map[string]int
}

// redrive browses the dead-letter queue run.Queue and moves the messages
// its filter matches, each in the unit of work that gets it.
func redrive(ctx context.Context, run Run) (any, error) {
	start := time.Now()
	cmd := run.Command
	filter, err := newRedriveFilter(cmd.Filter)
	if err != nil {
		return nil, fmt.Errorf("redrive: %w", err)
	}
	if d := cmd.Destination; d != "" {
		if err := refuseDestination(run, d); err != nil {
			return nil, fmt.Errorf("redrive: destination %q: %w", d, err)
		}
	}
	r := &redriver{run: run, filter: filter, txSize: max(cmd.TxSize, 1), dests: map[string]mq.Queue{}, skipped: map[string]int{}}
	r.res.DryRun = cmd.DryRun
	uses := mq.OpenBrowse
	if !cmd.DryRun {
		uses |= mq.OpenInputShared
	}
	conn, q, err := openQueue(ctx, run, "redrive", uses)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	r.conn, r.dlq = conn, q
	defer r.closeDestinations()

	if !cmd.DryRun {
		if ok, err := loadProgress(run, &r.done); err != nil {
			return nil, fmt.Errorf("redrive: %w", err)
		} else if ok {
			if err := r.settleDoubt(ctx); err != nil {
				return nil, fmt.Errorf("redrive: resume: %w", err)
			}
			from := r.done.Moved
			r.res.ResumedFrom = &from
		}
	}
	run.Live.Start(int64(filter.maxMoves), int64(r.done.Moved))
	if err := r.moveAll(ctx); err != nil {
		return nil, r.abort(ctx, err)
	}
	return r.result(time.Since(start)), nil
}

// refuseDestination says why queue may not receive redriven messages: a
// SYSTEM.* queue, or one the target allowlist does not admit.
func refuseDestination(run Run, queue string) error {
	if mq.IsSystemQueue(queue) {
		return errors.New("SYSTEM.* queues are refused")
	}
	if run.AllowQueue != nil {
		return run.AllowQueue(queue)
	}
	return nil
}

// settleDoubt counts the in-doubt unit's messages that left the dead-letter
// queue: its commit happened.
func (r *redriver) settleDoubt(ctx context.Context) error {
	var probe mq.Message
	var committed []redriveMove
	for _, m := range r.done.Doubt {
		id, err := decodeID(m.MsgID)
		if err != nil {
			return fmt.Errorf("checkpointed msgId %q: %w", m.MsgID, err)
		}
		err = r.dlq.Get(ctx, &probe, mq.GetOptions{Browse: mq.BrowseFirst, MsgID: id})
		switch {
		case err == nil: // backed out: it moves again
		case mq.IsReason(err, mq.ReasonNoMsgAvailable):
			committed = append(committed, m)
		default:
			return fmt.Errorf("look for msgId %s: %w", m.MsgID, err)
		}
	}
	if len(committed) > 0 {
		r.done.Transactions++
	}
	r.done.fold(committed)
	r.done.Doubt = nil
	return nil
}

// moveAll browses the queue from its start and moves every match, up to
// the filter's maximum.
func (r *redriver) moveAll(ctx context.Context) error {
	var msg mq.Message
	browse := mq.BrowseFirst
	now := time.Now()
	for {
		if r.filter.maxMoves > 0 && r.done.Moved+len(r.unit) >= r.filter.maxMoves {
			break
		}
		if err := ctx.Err(); err != nil {
			return withCause(ctx, err)
		}
		err := r.dlq.Get(ctx, &msg, mq.GetOptions{Browse: browse})
		browse = mq.BrowseNext
		if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			break
		}
		if err != nil {
			return fmt.Errorf("redrive: browse %s: %w", r.run.Queue, withCause(ctx, err))
		}
		r.res.Browsed++
		if err := r.consider(ctx, &msg, now); err != nil {
			return err
		}
	}
	return r.commit(ctx)
}

// consider moves msg, or lists it in a dry run, when the filter matches it.
func (r *redriver) consider(ctx context.Context, msg *mq.Message, now time.Time) error {
	h, body, err := mq.DecodeDeadLetterHeader(msg.Payload)
	if err != nil {
		if r.filter.reasons == nil && len(r.filter.queues) == 0 && r.filter.minAge == 0 {
			r.skip(skipNoHeader)
		}
		return nil
	}
	if !r.filter.matches(h, now) {
		return nil
	}
	dest, cause := r.destination(h)
	if cause != "" {
		r.skip(cause)
		return nil
	}
	if r.run.Command.DryRun {
		r.list(msg, h, len(body), dest)
		return nil
	}
	q, cause, err := r.destinationQueue(ctx, dest)
	if err != nil {
		return err
	}
	if cause != "" {
		r.skip(cause)
		return nil
	}
	return r.move(ctx, msg.MsgID, q, dest)
}

func (r *redriver) skip(cause string) {
	r.res.Skipped++
	r.skipped[cause]++
}

// destination is where h's message goes, or why it stays.
func (r *redriver) destination(h mq.DeadLetterHeader) (queue, cause string) {
	queue = r.run.Command.Destination
	if queue == "" {
		if qm := r.run.Target.QueueManager; h.DestQMgr != "" && qm != "" && h.DestQMgr != qm {
			return "", skipOtherQMgr
		}
		queue = h.DestQueue
		if mq.IsSystemQueue(queue) {
			return "", skipSystemQueue
		}
		if r.run.AllowQueue != nil && r.run.AllowQueue(queue) != nil {
			return "", skipNotAllowed
		}
	}
	if queue == "" || queue == r.run.Queue {
		return "", skipDeadLetterItself
	}
	return queue, ""
}

// destinationQueue opens dest for output, or says why it cannot be (the
// queue manager's reason). Handles stay open for the command, up to
// redriveOpenMax.
func (r *redriver) destinationQueue(ctx context.Context, dest string) (mq.Queue, string, error) {
	if q, ok := r.dests[dest]; ok {
		return q, "", nil
	}
	if len(r.dests) >= redriveOpenMax {
		r.closeDestinations()
	}
	q, err := r.conn.OpenQueue(ctx, dest, mq.OpenOutput)
	var mqErr *mq.Error
	switch {
	case err == nil:
		r.dests[dest] = q
		return q, "", nil
	case errors.As(err, &mqErr) && !mqErr.Reason.Transient() && !mqErr.Reason.ConnectionBroken():
		return nil, mqErr.Reason.Code(), nil
	}
	return nil, "", fmt.Errorf("redrive: open %s: %w", dest, withCause(ctx, err))
}

func (r *redriver) closeDestinations() {
	for name, q := range r.dests {
		q.Close()
		delete(r.dests, name)
	}
}

// move gets the message id names from the dead-letter queue and puts it,
// header stripped and the Format, CCSID and Encoding of the data after it
// restored, on q, both in the open unit of work.
func (r *redriver) move(ctx context.Context, id mq.ID, q mq.Queue, dest string) error {
	if r.uow == nil {
		r.uow = beginUnit(ctx, r.run, "get")
	}
	var msg mq.Message
	err := r.dlq.Get(ctx, &msg, mq.GetOptions{Syncpoint: true, MsgID: id})
	if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
		return nil // another getter took it after the browse: not ours to count
	}
	if err != nil {
		return fmt.Errorf("redrive: get %s from %s: %w", encodeID(id), r.run.Queue, withCause(ctx, syncpointLimitHint(err, "txSize", r.txSize)))
	}
	h, body, err := mq.DecodeDeadLetterHeader(msg.Payload)
	if err != nil {
		return fmt.Errorf("redrive: message %s changed after it was browsed: %w", encodeID(id), err)
	}
	msg.Payload, msg.Format, msg.CCSID, msg.Encoding = body, h.Format, h.CCSID, h.Encoding
	if _, err := q.Put(ctx, &msg, mq.PutOptions{Syncpoint: true}); err != nil {
		return fmt.Errorf("redrive: put %s on %s: %w", encodeID(id), dest, withCause(ctx, syncpointLimitHint(err, "txSize", r.txSize)))
	}
	r.uow.n++
	r.unit = append(r.unit, redriveMove{MsgID: encodeID(id), Reason: reasonKey(h.Reason), Destination: dest})
	r.run.Live.SetDone(int64(r.done.Moved + len(r.unit)))
	if len(r.unit) >= r.txSize {
		return r.commit(ctx)
	}
	return nil
}

// commit ends the open unit of work: the checkpoint first names its
// messages as in doubt, then MQCMIT moves them, and they count. A crash
// between the two leaves the resume to find out which happened.
func (r *redriver) commit(ctx context.Context) error {
	if len(r.unit) == 0 {
		return nil
	}
	doubt := r.done
	doubt.Doubt = r.unit
	err := saveProgress(ctx, r.run, doubt)
	if err == nil {
		err = r.conn.Commit(ctx)
		if err != nil {
			err = fmt.Errorf("redrive: commit after %d messages: %w", r.done.Moved+len(r.unit), withCause(ctx, err))
		}
	} else {
		err = backout(ctx, r.conn, fmt.Errorf("redrive: after %d messages: %w", r.done.Moved, err))
	}
	r.uow.end(err)
	r.uow = nil
	if err != nil {
		r.unit = nil
		return err
	}
	r.done.fold(r.unit)
	r.done.Transactions++
	r.unit = nil
	r.run.Live.SetCommitted(int64(r.done.Moved))
	return nil
}

// abort backs out the open unit of work after err.
func (r *redriver) abort(ctx context.Context, err error) error {
	if r.uow != nil {
		r.uow.end(err)
		r.uow = nil
	}
	if len(r.unit) > 0 {
		r.unit = nil
		return backout(ctx, r.conn, err)
	}
	return err
}

// list counts a dry run's match and lists it while there is room.
func (r *redriver) list(msg *mq.Message, h mq.DeadLetterHeader, size int, dest string) {
	r.done.fold([]redriveMove{{Reason: reasonKey(h.Reason), Destination: dest}})
	if len(r.res.Messages) >= redriveListMax {
		return
	}
	r.res.Messages = append(r.res.Messages, RedriveMessage{MsgIDBase64: encodeID(msg.MsgID), DeadLetterHeader: deadLetterHeader(h),
		PayloadBytes: size, Destination: dest})
}

func (r *redriver) result(elapsed time.Duration) RedriveResult {
	res := r.res
	res.Moved, res.Transactions = r.done.Moved, r.done.Transactions
	res.ByReason, res.ByDestination = map[string]int{}, map[string]int{}
	maps.Copy(res.ByReason, r.done.ByReason)
	maps.Copy(res.ByDestination, r.done.ByDestination)
	if len(r.skipped) > 0 {
		res.SkippedBy = r.skipped
	}
	res.Elapsed = isoduration.Format(elapsed)
	if res.DryRun {
		complete := len(res.Messages) == res.Moved
		res.Complete = &complete
	}
	return res
}

// readRedriveCheckpoint reads a REDRIVE's checkpoint: its committed count;
// an in-doubt unit makes it resumable.
func readRedriveCheckpoint(progress string, _ int64) (Checkpointed, bool) {
	var p redriveProgress
	if json.Unmarshal([]byte(progress), &p) != nil {
		return Checkpointed{}, false
	}
	n := max(p.Moved, 0)
	return Checkpointed{Committed: n, Resumable: n > 0 || len(p.Doubt) > 0}, true
}
