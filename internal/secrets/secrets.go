// Package secrets resolves secret references — env:NAME, file:/path and
// secret://name (AWS Secrets Manager) — into values, caching fetched
// secrets for a while. Errors name the reference, never a value.
package secrets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Schemes of a reference.
const (
	SchemeEnv    = "env:"
	SchemeFile   = "file:"
	SchemeSecret = "secret://"
)

// referenceRE is the form of a reference, as the command schema's
// secretRef has it: no spaces or control characters (a NUL would end the
// path or name where the system reads it, after the allowlist saw more).
var referenceRE = regexp.MustCompile(`^(env:|file:|secret://)[^\s\x00-\x1f\x7f-\x9f]+$`)

// IsReference reports whether s has the form of a reference; anything else
// in a reference's place may be a pasted secret.
func IsReference(s string) bool { return referenceRE.MatchString(s) }

// Canonical returns ref as it must be matched against an allowlist and then
// read: a file: path made absolute and clean (no "..") with its symlinks
// resolved, so a pattern's directory cannot be escaped by either. A path
// that does not resolve (it does not exist) stays clean but unresolved: an
// allowlist then decides on it alone, and refuses it with the same answer
// whether the file exists or not. Other references are returned unchanged.
func Canonical(ref string) string {
	path, ok := strings.CutPrefix(ref, SchemeFile)
	if !ok || path == "" {
		return ref
	}
	path = filepath.Clean(path)
	if !filepath.IsAbs(path) {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved
	}
	return SchemeFile + path
}

// ErrUnresolved is wrapped by every error of a reference that does not
// resolve.
var ErrUnresolved = errors.New("secret reference does not resolve")

// Fetcher reads a secret by name (or ARN) from a secrets service. Binary is
// set when the secret holds bytes rather than a string.
type Fetcher interface {
	Fetch(ctx context.Context, name string) (Secret, error)
}

// Secret is what a Fetcher returns.
type Secret struct {
	String string
	Binary []byte
}

// Config tunes a Resolver.
type Config struct {
	// Fetcher serves secret:// references; nil refuses them.
	Fetcher Fetcher
	// CacheTTL is how long a fetched secret is reused; 0 fetches every time.
	CacheTTL time.Duration
	// Dir receives key repositories fetched by secret://; created 0700.
	Dir string
}

// Resolver resolves references. It is safe for concurrent use.
type Resolver struct {
	cfg   Config
	now   func() time.Time
	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	secret  Secret
	expires time.Time
}

// NewResolver returns a resolver over cfg.
func NewResolver(cfg Config) *Resolver {
	return &Resolver{cfg: cfg, now: time.Now, cache: map[string]cached{}}
}

// Password resolves a password reference: the variable's value, the file's
// content without its trailing newline, or the secret's string. A
// secret://name#field reference picks one field of a JSON secret.
func (r *Resolver) Password(ctx context.Context, ref string) (string, error) {
	switch {
	case strings.HasPrefix(ref, SchemeEnv):
		v, ok := os.LookupEnv(strings.TrimPrefix(ref, SchemeEnv))
		if !ok {
			return "", unresolved(ref, "variable not set")
		}
		return v, nil
	case strings.HasPrefix(ref, SchemeFile):
		data, err := os.ReadFile(strings.TrimPrefix(ref, SchemeFile))
		if err != nil {
			return "", unresolved(ref, "cannot read the file")
		}
		return strings.TrimRight(string(data), "\r\n"), nil
	case strings.HasPrefix(ref, SchemeSecret):
		name, field, _ := strings.Cut(strings.TrimPrefix(ref, SchemeSecret), "#")
		s, err := r.fetch(ctx, ref, name)
		if err != nil {
			return "", err
		}
		if s.String == "" && s.Binary != nil {
			return "", unresolved(ref, "the secret is binary, not a string")
		}
		if field == "" {
			return s.String, nil
		}
		var fields map[string]any
		if json.Unmarshal([]byte(s.String), &fields) != nil {
			return "", unresolved(ref, "the secret is not a JSON object, so #"+field+" selects nothing")
		}
		v, ok := fields[field].(string)
		if !ok {
			return "", unresolved(ref, "the secret has no string field "+field)
		}
		return v, nil
	}
	return "", fmt.Errorf("%w: %q uses an unsupported scheme (env:NAME, file:/path and secret://name are supported)", ErrUnresolved, ref)
}

// KeyRepository resolves a key repository reference to a path: file:/path
// as given, env:NAME as the variable's value, secret://name as a private
// file holding the secret's bytes, named after the secret so its extension
// (.kdb, .p12) survives.
func (r *Resolver) KeyRepository(ctx context.Context, ref string) (string, error) {
	switch {
	case strings.HasPrefix(ref, SchemeFile):
		return strings.TrimPrefix(ref, SchemeFile), nil
	case strings.HasPrefix(ref, SchemeEnv):
		v, ok := os.LookupEnv(strings.TrimPrefix(ref, SchemeEnv))
		if !ok || v == "" {
			return "", unresolved(ref, "variable not set")
		}
		return v, nil
	case strings.HasPrefix(ref, SchemeSecret):
		name := strings.TrimPrefix(ref, SchemeSecret)
		s, err := r.fetch(ctx, ref, name)
		if err != nil {
			return "", err
		}
		return r.materialize(ref, name, s)
	}
	return "", fmt.Errorf("%w: %q uses an unsupported scheme (file:/path, env:NAME and secret://name are supported)", ErrUnresolved, ref)
}

func (r *Resolver) fetch(ctx context.Context, ref, name string) (Secret, error) {
	if name == "" {
		return Secret{}, unresolved(ref, "no secret name")
	}
	if r.cfg.Fetcher == nil {
		return Secret{}, unresolved(ref, "no secrets service is configured")
	}
	now := r.now()
	r.mu.Lock()
	c, ok := r.cache[name]
	r.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.secret, nil
	}
	s, err := r.cfg.Fetcher.Fetch(ctx, name)
	if err != nil {
		return Secret{}, fmt.Errorf("%w: %q: %w", ErrUnresolved, ref, err)
	}
	if r.cfg.CacheTTL > 0 {
		r.mu.Lock()
		r.cache[name] = cached{secret: s, expires: now.Add(r.cfg.CacheTTL)}
		r.mu.Unlock()
	}
	return s, nil
}

func (r *Resolver) materialize(ref, name string, s Secret) (string, error) {
	data := s.Binary
	if data == nil {
		data = []byte(s.String)
	}
	dir := r.cfg.Dir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "mqprobe-keys")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", unresolved(ref, "cannot create the key directory")
	}
	sum := sha256.Sum256([]byte(name))
	path := filepath.Join(dir, hex.EncodeToString(sum[:8])+"-"+filepath.Base(name))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", unresolved(ref, "cannot write the key repository")
	}
	return path, nil
}

func unresolved(ref, why string) error {
	return fmt.Errorf("%w: %q: %s", ErrUnresolved, ref, why)
}
