// Package targets resolves where a command may go: an inline target or a
// server-side profile named by targetRef, turned into an MQ connection target
// and queue before any connection is attempted (SPEC §11).
package targets

import (
	"fmt"
	"os"
	"strings"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
)

// Profile is a named, operator-defined target.
type Profile struct {
	QueueManager string
	Queue        string
	Channel      string
	ConnName     string
	CCDTURL      string
	CipherSpec   string
	KeyStoreRef  string
	User         string
	PasswordRef  string
}

// Config says which targets commands may use.
type Config struct {
	// AllowInline lets commands name a target inline; otherwise only
	// profiles are accepted.
	AllowInline bool
	Profiles    map[string]Profile
}

// Resolved is a command's destination.
type Resolved struct {
	Target mq.Target
	Queue  string
}

// String is "QM:QUEUE", as results show it.
func (r Resolved) String() string { return r.Target.QueueManager + ":" + r.Queue }

// Error refuses a target; Code is the result's error code.
type Error struct {
	Code    string // TARGET_NOT_FOUND, TARGET_NOT_ALLOWED
	Message string
}

func (e *Error) Error() string { return e.Message }

// Resolver resolves targets against a Config.
type Resolver struct {
	cfg Config
}

// NewResolver returns a resolver over cfg.
func NewResolver(cfg Config) *Resolver { return &Resolver{cfg: cfg} }

// Resolve returns where cmd goes, or an *Error saying why it may not go there.
func (r *Resolver) Resolve(cmd command.Command) (Resolved, error) {
	if cmd.TargetRef != "" {
		p, ok := r.cfg.Profiles[cmd.TargetRef]
		if !ok {
			return Resolved{}, &Error{Code: "TARGET_NOT_FOUND", Message: fmt.Sprintf("targetRef %q names no configured target profile", cmd.TargetRef)}
		}
		return resolveProfile(p)
	}
	if cmd.Target == nil {
		return Resolved{}, &Error{Code: "TARGET_NOT_FOUND", Message: "the command names neither target nor targetRef"}
	}
	if !r.cfg.AllowInline {
		return Resolved{}, &Error{Code: "TARGET_NOT_ALLOWED", Message: "inline targets are not allowed here (targets.allowInline is false): use a targetRef"}
	}
	t := cmd.Target
	p := Profile{QueueManager: t.QueueManager, Queue: t.Queue, Channel: t.Channel, ConnName: t.ConnName, CCDTURL: t.CCDTURL}
	if t.SSL != nil && t.SSL.Enabled {
		p.CipherSpec, p.KeyStoreRef = t.SSL.CipherSpec, t.SSL.KeyStoreRef
	}
	if t.Auth != nil {
		p.User, p.PasswordRef = t.Auth.User, t.Auth.PasswordRef
	}
	return resolveProfile(p)
}

func resolveProfile(p Profile) (Resolved, error) {
	target := mq.Target{QueueManager: p.QueueManager, Channel: p.Channel, ConnName: p.ConnName,
		CCDTURL: p.CCDTURL, User: p.User, TLS: mq.TLS{CipherSpec: p.CipherSpec}}
	if p.KeyStoreRef != "" {
		path, err := fileRef(p.KeyStoreRef)
		if err != nil {
			return Resolved{}, err
		}
		target.TLS.KeyRepository = path
	}
	if p.PasswordRef != "" {
		pw, err := secret(p.PasswordRef)
		if err != nil {
			return Resolved{}, err
		}
		target.Password = pw
	}
	target = target.Normalized()
	if err := target.Validate(); err != nil {
		return Resolved{}, &Error{Code: "TARGET_NOT_ALLOWED", Message: err.Error()}
	}
	return Resolved{Target: target, Queue: p.Queue}, nil
}

// secret resolves a password reference; the message names the reference,
// never a value.
func secret(ref string) (string, error) {
	switch {
	case strings.HasPrefix(ref, "env:"):
		v, ok := os.LookupEnv(strings.TrimPrefix(ref, "env:"))
		if !ok {
			return "", &Error{Code: "TARGET_NOT_ALLOWED", Message: fmt.Sprintf("secret reference %q does not resolve: variable not set", ref)}
		}
		return v, nil
	case strings.HasPrefix(ref, "file:"):
		data, err := os.ReadFile(strings.TrimPrefix(ref, "file:"))
		if err != nil {
			return "", &Error{Code: "TARGET_NOT_ALLOWED", Message: fmt.Sprintf("secret reference %q does not resolve: cannot read the file", ref)}
		}
		return strings.TrimRight(string(data), "\r\n"), nil
	}
	return "", &Error{Code: "TARGET_NOT_ALLOWED", Message: fmt.Sprintf("secret reference %q uses an unsupported scheme (env: and file: are supported)", ref)}
}

func fileRef(ref string) (string, error) {
	if path, ok := strings.CutPrefix(ref, "file:"); ok {
		return path, nil
	}
	return "", &Error{Code: "TARGET_NOT_ALLOWED", Message: fmt.Sprintf("key store reference %q must be file:/path", ref)}
}
