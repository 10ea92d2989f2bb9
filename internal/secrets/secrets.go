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

	"github.com/mqprobe/mqprobe/internal/configcheck"
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
	Fetcher Fetcher `yaml:"-"`
	// CacheTTL is how long a fetched secret is reused; 0 fetches every time.
	CacheTTL time.Duration `yaml:"cacheTTL" desc:"How long a secret:// value fetched from AWS Secrets Manager is reused (0 = fetch every time)"`
	// KeyDir receives key repositories fetched by secret://; created 0700.
	KeyDir string `yaml:"keyDir" desc:"Private directory (0700) receiving key repositories fetched by secret:// keyStoreRef" default:"<temp dir>/mqprobe-keys"`
}

// DefaultCacheTTL is how long the daemon reuses a fetched secret unless
// configured otherwise.
const DefaultCacheTTL = 5 * time.Minute

// Validate reports every setting out of range, each a
// *configcheck.FieldError naming its secrets key.
func (c Config) Validate() error {
	var v configcheck.Errors
	v.NonNegativeDuration("secrets.cacheTTL", c.CacheTTL)
	return v.Err()
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

// KeyRepository is a client key repository as IBM MQ's C client reads it
// (MQSCO KeyRepository and KeyRepoPassword).
type KeyRepository struct {
	// Path is a CMS key database's stem, to which the client adds .kdb and
	// whose .sth stash file holds the password, or a PKCS #12 file's full
	// name (.p12).
	Path string
	// Password is the PKCS #12 file's password; empty when a stash file
	// beside it holds the password.
	Password string
}

// Key repository file suffixes.
const (
	suffixKDB = ".kdb"
	suffixSTH = ".sth"
	suffixP12 = ".p12"
)

// KeyRepository resolves a key repository reference. file:/path and
// env:NAME (the variable holding the path) name a CMS key database, by its
// stem or its .kdb file, with its .sth stash file beside it, or a PKCS #12
// .p12 file with a .sth stash beside it. secret://name is a JSON object of
// base64 files: {"kdb", "sth"}, or {"p12", "password"} (or {"p12", "sth"}),
// written as private files in the key directory. The files must exist: a
// client without them fails with 2381 (MQRC_KEY_REPOSITORY_ERROR).
func (r *Resolver) KeyRepository(ctx context.Context, ref string) (KeyRepository, error) {
	switch {
	case strings.HasPrefix(ref, SchemeFile):
		return keyRepositoryAt(ref, strings.TrimPrefix(ref, SchemeFile))
	case strings.HasPrefix(ref, SchemeEnv):
		v, ok := os.LookupEnv(strings.TrimPrefix(ref, SchemeEnv))
		if !ok || v == "" {
			return KeyRepository{}, unresolved(ref, "variable not set")
		}
		return keyRepositoryAt(ref, v)
	case strings.HasPrefix(ref, SchemeSecret):
		name := strings.TrimPrefix(ref, SchemeSecret)
		s, err := r.fetch(ctx, ref, name)
		if err != nil {
			return KeyRepository{}, err
		}
		return r.materialize(ref, name, s)
	}
	return KeyRepository{}, fmt.Errorf("%w: %q uses an unsupported scheme (file:/path, env:NAME and secret://name are supported)", ErrUnresolved, ref)
}

// keyRepositoryAt checks that the files IBM's client reads for path exist.
func keyRepositoryAt(ref, path string) (KeyRepository, error) {
	exists := func(p string) bool {
		info, err := os.Stat(p)
		return err == nil && info.Mode().IsRegular()
	}
	if stem, ok := strings.CutSuffix(path, suffixP12); ok {
		switch {
		case !exists(path):
			return KeyRepository{}, unresolved(ref, "cannot read the PKCS #12 file")
		case !exists(stem + suffixSTH):
			return KeyRepository{}, unresolved(ref, "a .p12 key repository named by path needs its password stashed beside it in a .sth file "+
				"(runmqakm -keydb -stashpw), or a secret:// reference holding {\"p12\", \"password\"}")
		}
		return KeyRepository{Path: path}, nil
	}
	stem := strings.TrimSuffix(path, suffixKDB)
	switch {
	case !exists(stem + suffixKDB):
		return KeyRepository{}, unresolved(ref, "no key database: a CMS key repository is named by its stem or its .kdb file, a PKCS #12 one by its .p12 file")
	case !exists(stem + suffixSTH):
		return KeyRepository{}, unresolved(ref, "the key database has no .sth stash file beside it, from which the client reads its password")
	}
	return KeyRepository{Path: stem}, nil
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

// keyRepositorySecret is the form of a secret:// key repository: files in
// base64, as IBM's client reads them.
type keyRepositorySecret struct {
	KDB      []byte `json:"kdb"`
	STH      []byte `json:"sth"`
	P12      []byte `json:"p12"`
	Password string `json:"password"`
}

// errKeyRepositoryForm says what a secret:// key repository must hold.
const errKeyRepositoryForm = `the secret must be a JSON object of base64 files: {"kdb": ..., "sth": ...} ` +
	`for a CMS key database and its stash file, or {"p12": ..., "password": "..."} for a PKCS #12 file`

// materialize writes the files of a secret:// key repository to the key
// directory, each replaced whole so that a client reading the previous
// version never sees a partial one.
func (r *Resolver) materialize(ref, name string, s Secret) (KeyRepository, error) {
	var ks keyRepositorySecret
	if s.Binary != nil || json.Unmarshal([]byte(s.String), &ks) != nil {
		return KeyRepository{}, unresolved(ref, errKeyRepositoryForm)
	}
	var files map[string][]byte
	var repo KeyRepository
	switch {
	case len(ks.KDB) > 0 && len(ks.STH) > 0 && len(ks.P12) == 0:
		files = map[string][]byte{suffixKDB: ks.KDB, suffixSTH: ks.STH}
	case len(ks.P12) > 0 && len(ks.KDB) == 0 && (ks.Password != "" || len(ks.STH) > 0):
		files = map[string][]byte{suffixP12: ks.P12}
		if len(ks.STH) > 0 {
			files[suffixSTH] = ks.STH
		}
		repo.Password = ks.Password
	default:
		return KeyRepository{}, unresolved(ref, errKeyRepositoryForm)
	}
	dir := r.cfg.KeyDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "mqprobe-keys")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return KeyRepository{}, unresolved(ref, "cannot create the key directory")
	}
	// One stem per secret name, readable in a listing of the directory.
	sum := sha256.Sum256([]byte(name))
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(name), suffixP12), suffixKDB)
	stem := filepath.Join(dir, hex.EncodeToString(sum[:8])+"-"+base)
	for suffix, data := range files {
		if err := writeFileAtomic(stem+suffix, data); err != nil {
			return KeyRepository{}, unresolved(ref, "cannot write the key repository")
		}
	}
	repo.Path = stem
	if _, ok := files[suffixP12]; ok {
		repo.Path = stem + suffixP12
	}
	return repo, nil
}

// writeFileAtomic writes data to a private temporary file beside path and
// renames it over path.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func unresolved(ref, why string) error {
	return fmt.Errorf("%w: %q: %s", ErrUnresolved, ref, why)
}
