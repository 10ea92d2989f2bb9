package targets

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mqprobe/mqprobe/internal/configcheck"
	"github.com/mqprobe/mqprobe/internal/secrets"
)

// Settings is the daemon's targets section as the file writes it (yaml and
// desc tags: see internal/config); Config turns it into what a Resolver
// uses.
type Settings struct {
	AllowInline *bool           `yaml:"allowInline" desc:"Accept inline targets in commands (else only targetRef profiles), within targets.inline" default:"true in embedded mode, false in aws mode"`
	Inline      Allowlist       `yaml:"inline"`
	RateLimit   RateLimitConfig `yaml:"rateLimit"`
	// SyncPut turns asynchronous puts off for inline targets and for the
	// profiles that do not say.
	SyncPut  bool                     `yaml:"syncPut" desc:"PRODUCE waits for the queue manager's answer to every put on inline targets and on profiles without their own syncPut (ibmmq; by default it puts with MQPMO_ASYNC_RESPONSE where that is safe and checks MQSTAT before each commit and checkpoint)"`
	Profiles map[string]ProfileConfig `yaml:"profiles"`
}

// RateLimitConfig is a token bucket of commands per target; over it, HTTP
// answers 429 with Retry-After and bus commands come back later.
type RateLimitConfig struct {
	CommandsPerSecond int `yaml:"commandsPerSecond" desc:"Commands per second one target accepts on average (0 = unlimited)"`
	Burst             int `yaml:"burst" desc:"Commands one target accepts at once (bucket size; 0 counts as 1)"`
}

// ProfileRateLimit overrides targets.rateLimit for one profile.
type ProfileRateLimit struct {
	CommandsPerSecond int `yaml:"commandsPerSecond" desc:"Commands per second this profile accepts on average (0 = as targets.rateLimit)"`
	Burst             int `yaml:"burst" desc:"Commands this profile accepts at once (0 = as targets.rateLimit)"`
}

// ProfileConfig is a server-side target commands name by targetRef, as the
// file writes it.
type ProfileConfig struct {
	QueueManager  string           `yaml:"queueManager" desc:"Queue manager name"`
	Queue         string           `yaml:"queue" desc:"Default queue when the command names none"`
	Channel       string           `yaml:"channel" desc:"Server-connection channel (ibmmq)"`
	ConnName      string           `yaml:"connName" desc:"Connection list host(port)[,host(port)] (ibmmq)"`
	CCDTURL       string           `yaml:"ccdtUrl" desc:"CCDT URL or file instead of channel/connName (ibmmq)"`
	SSL           SSLConfig        `yaml:"ssl"`
	Auth          AuthConfig       `yaml:"auth"`
	AllowedQueues []string         `yaml:"allowedQueues" desc:"Queue name patterns (* and ?) commands may name besides queue (empty = only queue)"`
	RateLimit     ProfileRateLimit `yaml:"rateLimit"`
	SyncPut       *bool            `yaml:"syncPut" desc:"PRODUCE waits for the queue manager's answer to every put on this profile (default: targets.syncPut)"`
}

// SSLConfig is channel TLS.
type SSLConfig struct {
	Enabled     bool   `yaml:"enabled" desc:"Use TLS on the channel"`
	CipherSpec  string `yaml:"cipherSpec" desc:"TLS CipherSpec, e.g. ANY_TLS13_OR_HIGHER"`
	KeyStoreRef string `yaml:"keyStoreRef" desc:"Key repository reference (env:NAME, file:/path or secret://name): a CMS key database (stem or .kdb) with its .sth stash file, or a PKCS #12 .p12 file, holding the CA certificates the client trusts and its own certificate, if any"`
}

// AuthConfig is the MQ user; everything in it is redacted.
type AuthConfig struct {
	User        string `yaml:"user" secret:"true" desc:"MQ user id"`
	PasswordRef string `yaml:"passwordRef" secret:"true" desc:"Password reference (env:NAME, file:/path or secret://name), never the password"`
}

// DefaultSettings are the settings before the mode decides allowInline.
func DefaultSettings() Settings { return Settings{RateLimit: RateLimitConfig{Burst: 10}} }

// InlineAllowed reports allowInline, false while the mode has not decided it.
func (s Settings) InlineAllowed() bool { return s.AllowInline != nil && *s.AllowInline }

// Config is the Resolver's configuration: these settings, with secrets
// resolving references and connectsNowhere saying the MQ backend is
// in-process.
func (s Settings) Config(secrets *secrets.Resolver, connectsNowhere bool) Config {
	c := Config{AllowInline: s.InlineAllowed(), Inline: s.Inline, Profiles: make(map[string]Profile, len(s.Profiles)), SyncPut: s.SyncPut,
		RateLimit: Rate{PerSecond: float64(s.RateLimit.CommandsPerSecond), Burst: s.RateLimit.Burst},
		Secrets:   secrets, ConnectsNowhere: connectsNowhere}
	for name, p := range s.Profiles {
		tp := Profile{QueueManager: p.QueueManager, Queue: p.Queue, Channel: p.Channel, ConnName: p.ConnName,
			CCDTURL: p.CCDTURL, User: p.Auth.User, PasswordRef: p.Auth.PasswordRef, AllowedQueues: p.AllowedQueues,
			SyncPut: s.SyncPut}
		if p.SyncPut != nil {
			tp.SyncPut = *p.SyncPut
		}
		if p.SSL.Enabled {
			tp.CipherSpec, tp.KeyStoreRef = p.SSL.CipherSpec, p.SSL.KeyStoreRef
		}
		if p.RateLimit.CommandsPerSecond > 0 {
			tp.RateLimit = &Rate{PerSecond: float64(p.RateLimit.CommandsPerSecond), Burst: cmp.Or(p.RateLimit.Burst, s.RateLimit.Burst)}
		}
		c.Profiles[name] = tp
	}
	return c
}

// IBM MQ's name lengths.
const (
	mqNameMax    = 48 // queue manager and queue names
	mqChannelMax = 20 // channel names
)

var (
	profileNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	connNameRE    = regexp.MustCompile(`^[^\s(),]+(\([0-9]{1,5}\))?$`)
	mqPatternRE   = regexp.MustCompile(`^[A-Za-z0-9._%/*?]{1,48}$`)
)

// Validate reports every setting that is wrong whatever the MQ backend,
// each a *configcheck.FieldError naming its targets key.
func (s Settings) Validate() error {
	var v configcheck.Errors
	in := s.Inline
	v.Patterns("targets.inline.queueManagers", in.QueueManagers, mqPatternRE)
	v.Patterns("targets.inline.channels", in.Channels, mqPatternRE)
	v.Patterns("targets.inline.queues", in.Queues, mqPatternRE)
	for i, h := range in.Hosts {
		if _, err := ParseHostPattern(h); err != nil {
			v.Fail(fmt.Sprintf("targets.inline.hosts[%d]", i), "%v: want an IP address, a CIDR block (10.0.0.0/24), IPv4 with trailing * octets (10.0.0.*) or a DNS name whose labels may be * (one label) or hold * and ?, each with an optional :port", err)
		}
	}
	v.Patterns("targets.inline.ccdtUrls", in.CCDTURLs, nil)
	v.Patterns("targets.inline.secretRefs", in.SecretRefs, nil)
	validateRateLimit(&v, "targets.rateLimit", s.RateLimit)
	for _, name := range slices.Sorted(maps.Keys(s.Profiles)) {
		s.Profiles[name].validate(&v, name)
	}
	return v.Err()
}

func (p ProfileConfig) validate(v *configcheck.Errors, name string) {
	key := "targets.profiles." + name
	if !profileNameRE.MatchString(name) {
		v.Fail(key, "profile name must start with a letter or digit and hold only A-Z a-z 0-9 . _ -")
	}
	v.MQName(key+".queueManager", p.QueueManager, mqNameMax)
	if p.Queue != "" {
		v.MQName(key+".queue", p.Queue, mqNameMax)
	}
	v.Patterns(key+".allowedQueues", p.AllowedQueues, mqPatternRE)
	validateRateLimit(v, key+".rateLimit", RateLimitConfig(p.RateLimit))
	if p.Channel != "" {
		v.MQName(key+".channel", p.Channel, mqChannelMax)
	}
	if p.ConnName != "" {
		for part := range strings.SplitSeq(p.ConnName, ",") {
			if !connNameRE.MatchString(strings.TrimSpace(part)) {
				v.Fail(key+".connName", "must be host(port)[,host(port)...] (got %q)", p.ConnName)
				break
			}
		}
	}
	if p.SSL.Enabled {
		if p.SSL.CipherSpec == "" {
			v.Fail(key+".ssl.cipherSpec", "required when ssl.enabled is true")
		}
		if p.SSL.KeyStoreRef == "" {
			v.Fail(key+".ssl.keyStoreRef", "required when ssl.enabled is true")
		}
	}
	ValidateRef(v, key+".ssl.keyStoreRef", p.SSL.KeyStoreRef)
	ValidateRef(v, key+".auth.passwordRef", p.Auth.PasswordRef)
}

func validateRateLimit(v *configcheck.Errors, key string, r RateLimitConfig) {
	v.NonNegative(key+".commandsPerSecond", r.CommandsPerSecond)
	v.NonNegative(key+".burst", r.Burst)
}

// ValidateRef requires a secret reference, or nothing, at key.
func ValidateRef(v *configcheck.Errors, key, ref string) {
	// The value itself is not echoed: a password pasted here is a secret.
	if ref != "" && !secrets.IsReference(ref) {
		v.Fail(key, "must be a reference env:NAME, file:/path or secret://name")
	}
}
