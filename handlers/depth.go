package handlers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
)

// DepthResult is DEPTH's data.result. The counts are those of the local
// queue that holds the named queue's messages on this queue manager: the
// queue itself, an alias's base queue, or a remote definition's
// transmission queue. They are absent (nil) when no local queue does: a
// cluster queue hosted elsewhere, a remote definition whose transmission
// queue is not defined here.
type DepthResult struct {
	CurrentDepth    *int `json:"currentDepth,omitempty"`
	MaxDepth        *int `json:"maxDepth,omitempty"`
	OpenInputCount  *int `json:"openInputCount,omitempty"`
	OpenOutputCount *int `json:"openOutputCount,omitempty"`
	// QueueType is the named queue's type: local, alias, remote, cluster.
	QueueType string `json:"queueType"`
	// BaseQueue is an alias's target, whose counts are reported.
	BaseQueue string `json:"baseQueue,omitempty"`
	// RemoteQueue and RemoteQueueManager are where a remote definition
	// (the queue named or an alias's base) sends its messages;
	// TransmissionQueue is the local queue holding them until the channel
	// moves them, whose counts are reported.
	RemoteQueue        string `json:"remoteQueue,omitempty"`
	RemoteQueueManager string `json:"remoteQueueManager,omitempty"`
	TransmissionQueue  string `json:"transmissionQueue,omitempty"`

	// The counted queue's health, from its status (INQUIRE_Q_STATUS on
	// IBM MQ). A figure the queue manager could not give is absent and
	// named in Missing with the reason; LastPutAt, LastGetAt and QueueTime
	// are also absent when no put or get has happened.
	DepthShare              *float64   `json:"depthShare,omitempty"` // currentDepth / maxDepth
	UncommittedMessages     *int       `json:"uncommittedMessages,omitempty"`
	OldestMessageAgeSeconds *float64   `json:"oldestMessageAgeSeconds,omitempty"`
	LastPutAt               *time.Time `json:"lastPutAt,omitempty"`
	LastGetAt               *time.Time `json:"lastGetAt,omitempty"`
	QueueTime               *QueueTime `json:"queueTime,omitempty"`
	// Missing maps each figure the answer lacks to why.
	Missing map[string]string `json:"missing,omitempty"`

	// Verdict judges the figures against the command's thresholds
	// (absent without them): critical, warning, healthy or unknown;
	// Findings say which figure decided what.
	Verdict  string    `json:"verdict,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
}

// QueueTime is how long the messages got had waited (QTIME): averaged
// over the last few and over many.
type QueueTime struct {
	ShortMs float64 `json:"shortMs"`
	LongMs  float64 `json:"longMs"`
}

// Finding is one thresholded figure's judgement.
type Finding struct {
	Figure    string   `json:"figure"`          // depthShare or oldestMessageAgeSeconds
	Value     *float64 `json:"value,omitempty"` // absent when the figure is missing
	Threshold float64  `json:"threshold"`
	Verdict   string   `json:"verdict"`
}

// Verdicts, worst first.
const (
	verdictCritical = "critical"
	verdictWarning  = "warning"
	verdictUnknown  = "unknown"
	verdictHealthy  = "healthy"
)

// warningShare is where a warning starts, as a share of a threshold.
const warningShare = 0.8

// The figures the queue status gives, as DEPTH names them.
var (
	statusFigures    = []string{"uncommittedMessages", "oldestMessageAgeSeconds", "lastPutAt", "lastGetAt", "queueTime"}
	monitoredFigures = []string{"oldestMessageAgeSeconds", "lastPutAt", "lastGetAt", "queueTime"}
)

// depth inquires the queue's depth and open counts, following an alias to
// its base queue and a remote definition to its transmission queue. The
// depth includes uncommitted messages, as MQ's CURDEPTH does.
func depth(ctx context.Context, run Run) (any, error) {
	var res DepthResult
	var counted string
	err := mqCall(ctx, run, "inquire", func(ctx context.Context) error {
		return readOnly(ctx, run, func(conn *mq.PooledConn) (err error) {
			res, counted, err = inquireDepth(ctx, conn, run.Queue)
			if err != nil {
				return err
			}
			if counted == "" {
				res.missing(append([]string{"currentDepth"}, statusFigures...),
					"no local queue on this queue manager holds the queue's messages")
				return nil
			}
			return addStatus(ctx, conn, counted, &res)
		})
	})
	if err != nil {
		return nil, fmt.Errorf("depth: inquire %s: %w", run.Queue, err)
	}
	if t := run.Command.Thresholds; t != nil {
		res.Verdict, res.Findings = judge(res, *t)
	}
	qm := run.Target.QueueManager
	if res.CurrentDepth != nil {
		run.Metrics.QueueDepth(ctx, qm, counted, *res.CurrentDepth)
	}
	if res.OldestMessageAgeSeconds != nil {
		run.Metrics.QueueOldestMessageAge(ctx, qm, counted, time.Duration(*res.OldestMessageAgeSeconds*float64(time.Second)))
	}
	if res.Verdict != "" {
		run.Metrics.QueueHealth(ctx, qm, cmp.Or(counted, run.Queue), res.Verdict)
	}
	return res, nil
}

// addStatus reads the counted queue's status into res. Only a context
// that has ended fails the command: a command server that refuses or does
// not answer leaves the figures missing, with the reason.
func addStatus(ctx context.Context, conn mq.Conn, queue string, res *DepthResult) error {
	st, err := conn.InquireQueueStatus(ctx, queue)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		res.missing(statusFigures, statusUnavailable(err))
		return nil
	}
	res.UncommittedMessages = &st.Uncommitted
	if !st.Monitored {
		res.missing(monitoredFigures, fmt.Sprintf("queue monitoring is off for %s (MONQ(OFF), IBM MQ's default): "+
			"enable it with ALTER QMGR MONQ(MEDIUM), and ALTER QLOCAL(%s) MONQ(QMGR) if the queue sets its own", queue, queue))
		return nil
	}
	age := math.Round(st.OldestMessageAge.Seconds()*1e3) / 1e3 // milliseconds are plenty for an age
	res.OldestMessageAgeSeconds = &age
	if !st.LastPut.IsZero() {
		res.LastPutAt = &st.LastPut
	}
	if !st.LastGet.IsZero() {
		res.LastGetAt = &st.LastGet
	}
	if st.QueueTimeKnown {
		res.QueueTime = &QueueTime{ShortMs: microsToMs(st.QueueTimeShort.Microseconds()),
			LongMs: microsToMs(st.QueueTimeLong.Microseconds())}
	}
	return nil
}

// statusUnavailable says why the command server's answer could not be
// read.
func statusUnavailable(err error) string {
	var e *mq.Error
	switch {
	case errors.As(err, &e) && e.Reason == mq.ReasonNotAuthorized:
		return "the command server refused (MQRC_NOT_AUTHORIZED): the user needs +put on " +
			"SYSTEM.ADMIN.COMMAND.QUEUE, +get on SYSTEM.DEFAULT.MODEL.QUEUE and +dsp on the object: " + err.Error()
	case errors.As(err, &e) && e.Reason == mq.ReasonNoMsgAvailable:
		return "the command server did not answer (is it running? strmqcsv): " + err.Error()
	}
	return "the command server's answer is unavailable: " + err.Error()
}

// missing records figures as missing for reason.
func (r *DepthResult) missing(figures []string, reason string) {
	if r.Missing == nil {
		r.Missing = map[string]string{}
	}
	for _, f := range figures {
		r.Missing[f] = reason
	}
}

// judge turns res into a verdict against t: the worst of its findings,
// where a missing figure is unknown.
func judge(res DepthResult, t command.Thresholds) (string, []Finding) {
	var findings []Finding
	rank := map[string]int{verdictHealthy: 0, verdictUnknown: 1, verdictWarning: 2, verdictCritical: 3}
	verdict := verdictHealthy
	check := func(figure string, value *float64, threshold *float64) {
		if threshold == nil {
			return
		}
		f := Finding{Figure: figure, Value: value, Threshold: *threshold, Verdict: verdictUnknown}
		switch {
		case value == nil:
		case *value > *threshold:
			f.Verdict = verdictCritical
		case *value > *threshold*warningShare:
			f.Verdict = verdictWarning
		default:
			f.Verdict = verdictHealthy
		}
		if rank[f.Verdict] > rank[verdict] {
			verdict = f.Verdict
		}
		findings = append(findings, f)
	}
	check("depthShare", res.DepthShare, t.MaxDepthShare)
	check("oldestMessageAgeSeconds", res.OldestMessageAgeSeconds, t.MaxOldestMessageAgeSeconds)
	return verdict, findings
}

// inquireDepth builds DEPTH's result for queue and names the local queue
// whose counts it holds ("" when none).
func inquireDepth(ctx context.Context, conn mq.Conn, queue string) (DepthResult, string, error) {
	info, err := mq.InquireQueue(ctx, conn, queue)
	if err != nil {
		return DepthResult{}, "", err
	}
	res := DepthResult{QueueType: info.Type.String()}
	if info.Type == mq.QueueAlias {
		// An alias's base is a local, remote or cluster queue, never
		// another alias.
		res.BaseQueue = info.BaseQueue
		if info, err = mq.InquireQueue(ctx, conn, info.BaseQueue); err != nil {
			return DepthResult{}, "", fmt.Errorf("alias %s: base queue %s: %w", queue, res.BaseQueue, err)
		}
	}
	if info.Type == mq.QueueRemote {
		res.RemoteQueue, res.RemoteQueueManager = info.RemoteQueue, info.RemoteQueueManager
		// A blank XMITQ means the local queue named like the remote
		// queue manager.
		implied := info.TransmissionQueue == ""
		xmitq := cmp.Or(info.TransmissionQueue, info.RemoteQueueManager)
		if xmitq == "" {
			return res, "", nil // a queue-manager alias: nothing is held here
		}
		info, err = mq.InquireQueue(ctx, conn, xmitq)
		switch {
		case mq.IsReason(err, mq.ReasonUnknownObjectName) && implied:
			// Not defined: the queue manager routes by its default
			// transmission queue or a cluster, which DEPTH does not follow.
			return res, "", nil
		case err != nil:
			return DepthResult{}, "", fmt.Errorf("remote queue %s: transmission queue %s: %w", queue, xmitq, err)
		}
		res.TransmissionQueue = xmitq
	}
	if info.Type != mq.QueueLocal {
		return res, "", nil
	}
	res.CurrentDepth, res.MaxDepth = &info.CurrentDepth, &info.MaxDepth
	res.OpenInputCount, res.OpenOutputCount = &info.OpenInputCount, &info.OpenOutputCount
	if info.MaxDepth > 0 {
		share := math.Round(float64(info.CurrentDepth)/float64(info.MaxDepth)*1e4) / 1e4
		res.DepthShare = &share
	}
	return res, info.Name, nil
}
