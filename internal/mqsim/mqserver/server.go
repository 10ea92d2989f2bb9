package mqserver

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// Server serves the queue managers of an embedded.Backend to MQI clients
// over TCP. Its methods are safe for concurrent use.
type Server struct {
	backend    *embedded.Backend
	ownBackend bool // built from the config: Close closes it
	channels   map[string]Channel
	users      map[string]User
	tlsConfig  *tls.Config // nil: no certificate, no TLS
	log        *slog.Logger
	started    time.Time // creation date and time of every queue

	models          map[string]ModelQueue
	queueMonitoring int32 // MONQ (MQMON_*)

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	sessions  map[*session]struct{}
	closed    bool
	wg        sync.WaitGroup // Serve loops, sessions and command servers

	stopCommands context.CancelFunc

	settings settingsStore // queue attributes MQSET changed (set.go)

	expiryReports atomic.Int64  // expiration reports being put (reports.go)
	handles       atomic.Int64  // open object handles, all sessions
	connSeq       atomic.Uint64 // ConnectionId suffixes
	dynamicSeq    atomic.Uint64 // dynamic queue name suffixes
	sessionSeq    atomic.Uint64 // MCA job names
}

// Stats counts what the server holds open.
type Stats struct {
	Connections int // TCP connections, connected to a queue manager or not yet
	Handles     int // open object handles (MQOPEN without MQCLOSE)
}

// New builds a server for cfg without listening (see Serve and Listen) and
// starts its queue managers' command servers; Close stops them.
func New(cfg Config) (*Server, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("mqserver config: %w", err)
	}
	b := cfg.Backend
	if b == nil {
		qmgrs := embedded.Config{QueueManagers: cfg.QueueManagers}
		var err error
		if cfg.DataDir != "" {
			b, err = embedded.NewDurable(qmgrs, cfg.DataDir)
		} else {
			b, err = embedded.New(qmgrs)
		}
		if err != nil {
			return nil, err
		}
	}
	tlsConfig, err := cfg.TLS.serverTLS()
	if err != nil {
		if cfg.Backend == nil {
			b.Close() //nolint:errcheck // the config error is the one to report
		}
		return nil, fmt.Errorf("mqserver config: %w", err)
	}
	s := &Server{
		backend:    b,
		ownBackend: cfg.Backend == nil,
		tlsConfig:  tlsConfig,
		channels:   make(map[string]Channel, len(cfg.Channels)),
		users:      make(map[string]User, len(cfg.Users)),
		log:        cfg.Logger,
		started:    time.Now(),
		listeners:  make(map[net.Listener]struct{}),
		sessions:   make(map[*session]struct{}),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	b.OnExpiry(s.reportExpiry)
	for _, ch := range cfg.Channels {
		s.channels[ch.Name] = ch
	}
	for _, u := range cfg.Users {
		s.users[u.Name] = u
	}
	s.models = make(map[string]ModelQueue, len(cfg.ModelQueues))
	for _, m := range cfg.ModelQueues {
		s.models[m.Name] = m
	}
	s.queueMonitoring = monitoringLevels[cfg.QueueMonitoring]
	if err := s.startCommandServers(); err != nil {
		return nil, fmt.Errorf("mqserver: command server: %w", err)
	}
	return s, nil
}

// Listen builds a server for cfg and serves on addr (host:port; port 0
// picks a free one) until Close.
func Listen(addr string, cfg Config) (*Server, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("mqserver: listen: %w", err)
	}
	if err := s.track(l); err != nil {
		return nil, err
	}
	go s.serve(l)
	return s, nil
}

// Serve accepts connections on l, one goroutine each, until Close; then it
// returns nil. Any other accept error is returned after l is closed.
func (s *Server) Serve(l net.Listener) error {
	if err := s.track(l); err != nil {
		return err
	}
	return s.serve(l)
}

// track registers l so Close closes it, and counts its Serve loop.
func (s *Server) track(l net.Listener) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		l.Close()
		return errors.New("mqserver: server closed")
	}
	s.listeners[l] = struct{}{}
	s.wg.Add(1)
	return nil
}

func (s *Server) serve(l net.Listener) error {
	defer s.wg.Done()
	for {
		nc, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			delete(s.listeners, l)
			s.mu.Unlock()
			l.Close()
			if closed {
				return nil
			}
			return fmt.Errorf("mqserver: accept: %w", err)
		}
		sess := newSession(s, nc)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			continue
		}
		s.sessions[sess] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go sess.run()
	}
}

// Addr is the address of a listener (the first Listen's); nil when the
// server has none.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	for l := range s.listeners {
		return l.Addr()
	}
	return nil
}

// Close stops listening, drops every connection (their units of work are
// backed out, as for any lost connection) and waits until every goroutine
// the server started has returned. A backend passed in Config stays
// usable; one the server built (with a DataDir: its journals) is closed.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.stopCommands()
	for l := range s.listeners {
		l.Close()
	}
	for sess := range s.sessions {
		sess.nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.backend.OnExpiry(nil)
	if s.ownBackend {
		return s.backend.Close()
	}
	return nil
}

// BreakConnections drops every current TCP connection, as a network
// failure would, and returns once the queue manager has backed out their
// units of work and closed their handles. Their clients see
// MQRC_CONNECTION_BROKEN (2009); new connections are accepted.
func (s *Server) BreakConnections() {
	s.mu.Lock()
	sessions := make([]*session, 0, len(s.sessions))
	for sess := range s.sessions {
		sessions = append(sessions, sess)
		sess.nc.Close()
	}
	s.mu.Unlock()
	for _, sess := range sessions {
		<-sess.done
	}
}

// Stats counts the open connections and object handles.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	n := len(s.sessions)
	s.mu.Unlock()
	return Stats{Connections: n, Handles: int(s.handles.Load())}
}

// Backend is the queue managers the server serves.
func (s *Server) Backend() *embedded.Backend { return s.backend }

// Faults returns the backend's fault injection, for tests.
func (s *Server) Faults() *embedded.Faults { return s.backend.Faults() }

func (s *Server) forget(sess *session) {
	s.mu.Lock()
	delete(s.sessions, sess)
	s.mu.Unlock()
}

// newSession wraps an accepted connection.
func newSession(s *Server, nc net.Conn) *session {
	return &session{srv: s, nc: nc, r: bufio.NewReaderSize(nc, 64*1024), w: bufio.NewWriterSize(nc, 64*1024),
		done: make(chan struct{}), objects: make(map[int32]*object), nextHobj: firstHobj,
		jobName: fmt.Sprintf("%08X%08X", os.Getpid(), uint32(s.sessionSeq.Add(1)))}
}

// isClosedConn reports whether err means the peer or Close ended the
// connection, which is not worth logging.
func isClosedConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF)
}
