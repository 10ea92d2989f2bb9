package mq

import "time"

// QueueStatus is a local queue's status, as IBM MQ's command server
// reports it (INQUIRE_Q_STATUS with MQIACF_Q_STATUS).
type QueueStatus struct {
	Name            string
	CurrentDepth    int // CURDEPTH
	OpenInputCount  int // IPPROCS
	OpenOutputCount int // OPPROCS
	// Uncommitted counts the puts and gets on the queue in units of work
	// not yet committed or backed out (UNCOM).
	Uncommitted int
	// Monitored reports whether the queue manager measures the figures
	// below: on IBM MQ only with queue monitoring on (MONQ other than
	// OFF); without it they are zero.
	Monitored bool
	// OldestMessageAge is how long the oldest committed message has been
	// on the queue (MSGAGE); zero on an empty queue. IBM MQ reports whole
	// seconds.
	OldestMessageAge time.Duration
	// LastPut and LastGet are the last put and destructive get (LPUTDATE/
	// LPUTTIME, LGETDATE/LGETTIME); zero when none happened.
	LastPut, LastGet time.Time
	// QueueTimeShort and QueueTimeLong (QTIME) average how long the
	// messages got had waited, over the last few and over many;
	// QueueTimeKnown is false before the first get.
	QueueTimeShort, QueueTimeLong time.Duration
	QueueTimeKnown                bool
}
