package handlers

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// ConnectionResult is CONNECTION_TEST's data.result.
type ConnectionResult struct {
	Connected    bool    `json:"connected"`
	QueueManager string  `json:"queueManager"`
	CommandLevel int     `json:"commandLevel"`
	Platform     string  `json:"platform"` // MQPL_* without the prefix, e.g. UNIX
	ConnectMs    float64 `json:"connectMs"`

	CCSID     int     `json:"ccsid"`
	InquireMs float64 `json:"inquireMs"` // the MQINQ of the queue manager
	// DeadLetterQueue is the queue manager's DEADQ with its depth; absent
	// when it has none (see Missing).
	DeadLetterQueue *DeadLetterQueueHealth `json:"deadLetterQueue,omitempty"`
	// Channel is the status of the channel instance the connection runs
	// on; absent without a channel or a command server's answer (see
	// Missing).
	Channel *ChannelHealth `json:"channel,omitempty"`
	// CommandServer says whether the command server answered the channel
	// status inquiry; absent when none was sent (no channel).
	CommandServer *CommandServerHealth `json:"commandServer,omitempty"`
	// Missing maps each part the answer lacks to why.
	Missing map[string]string `json:"missing,omitempty"`
}

// DeadLetterQueueHealth is the dead-letter queue's name and depth.
type DeadLetterQueueHealth struct {
	Name         string  `json:"name"`
	CurrentDepth int     `json:"currentDepth"`
	InquireMs    float64 `json:"inquireMs"`
}

// ChannelHealth is a channel instance's status (INQUIRE_CHANNEL_STATUS).
type ChannelHealth struct {
	Name           string `json:"name"`
	ConnectionName string `json:"connectionName,omitempty"`
	Instances      int    `json:"instances"`
	Cipher         string `json:"cipher,omitempty"`     // TLS CipherSpec; absent without TLS
	PeerName       string `json:"peerName,omitempty"`   // the client certificate's DN as the queue manager saw it
	CertIssuer     string `json:"certIssuer,omitempty"` // its issuer's DN
	// Certificate is the one the queue manager presents on the channel;
	// absent without TLS.
	Certificate *CertificateHealth `json:"certificate,omitempty"`
}

// CertificateHealth is a certificate's names and how long it has left.
type CertificateHealth struct {
	Subject  string    `json:"subject"`
	Issuer   string    `json:"issuer"`
	NotAfter time.Time `json:"notAfter"`
	// DaysToExpiry is the whole days until NotAfter; negative once expired.
	DaysToExpiry int `json:"daysToExpiry"`
}

// CommandServerHealth is whether the command server answered, how fast,
// and why not.
type CommandServerHealth struct {
	Answered bool    `json:"answered"`
	Ms       float64 `json:"ms"`
	Reason   string  `json:"reason,omitempty"`
}

// connectionTest connects, inquires the queue manager, its dead-letter
// queue and the connection's channel status, and disconnects. ConnectMs
// is the time to obtain a connection from the pool: a new connect when the
// pool has no idle one, near zero when it reuses one. The inquire proves
// the queue manager answers either way; the rest never fails the command,
// only leaves its part missing with why.
func connectionTest(ctx context.Context, run Run) (any, error) {
	var res ConnectionResult
	start := time.Now()
	err := mqCall(ctx, run, "connect", func(ctx context.Context) error {
		return readOnly(ctx, run, func(conn *mq.PooledConn) error {
			res = ConnectionResult{ConnectMs: msSince(start)}
			inquired := time.Now()
			info, err := conn.InquireQueueManager(ctx)
			if err != nil {
				start = time.Now() // a retry measures its own connect
				return err
			}
			res.Connected, res.QueueManager, res.CommandLevel = true, info.Name, info.CommandLevel
			res.Platform, res.CCSID, res.InquireMs = info.Platform.String(), info.CCSID, msSince(inquired)
			if err := res.addDeadLetterQueue(ctx, conn, info.DeadLetterQueue); err != nil {
				return err
			}
			return res.addChannel(ctx, conn)
		})
	})
	if err != nil {
		return nil, fmt.Errorf("connection test: %w", err)
	}
	return res, nil
}

// addDeadLetterQueue reads the dead-letter queue's depth; only an ended
// context fails.
func (r *ConnectionResult) addDeadLetterQueue(ctx context.Context, conn mq.Conn, name string) error {
	if name == "" {
		r.missing("deadLetterQueue", "the queue manager names no dead-letter queue (DEADQ)")
		return nil
	}
	start := time.Now()
	info, err := mq.InquireQueue(ctx, conn, name)
	switch {
	case err != nil && ctx.Err() != nil:
		return err
	case err != nil:
		r.missing("deadLetterQueue", fmt.Sprintf("dead-letter queue %s: %v", name, err))
	default:
		r.DeadLetterQueue = &DeadLetterQueueHealth{Name: name, CurrentDepth: info.CurrentDepth, InquireMs: msSince(start)}
	}
	return nil
}

// addChannel reads the channel instance's status through the command
// server; only an ended context fails.
func (r *ConnectionResult) addChannel(ctx context.Context, conn mq.Conn) error {
	start := time.Now()
	st, err := conn.InquireChannelStatus(ctx)
	elapsed := msSince(start)
	switch {
	case err != nil && ctx.Err() != nil:
		return err
	case err != nil:
		why := statusUnavailable(err)
		r.CommandServer = &CommandServerHealth{Ms: elapsed, Reason: why}
		r.missing("channel", why)
	case st.Channel == "":
		r.missing("channel", "the connection names no channel (the embedded queue manager, or a channel from MQSERVER or a CCDT)")
	default:
		r.CommandServer = &CommandServerHealth{Answered: true, Ms: elapsed}
		r.Channel = &ChannelHealth{Name: st.Channel, ConnectionName: st.ConnectionName, Instances: st.Instances,
			Cipher: st.Cipher, PeerName: st.PeerName, CertIssuer: st.CertIssuer}
		if c := st.QueueManagerCertificate; c != nil {
			r.Channel.Certificate = &CertificateHealth{Subject: c.Subject, Issuer: c.Issuer, NotAfter: c.NotAfter,
				DaysToExpiry: daysUntil(c.NotAfter, time.Now())}
		} else if st.CertificateUnread != "" {
			r.missing("certificate", st.CertificateUnread)
		}
	}
	return nil
}

// daysUntil is the whole days from now to t, rounded toward the past: a
// certificate that expires in 23 hours has 0 days left, one expired an
// hour ago -1.
func daysUntil(t, now time.Time) int {
	return int(math.Floor(t.Sub(now).Hours() / 24))
}

func (r *ConnectionResult) missing(part, reason string) {
	if r.Missing == nil {
		r.Missing = map[string]string{}
	}
	r.Missing[part] = reason
}

// msSince is the milliseconds since start, to the microsecond.
func msSince(start time.Time) float64 { return microsToMs(time.Since(start).Microseconds()) }
