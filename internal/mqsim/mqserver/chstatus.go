package mqserver

import (
	"net"
	"sync/atomic"
	"time"
)

// channelCounters are what INQUIRE_CHANNEL_STATUS reports of a session,
// its SVRCONN channel instance. The session's goroutine writes them; the
// command server reads them.
type channelCounters struct {
	started    atomic.Int64 // unix nanoseconds of CONNECT; 0 before it
	lastCall   atomic.Int64 // unix nanoseconds of the last MQI call
	calls      atomic.Int64 // MQI calls, IBM's MSGS for a SVRCONN
	bytesIn    atomic.Int64
	bytesOut   atomic.Int64
	buffersIn  atomic.Int64
	buffersOut atomic.Int64
}

// frameOverhead is a frame's length, op and flags.
const frameOverhead = 8

func (c *channelCounters) start() { c.started.Store(time.Now().UnixNano()) }

func (c *channelCounters) received(body int) {
	c.bytesIn.Add(int64(body + frameOverhead))
	c.buffersIn.Add(1)
}

func (c *channelCounters) sent(body int) {
	c.bytesOut.Add(int64(body + frameOverhead))
	c.buffersOut.Add(1)
	c.calls.Add(1)
	c.lastCall.Store(time.Now().UnixNano())
}

// channelInstance is one running SVRCONN instance as the command server
// sees it.
type channelInstance struct {
	channel      string
	qmgr         string
	connName     string // the client's address, as IBM's CONNAME shows it
	localAddress string
	user         string
	applName     string
	jobName      string // MCA job name: unique per instance
	maxMsgLength int
	started      time.Time
	lastCall     time.Time
	calls        int64
	bytesIn      int64
	bytesOut     int64
	buffersIn    int64
	buffersOut   int64
	// TLS: the negotiated CipherSpec, and the client certificate's
	// subject and issuer DNs; empty for plain TCP or no certificate.
	cipherSpec, peerName, issuerName string
}

// identity is what CONNECT settled for a session, set once under
// Server.mu so the command server can read it.
type identity struct {
	channel, qmgr, user, applName string
	maxMsgLength                  int
}

// channelInstances lists the sessions connected to queue manager qmgr.
func (srv *Server) channelInstances(qmgr string) []channelInstance {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	var out []channelInstance
	for sess := range srv.sessions {
		id := sess.identity
		if id == nil || id.qmgr != qmgr {
			continue
		}
		c := &sess.status
		inst := channelInstance{
			channel: id.channel, qmgr: id.qmgr, user: id.user, applName: id.applName,
			maxMsgLength: id.maxMsgLength,
			connName:     hostOf(sess.nc.RemoteAddr().String()),
			localAddress: sess.nc.LocalAddr().String(),
			jobName:      sess.jobName,
			started:      time.Unix(0, c.started.Load()),
			calls:        c.calls.Load(),
			bytesIn:      c.bytesIn.Load(),
			bytesOut:     c.bytesOut.Load(),
			buffersIn:    c.buffersIn.Load(),
			buffersOut:   c.buffersOut.Load(),
		}
		if last := c.lastCall.Load(); last != 0 {
			inst.lastCall = time.Unix(0, last)
		}
		// The handshake set sess.tls before CONNECT set sess.identity.
		inst.cipherSpec = negotiatedCipherSpec(sess.tls)
		if sess.tls != nil && len(sess.tls.PeerCertificates) > 0 {
			cert := sess.tls.PeerCertificates[0]
			inst.peerName, inst.issuerName = cert.Subject.String(), cert.Issuer.String()
		}
		out = append(out, inst)
	}
	return out
}

// setIdentity records what CONNECT settled.
func (s *session) setIdentity(id identity) {
	s.srv.mu.Lock()
	s.identity = &id
	s.srv.mu.Unlock()
}

// hostOf is the host of a host:port address.
func hostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}
