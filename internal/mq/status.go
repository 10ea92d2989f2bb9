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

// ChannelStatus is the status of the channel instance a connection runs
// on, as INQUIRE_CHANNEL_STATUS reports it.
type ChannelStatus struct {
	Channel        string // CHANNEL; "" for a connection without one (the embedded queue manager, bindings)
	ConnectionName string // CONNAME: the client's address as the queue manager sees it
	// Instances counts the channel's running instances: from this
	// process's pool and any other client.
	Instances int
	// Cipher is the TLS CipherSpec in use (SSLCIPH); "" without TLS.
	Cipher string
	// PeerName is the distinguished name of the client certificate the
	// queue manager saw (SSLPEER) and CertIssuer its issuer's; "" without
	// one.
	PeerName, CertIssuer string
	// QueueManagerCertificate is the certificate the queue manager presents
	// on the channel; nil without TLS, or when it could not be read
	// (CertificateUnread says why).
	QueueManagerCertificate *Certificate
	CertificateUnread       string
}

// Certificate is what a health check shows of an X.509 certificate.
type Certificate struct {
	Subject, Issuer string
	NotAfter        time.Time
}
