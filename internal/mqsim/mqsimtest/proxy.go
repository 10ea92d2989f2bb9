package mqsimtest

import (
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a server and keeps the first bytes
// each client sent, to show what went over the wire (a TLS handshake
// record starts 0x16 0x03).
type Proxy struct {
	// ConnName is the proxy's MQCD ConnectionName, "127.0.0.1(port)".
	ConnName string
	mu       sync.Mutex
	firsts   [][]byte
}

// StartProxy forwards connections to server (host:port) until tb's
// cleanup.
func StartProxy(t testing.TB, server string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	addr := l.Addr().(*net.TCPAddr)
	p := &Proxy{ConnName: "127.0.0.1(" + strconv.Itoa(addr.Port) + ")"}
	var wg sync.WaitGroup
	var connsMu sync.Mutex
	var conns []net.Conn
	closed := false
	// track keeps c to close at cleanup, or closes it when that has begun.
	track := func(c net.Conn) {
		connsMu.Lock()
		defer connsMu.Unlock()
		if closed {
			c.Close()
			return
		}
		conns = append(conns, c)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			client, err := l.Accept()
			if err != nil {
				return
			}
			upstream, err := net.Dial("tcp", server)
			if err != nil {
				client.Close()
				continue
			}
			track(client)
			track(upstream)
			index := p.add()
			wg.Add(2)
			go func() {
				defer wg.Done()
				defer upstream.Close()
				first := make([]byte, 3)
				n, err := io.ReadFull(client, first)
				p.set(index, first[:n])
				if err == nil {
					if _, err := upstream.Write(first); err == nil {
						io.Copy(upstream, client) // ends when either side closes
					}
				}
			}()
			go func() {
				defer wg.Done()
				defer client.Close()
				io.Copy(client, upstream) // ends when either side closes
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		connsMu.Lock()
		closed = true
		for _, c := range conns {
			c.Close()
		}
		connsMu.Unlock()
		wg.Wait()
	})
	return p
}

func (p *Proxy) add() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.firsts = append(p.firsts, nil)
	return len(p.firsts) - 1
}

func (p *Proxy) set(i int, b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.firsts[i] = append([]byte(nil), b...)
}

// FirstBytes are the first (up to 3) bytes of every connection so far, in
// the order they were accepted.
func (p *Proxy) FirstBytes() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.firsts...)
}
