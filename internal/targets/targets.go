// Package targets decides where a command may go and how often: an inline
// target checked against the operator's allowlist, or a server-side profile
// named by targetRef, turned into an MQ connection target and queue before
// any connection is attempted, with secrets resolved and a per-target rate
// limit applied.
package targets

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/secrets"
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
	// AllowedQueues are the patterns of the queues commands may name besides
	// Queue (* and ? wildcards).
	AllowedQueues []string
	// RateLimit overrides Config.RateLimit for this profile.
	RateLimit *Rate
	// SyncPut turns asynchronous puts off for commands on this profile.
	SyncPut bool
}

// Allowlist says what inline targets may name; it is the targets.inline
// section of the daemon's configuration. Patterns take * (any run of
// characters) and ? (one character). An empty list allows any value, except
// CCDTURLs (a CCDT hides its hosts) and SecretRefs (a reference reads the
// daemon's own variables, files and secrets), which must be listed.
type Allowlist struct {
	QueueManagers []string `yaml:"queueManagers" desc:"Queue manager name patterns inline targets may name (empty = any)"`
	// Hosts are host or host:port patterns every connName entry must match;
	// host names compare without regard to case.
	Hosts    []string `yaml:"hosts" desc:"Host patterns every inline connName entry must match: address, CIDR block, 10.0.0.* or DNS labels with *, each with optional :port (required with mq.backend ibmmq)"`
	Channels []string `yaml:"channels" desc:"Channel name patterns inline targets may name (empty = any)"`
	Queues   []string `yaml:"queues" desc:"Queue name patterns inline targets (and replyQueue) may name (empty = any)"`
	CCDTURLs []string `yaml:"ccdtUrls" desc:"CCDT URL patterns inline targets may name (empty = none)"`
	// SecretRefs are the passwordRef and keyStoreRef values inline targets
	// may use.
	SecretRefs []string `yaml:"secretRefs" desc:"passwordRef/keyStoreRef patterns inline targets may use, e.g. secret://mq/lab-* (empty = none)"`
}

// Config says which targets commands may use.
type Config struct {
	// AllowInline lets commands name a target inline, within Inline;
	// otherwise only profiles are accepted.
	AllowInline bool
	Inline      Allowlist
	Profiles    map[string]Profile
	// RateLimit applies to every target without its own; zero is unlimited.
	RateLimit Rate
	// SyncPut turns asynchronous puts off for inline targets.
	SyncPut bool
	// Secrets resolves password and key repository references.
	Secrets *secrets.Resolver
	// ConnectsNowhere says the MQ backend is in-process (embedded): an
	// inline target saying how to reach its queue manager (connName,
	// channel, ccdtUrl, TLS) is refused, not answered as if connected there.
	ConnectsNowhere bool
}

// Resolved is a command's destination.
type Resolved struct {
	Target mq.Target
	Queue  string
	// AsyncPut lets PRODUCE put asynchronously where that is safe (see
	// mq.PutOptions.Async): unless the profile, or for an inline target the
	// configuration, turned it off.
	AsyncPut bool
	// limitKey names the token bucket: the profile, or the inline queue
	// manager and connection.
	limitKey string
	rate     Rate
	// otherQueue refuses a queue besides Queue that the command would use
	// (REDRIVE's destinations), naming the setting; nil allows any.
	otherQueue func(queue string) error
}

// AllowQueue refuses, with an *Error naming the setting, a queue on this
// target's queue manager that the allowlist does not admit: for an inline
// target targets.inline.queues, for a profile its queue and allowedQueues.
func (r Resolved) AllowQueue(queue string) error {
	if r.otherQueue == nil {
		return nil
	}
	return r.otherQueue(queue)
}

// String is "QM:QUEUE", as results show it.
func (r Resolved) String() string { return r.Target.QueueManager + ":" + r.Queue }

// Error refuses a target; Code is the result's error code.
type Error struct {
	Code    string // result.CodeTargetNotFound or result.CodeTargetNotAllowed
	Message string
}

func (e *Error) Error() string { return e.Message }

func notAllowed(format string, args ...any) error {
	return &Error{Code: result.CodeTargetNotAllowed, Message: fmt.Sprintf(format, args...)}
}

// Resolver resolves targets against a Config and holds their rate limiters.
type Resolver struct {
	cfg      Config
	hosts    []HostPattern // cfg.Inline.Hosts, parsed
	limiters *limiters
}

// NewResolver returns a resolver over cfg. The configuration validated its
// host patterns; one that does not parse admits nothing.
func NewResolver(cfg Config) *Resolver {
	if cfg.Secrets == nil {
		cfg.Secrets = secrets.NewResolver(secrets.Config{})
	}
	r := &Resolver{cfg: cfg, limiters: newLimiters()}
	for _, s := range cfg.Inline.Hosts {
		if p, err := ParseHostPattern(s); err == nil {
			r.hosts = append(r.hosts, p)
		}
	}
	return r
}

// Resolve returns where cmd goes, or an *Error saying why it may not go
// there. It connects to nothing; a secret:// reference may call the secrets
// service.
func (r *Resolver) Resolve(ctx context.Context, cmd command.Command) (Resolved, error) {
	if cmd.TargetRef != "" {
		return r.resolveRef(ctx, cmd)
	}
	if cmd.Target == nil {
		return Resolved{}, &Error{Code: result.CodeTargetNotFound, Message: "the command names neither target nor targetRef"}
	}
	if !r.cfg.AllowInline {
		return Resolved{}, notAllowed("inline targets are not allowed here (targets.allowInline is false): use a targetRef")
	}
	t, err := r.checkInline(*cmd.Target, cmd.ReplyQueue)
	if err != nil {
		return Resolved{}, err
	}
	if err := r.reachable(t); err != nil {
		return Resolved{}, err
	}
	p := Profile{QueueManager: t.QueueManager, Queue: t.Queue, Channel: t.Channel, ConnName: t.ConnName, CCDTURL: t.CCDTURL}
	if t.SSL != nil && t.SSL.Enabled {
		p.CipherSpec, p.KeyStoreRef = t.SSL.CipherSpec, t.SSL.KeyStoreRef
	}
	if t.Auth != nil {
		p.User, p.PasswordRef = t.Auth.User, t.Auth.PasswordRef
	}
	res, err := r.resolveProfile(ctx, p, "target")
	if err != nil {
		return Resolved{}, err
	}
	res.otherQueue = func(queue string) error {
		if len(r.cfg.Inline.Queues) == 0 || matchAny(r.cfg.Inline.Queues, queue, false) {
			return nil
		}
		return notAllowed("queue %q matches no pattern of targets.inline.queues", queue)
	}
	res.limitKey = "inline\x00" + res.Target.QueueManager + "\x00" + res.Target.ConnName + "\x00" + res.Target.CCDTURL
	res.rate = r.cfg.RateLimit
	res.AsyncPut = !r.cfg.SyncPut
	return res, nil
}

func (r *Resolver) resolveRef(ctx context.Context, cmd command.Command) (Resolved, error) {
	p, ok := r.cfg.Profiles[cmd.TargetRef]
	if !ok {
		return Resolved{}, &Error{Code: result.CodeTargetNotFound, Message: fmt.Sprintf("targetRef %q names no configured target profile", cmd.TargetRef)}
	}
	if cmd.Queue != "" {
		if !p.allows(cmd.Queue) {
			return Resolved{}, notAllowed("queue %q is not allowed on target profile %q (targets.profiles.%s.queue or allowedQueues)", cmd.Queue, cmd.TargetRef, cmd.TargetRef)
		}
		p.Queue = cmd.Queue
	}
	if cmd.ReplyQueue != "" && !p.allows(cmd.ReplyQueue) {
		return Resolved{}, notAllowed("replyQueue %q is not allowed on target profile %q (targets.profiles.%s.queue or allowedQueues)", cmd.ReplyQueue, cmd.TargetRef, cmd.TargetRef)
	}
	res, err := r.resolveProfile(ctx, p, "targets.profiles."+cmd.TargetRef)
	if err != nil {
		return Resolved{}, err
	}
	profile := r.cfg.Profiles[cmd.TargetRef] // its own queue, not cmd.Queue
	res.otherQueue = func(queue string) error {
		if profile.allows(queue) {
			return nil
		}
		return notAllowed("queue %q is not allowed on target profile %q (targets.profiles.%s.queue or allowedQueues)", queue, cmd.TargetRef, cmd.TargetRef)
	}
	res.limitKey = "profile\x00" + cmd.TargetRef
	res.rate = r.cfg.RateLimit
	res.AsyncPut = !p.SyncPut
	if p.RateLimit != nil {
		res.rate = *p.RateLimit
	}
	return res, nil
}

// allows reports whether commands may name queue on this profile.
func (p Profile) allows(queue string) bool {
	return queue == p.Queue || matchAny(p.AllowedQueues, queue, false)
}

// confined returns t with its file: references in canonical form
// (secrets.Canonical): the form matched against targets.inline.secretRefs
// is the one read.
func confined(t command.Target) command.Target {
	if t.Auth != nil && t.Auth.PasswordRef != "" {
		auth := *t.Auth
		auth.PasswordRef = secrets.Canonical(auth.PasswordRef)
		t.Auth = &auth
	}
	if t.SSL != nil && t.SSL.KeyStoreRef != "" {
		ssl := *t.SSL
		ssl.KeyStoreRef = secrets.Canonical(ssl.KeyStoreRef)
		t.SSL = &ssl
	}
	return t
}

// checkInline refuses an inline target outside the allowlist, naming the
// field and the setting it failed. It returns the target confined: its
// references in the one canonical form that was matched and is to be read.
func (r *Resolver) checkInline(given command.Target, replyQueue string) (command.Target, error) {
	t := confined(given)
	if err := r.allowlisted(given, t, replyQueue); err != nil {
		return command.Target{}, err
	}
	return t, nil
}

// allowlisted matches t, the confined form of given; refusals echo given,
// so an answer never tells where a path leads or whether it exists.
func (r *Resolver) allowlisted(given, t command.Target, replyQueue string) error {
	al := r.cfg.Inline
	check := func(field, value, setting string, patterns []string, fold bool) error {
		if len(patterns) == 0 || matchAny(patterns, value, fold) {
			return nil
		}
		return notAllowed("%s %q matches no pattern of targets.inline.%s", field, value, setting)
	}
	if err := check("target.queueManager", t.QueueManager, "queueManagers", al.QueueManagers, false); err != nil {
		return err
	}
	if err := check("target.queue", t.Queue, "queues", al.Queues, false); err != nil {
		return err
	}
	if replyQueue != "" {
		if err := check("replyQueue", replyQueue, "queues", al.Queues, false); err != nil {
			return err
		}
	}
	if t.Channel != "" {
		if err := check("target.channel", t.Channel, "channels", al.Channels, false); err != nil {
			return err
		}
	}
	secretRef := func(field, ref, canonical string) error {
		switch {
		case ref == "":
			return nil
		case !secrets.IsReference(ref):
			// Not echoed: it may be a password. A NUL or control character
			// would also cut the path or name read short of the one matched.
			return notAllowed("%s is not a reference env:NAME, file:/path or secret://name without spaces or control characters", field)
		case !matchAny(al.SecretRefs, canonical, false):
			return notAllowed("%s %q matches no pattern of targets.inline.secretRefs", field, ref)
		}
		return nil
	}
	if t.Auth != nil {
		if err := secretRef("target.auth.passwordRef", given.Auth.PasswordRef, t.Auth.PasswordRef); err != nil {
			return err
		}
	}
	if t.SSL != nil {
		if err := secretRef("target.ssl.keyStoreRef", given.SSL.KeyStoreRef, t.SSL.KeyStoreRef); err != nil {
			return err
		}
	}
	if t.CCDTURL != "" && !matchAny(al.CCDTURLs, t.CCDTURL, false) {
		return notAllowed("target.ccdtUrl %q matches no pattern of targets.inline.ccdtUrls (a CCDT names its own hosts, so inline CCDT URLs must be listed)", t.CCDTURL)
	}
	if t.ConnName == "" || len(al.Hosts) == 0 {
		return nil
	}
	eps, err := mq.ParseConnName(t.ConnName)
	if err != nil {
		return notAllowed("target.connName: %v", err)
	}
	for _, ep := range eps {
		if !slices.ContainsFunc(r.hosts, func(p HostPattern) bool { return p.Matches(ep) }) {
			return notAllowed("target.connName entry %s matches no pattern of targets.inline.hosts", net.JoinHostPort(ep.Host, strconv.Itoa(ep.Port)))
		}
	}
	return nil
}

// reachable refuses an inline target naming a connection when the backend
// connects nowhere.
func (r *Resolver) reachable(t command.Target) error {
	if !r.cfg.ConnectsNowhere {
		return nil
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"connName", t.ConnName != ""}, {"channel", t.Channel != ""}, {"ccdtUrl", t.CCDTURL != ""}, {"ssl", t.SSL != nil && t.SSL.Enabled}} {
		if f.set {
			return notAllowed("target.%s: the embedded MQ backend connects nowhere; connName, channel, ccdtUrl and ssl need mq.backend ibmmq", f.name)
		}
	}
	return nil
}

func (r *Resolver) resolveProfile(ctx context.Context, p Profile, field string) (Resolved, error) {
	target := mq.Target{QueueManager: p.QueueManager, Channel: p.Channel, ConnName: p.ConnName,
		CCDTURL: p.CCDTURL, User: p.User, TLS: mq.TLS{CipherSpec: p.CipherSpec}}
	if p.KeyStoreRef != "" {
		repo, err := r.cfg.Secrets.KeyRepository(ctx, p.KeyStoreRef)
		if err != nil {
			return Resolved{}, notAllowed("%s keyStoreRef: %v", field, err)
		}
		target.TLS.KeyRepository, target.TLS.KeyRepositoryPassword = repo.Path, repo.Password
	}
	if p.PasswordRef != "" {
		pw, err := r.cfg.Secrets.Password(ctx, p.PasswordRef)
		if err != nil {
			return Resolved{}, notAllowed("%s passwordRef: %v", field, err)
		}
		target.Password = pw
	}
	target = target.Normalized()
	if err := target.Validate(); err != nil {
		return Resolved{}, notAllowed("%v", err)
	}
	return Resolved{Target: target, Queue: p.Queue}, nil
}

func matchAny(patterns []string, s string, fold bool) bool {
	for _, p := range patterns {
		if Match(p, s, fold) {
			return true
		}
	}
	return false
}

// Match reports whether s matches pattern, where * matches any run of
// characters (MQ names may hold '/', so this is not path.Match) and ? any one
// character; fold compares without regard to case.
func Match(pattern, s string, fold bool) bool {
	if fold {
		pattern, s = strings.ToLower(pattern), strings.ToLower(s)
	}
	// Iterative wildcard matching with one backtrack point: linear in
	// practice, never exponential.
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
