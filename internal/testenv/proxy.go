package testenv

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
)

// Proxy forwards TCP connections to a target until a test cuts it: then
// it closes every open connection and resets new ones at once (a network
// outage the client sees as errors, not hangs), until Restore.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
	// sent keeps what clients sent, when the proxy records (nil otherwise).
	sent *bytes.Buffer
}

// StartProxy listens on a loopback port and forwards to target (host:port).
func StartProxy(target string) (*Proxy, error) { return startProxy(target, nil) }

// StartRecordingProxy is StartProxy keeping every byte the clients send,
// for Sent.
func StartRecordingProxy(target string) (*Proxy, error) {
	return startProxy(target, &bytes.Buffer{})
}

// startProxy sets every field before the accept loop starts: its
// goroutines read sent without the lock.
func startProxy(target string, sent *bytes.Buffer) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}, sent: sent}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Sent is every byte the clients of a recording proxy sent so far.
func (p *Proxy) Sent() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sent == nil {
		return nil
	}
	return bytes.Clone(p.sent.Bytes())
}

// record keeps b as sent by a client.
func (p *Proxy) record(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sent.Write(b)
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
	}
}

// Restore forwards new connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// Close stops the proxy and its connections.
func (p *Proxy) Close() {
	p.ln.Close()
	p.Cut()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

// track registers c unless the proxy is cut.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
		c.Close()
	}
}

func (p *Proxy) forward(client net.Conn) {
	defer p.wg.Done()
	if tc, ok := client.(*net.TCPConn); ok {
		tc.SetLinger(0) // a cut resets rather than ends the connection
	}
	if !p.track(client) {
		client.Close()
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(server) {
		if server != nil {
			server.Close()
		}
		p.untrack(client)
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst io.Writer, src net.Conn) {
		io.Copy(dst, src) //nolint:errcheck // either side closing ends the pair
		done <- struct{}{}
	}
	if p.sent != nil {
		go pipe(recorder{p, server}, client)
	} else {
		go pipe(server, client)
	}
	go pipe(client, server)
	<-done
	p.untrack(client, server)
	<-done
}

// recorder writes to a connection and records what it wrote.
type recorder struct {
	p    *Proxy
	conn net.Conn
}

func (r recorder) Write(b []byte) (int, error) {
	r.p.record(b)
	return r.conn.Write(b)
}
