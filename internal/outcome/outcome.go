// Package outcome names what can become of one command: the kind the
// executor decides, which every transport then answers in its own terms
// (the API a status and problem type, the bus an ack or a redelivery, the
// CLI an exit code). It knows no transport.
package outcome

// Kind is what became of one command.
type Kind string

// Kinds of outcome.
const (
	// Completed: the command ran and its result is recorded.
	Completed Kind = "completed"
	// Failed: the command ran and failed for good; its failure is recorded.
	Failed Kind = "failed"
	// FailedTransient: the command failed for a cause that passes (the
	// store, a lease that ran out); a retry resumes it.
	FailedTransient Kind = "failed_transient"
	// Rejected: the command was refused before it acted; the same bytes
	// are refused again.
	Rejected Kind = "rejected"
	// Limited: a valid command refused, before it was claimed, by a limit on
	// the work of its kind (concurrent TEST runs); its result says which.
	Limited Kind = "limited"
	// Replayed: the command was decided before; its recorded result stands.
	Replayed Kind = "replayed"
	// InProgress: the same command runs now, here or elsewhere.
	InProgress Kind = "in_progress"
	// RateLimited: the command's target is over its rate; nothing ran.
	RateLimited Kind = "rate_limited"
	// Busy: no room to execute it now (admission, no free connection);
	// nothing ran.
	Busy Kind = "busy"
	// OutcomePending: the command ran and its outcome is known, but the
	// store has not recorded it yet; this process retries until it does.
	OutcomePending Kind = "outcome_pending"
	// Undecided: nothing was decided (store unavailable, lease lost,
	// shutdown); a retry decides.
	Undecided Kind = "undecided"
	// Unreadable: the command's record holds a result this daemon cannot
	// read; nothing was decided.
	Unreadable Kind = "unreadable"
)

// Kinds is every kind, for the tables that map them.
var Kinds = []Kind{Completed, Failed, FailedTransient, Rejected, Limited, Replayed,
	InProgress, RateLimited, Busy, OutcomePending, Undecided, Unreadable}

// Final reports whether the kind decides the command: its result is
// recorded (or it was refused for good), and a redelivery only replays it.
func (k Kind) Final() bool {
	switch k {
	case Completed, Failed, Rejected, Limited, Replayed:
		return true
	}
	return false
}

// Name is the kind as audit lines, metrics and /status count it: a
// refusal by a limit counts as rejected, and every kind that leaves the
// command for later, save a run elsewhere, as undecided.
func (k Kind) Name() string {
	switch k {
	case Completed, Failed, FailedTransient, Rejected, Replayed, InProgress:
		return string(k)
	case Limited:
		return string(Rejected)
	}
	return string(Undecided)
}
