package mqserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// Config is what a Server serves and who may connect.
type Config struct {
	// Backend is the set of queue managers to serve; nil builds one from
	// QueueManagers. Passing the same Backend to a new Server after Close
	// keeps the messages across a restart.
	Backend *embedded.Backend
	// QueueManagers are built into a Backend when Backend is nil; empty
	// means DefaultQueueManagers.
	QueueManagers []embedded.QueueManagerConfig
	// DataDir, when set and Backend is nil, is where the queue managers
	// keep their committed persistent messages (embedded.NewDurable), so
	// that they survive a restart of the server. Empty keeps every message
	// in memory only.
	DataDir string
	// Channels are the SVRCONN channels; empty means DefaultChannels.
	Channels []Channel
	// Users are the users channels name; empty means DefaultUsers.
	Users []User
	// TLS is the certificate of channels with a CipherSpec; without one,
	// TLS connections are refused.
	TLS TLSConfig
	// ModelQueues are the model queues of every queue manager served;
	// empty means DefaultModelQueues.
	ModelQueues []ModelQueue
	// QueueMonitoring is the queue managers' MONQ: OFF (IBM's default,
	// which the developer container keeps), LOW, MEDIUM or HIGH. Only
	// with it on does INQUIRE_Q_STATUS report the oldest message's age,
	// the queue times and the last put and get; "" means OFF.
	QueueMonitoring string
	// Logger receives connection events (never a password); nil discards
	// them.
	Logger *slog.Logger
}

// Channel is a server-connection channel.
type Channel struct {
	Name string
	// MaxMsgLength is the channel's MAXMSGL: a longer message fails with
	// MQRC_DATA_LENGTH_ERROR (2010) before the queue manager sees it.
	// 0 means DefaultChannelMaxMsgLength.
	MaxMsgLength int
	// Users may connect through the channel. A connection without
	// credentials runs as the first.
	Users []string
	// PasswordRequired asks every connection for a user and password
	// (DEV.ADMIN.SVRCONN). Otherwise (DEV.APP.SVRCONN) a password is asked
	// for only when the user has one configured, as in IBM's developer
	// image without MQ_APP_PASSWORD.
	PasswordRequired bool
	// CipherSpec is the channel's SSLCIPH: an IBM CipherSpec name
	// (ANY_TLS12_OR_HIGHER, TLS_AES_128_GCM_SHA256, ...); "" means plain
	// TCP. A channel with one accepts only TLS, one without only plain TCP.
	CipherSpec string
	// ClientAuthRequired is SSLCAUTH(REQUIRED): the client must send a
	// certificate the server trusts (TLSConfig.TrustFile). Otherwise
	// (OPTIONAL) one is verified only when sent.
	ClientAuthRequired bool
	// PeerName is SSLPEER: a distinguished-name pattern the client
	// certificate's subject must match ("CN=app*, O=Example").
	PeerName string
}

// User is a user a channel may admit.
type User struct {
	Name     string
	Password string // "" = none configured
}

// DefaultChannelMaxMsgLength is MAXMSGL of a channel that sets none, as on
// IBM's DEV channels.
const DefaultChannelMaxMsgLength = 4 * 1024 * 1024

// Names of the default objects, as in IBM's MQ developer container.
const (
	AppChannel   = "DEV.APP.SVRCONN"
	AdminChannel = "DEV.ADMIN.SVRCONN"
	TLSChannel   = "DEV.TLS.SVRCONN"
	AppUser      = "app"
	AdminUser    = "admin"
	// MaxDepth25Queue is a local queue whose MAXDEPTH is 25, as IBM's JMS
	// test suite expects one.
	MaxDepth25Queue = "DEV.MAXDEPTH25"
)

// DefaultQueueManagers returns IBM's developer queue manager QM1 (local
// queues DEV.QUEUE.1-3 and DEV.DEAD.LETTER.QUEUE) plus DEV.MAXDEPTH25 (a
// local queue of MAXDEPTH 25), an alias queue DEV.ALIAS.1 → DEV.QUEUE.1
// and a remote definition DEV.REMOTE.1 (RNAME DEV.QUEUE.1, RQMNAME QM2)
// whose messages wait on the transmission queue QM2.
func DefaultQueueManagers() []embedded.QueueManagerConfig {
	var queues []embedded.QueueConfig
	for _, name := range append(append([]string{}, embedded.DefaultQueues...), "QM2") {
		// A queue's own MAXMSGL, as IBM's objects have: not the queue
		// manager's, which a caller may raise.
		queues = append(queues, embedded.QueueConfig{Name: name, MaxMsgLength: embedded.DefaultMaxMsgLength})
	}
	// IBM's JMS test suite (mq-golang-jms20) fills this queue to test
	// asynchronous put failures (2053).
	queues = append(queues, embedded.QueueConfig{Name: MaxDepth25Queue, MaxDepth: 25, MaxMsgLength: embedded.DefaultMaxMsgLength})
	return []embedded.QueueManagerConfig{{
		Name:               embedded.DefaultQueueManager,
		MaxUncommittedMsgs: embedded.DefaultMaxUncommittedMsgs,
		Queues:             queues,
		Aliases:            []embedded.AliasQueueConfig{{Name: "DEV.ALIAS.1", Target: "DEV.QUEUE.1"}},
		Remotes: []embedded.RemoteQueueConfig{{Name: "DEV.REMOTE.1", RemoteQueue: "DEV.QUEUE.1",
			RemoteQueueManager: "QM2"}},
	}}
}

// TLSChannelCipherSpec is DEV.TLS.SVRCONN's SSLCIPH. It admits
// TLS_RSA_WITH_AES_128_CBC_SHA256 too, the CipherSpec IBM's amqsconntls
// sample asks for.
const TLSChannelCipherSpec = "ANY_TLS12_OR_HIGHER"

// DefaultChannels returns DEV.APP.SVRCONN (user app, a password only when
// app has one), DEV.ADMIN.SVRCONN (user admin, always a password) and
// DEV.TLS.SVRCONN (as DEV.APP.SVRCONN, over TLS 1.2 or 1.3 with
// SSLCAUTH(OPTIONAL); usable once Config.TLS names a certificate).
func DefaultChannels() []Channel {
	return []Channel{
		{Name: AppChannel, Users: []string{AppUser}},
		{Name: AdminChannel, Users: []string{AdminUser}, PasswordRequired: true},
		{Name: TLSChannel, Users: []string{AppUser}, CipherSpec: TLSChannelCipherSpec},
	}
}

// DefaultUsers returns app and admin with the passwords of MQ_APP_PASSWORD
// and MQ_ADMIN_PASSWORD (none when unset), as IBM's developer image takes
// them.
func DefaultUsers() []User {
	return []User{
		{Name: AppUser, Password: os.Getenv(passwordEnv(AppUser))},
		{Name: AdminUser, Password: os.Getenv(passwordEnv(AdminUser))},
	}
}

// passwordEnv is the environment variable that sets user's password:
// MQ_APP_PASSWORD for app.
func passwordEnv(user string) string { return "MQ_" + strings.ToUpper(user) + "_PASSWORD" }

func (c *Config) setDefaults() {
	if len(c.QueueManagers) == 0 {
		c.QueueManagers = DefaultQueueManagers()
	}
	if len(c.Channels) == 0 {
		c.Channels = DefaultChannels()
	}
	if len(c.Users) == 0 {
		c.Users = DefaultUsers()
	}
	if c.QueueMonitoring == "" {
		c.QueueMonitoring = "OFF"
	}
	if len(c.ModelQueues) == 0 {
		c.ModelQueues = DefaultModelQueues()
	}
	for i := range c.Channels {
		if c.Channels[i].MaxMsgLength == 0 {
			c.Channels[i].MaxMsgLength = DefaultChannelMaxMsgLength
		}
	}
}

// Validate reports every invalid setting, naming it as the configuration
// file does.
func (c Config) Validate() error {
	var errs []error
	if c.Backend == nil {
		errs = append(errs, embedded.Config{QueueManagers: c.QueueManagers}.ValidateAt("queueManagers"))
	}
	users := map[string]bool{}
	for i, u := range c.Users {
		at := fmt.Sprintf("users[%d]", i)
		if u.Name == "" || len(u.Name) > 12 {
			errs = append(errs, fmt.Errorf("%s.name: must be 1-12 characters, an MQMD UserIdentifier (got %q)", at, u.Name))
		}
		if users[u.Name] {
			errs = append(errs, fmt.Errorf("%s.name: duplicate user %q", at, u.Name))
		}
		users[u.Name] = true
	}
	channels := map[string]bool{}
	for i, ch := range c.Channels {
		at := fmt.Sprintf("channels[%d]", i)
		if ch.Name == "" || len(ch.Name) > 20 {
			errs = append(errs, fmt.Errorf("%s.name: must be 1-20 characters, an MQ channel name (got %q)", at, ch.Name))
		}
		if channels[ch.Name] {
			errs = append(errs, fmt.Errorf("%s.name: duplicate channel %q", at, ch.Name))
		}
		channels[ch.Name] = true
		if ch.MaxMsgLength < 0 || ch.MaxMsgLength > 104857600 {
			errs = append(errs, fmt.Errorf("%s.maxMsgLength: must be 0 (the default, %d) to 104857600 bytes (got %d)", at, DefaultChannelMaxMsgLength, ch.MaxMsgLength))
		}
		if len(ch.Users) == 0 {
			errs = append(errs, fmt.Errorf("%s.users: must name at least one user", at))
		}
		for j, u := range ch.Users {
			if !users[u] {
				errs = append(errs, fmt.Errorf("%s.users[%d]: %q is not one of users", at, j, u))
			}
		}
		errs = append(errs, ch.validateTLS(at)...)
	}
	if _, ok := monitoringLevels[c.QueueMonitoring]; !ok {
		errs = append(errs, fmt.Errorf("queueMonitoring: must be OFF, LOW, MEDIUM or HIGH (got %q)", c.QueueMonitoring))
	}
	models := map[string]bool{}
	for i, m := range c.ModelQueues {
		at := fmt.Sprintf("modelQueues[%d]", i)
		if m.Name == "" || len(m.Name) > maxQueueNameLength {
			errs = append(errs, fmt.Errorf("%s.name: must be 1-48 characters, an MQ queue name (got %q)", at, m.Name))
		}
		if models[m.Name] {
			errs = append(errs, fmt.Errorf("%s.name: duplicate model queue %q", at, m.Name))
		}
		models[m.Name] = true
		if m.MaxDepth < 0 || m.MaxDepth > 999999999 {
			errs = append(errs, fmt.Errorf("%s.maxDepth: must be 0 (the queue manager's) to 999999999 (got %d)", at, m.MaxDepth))
		}
	}
	return errors.Join(errs...)
}

// fileConfig is the configuration file (configs/mqserver.yaml).
type fileConfig struct {
	QueueManagers   []embedded.QueueManagerConfig `yaml:"queueManagers"`
	DataDir         string                        `yaml:"dataDir"`
	Channels        []fileChannel                 `yaml:"channels"`
	Users           []fileUser                    `yaml:"users"`
	TLS             fileTLS                       `yaml:"tls"`
	ModelQueues     []fileModelQueue              `yaml:"modelQueues"`
	QueueMonitoring string                        `yaml:"queueMonitoring"`
}

type fileModelQueue struct {
	Name     string `yaml:"name"`
	MaxDepth int    `yaml:"maxDepth"`
}

type fileTLS struct {
	CertificateFile string `yaml:"certificateFile"`
	KeyFile         string `yaml:"keyFile"`
	TrustFile       string `yaml:"trustFile"`
}

type fileChannel struct {
	Name               string   `yaml:"name"`
	MaxMsgLength       int      `yaml:"maxMsgLength"`
	Users              []string `yaml:"users"`
	PasswordRequired   bool     `yaml:"passwordRequired"`
	CipherSpec         string   `yaml:"cipherSpec"`
	ClientAuthRequired bool     `yaml:"clientAuthRequired"`
	PeerName           string   `yaml:"peerName"`
}

type fileUser struct {
	Name     string `yaml:"name"`
	Password string `yaml:"password"`
}

// LoadConfig reads a configuration file (see configs/mqserver.yaml). A
// user's password comes from MQ_<NAME>_PASSWORD (MQ_APP_PASSWORD for app)
// when that is set, else from the file. Unknown keys and invalid settings
// are errors naming the key.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("mqserver config: %w", err)
	}
	cfg, err := parseConfig(bytes.NewReader(data))
	if err == nil {
		defaulted := cfg
		defaulted.setDefaults()
		err = defaulted.Validate()
	}
	if err != nil {
		return Config{}, fmt.Errorf("mqserver config %s: %w", path, err)
	}
	return cfg, nil
}

func parseConfig(r io.Reader) (Config, error) {
	var f fileConfig
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, err
	}
	cfg := Config{QueueManagers: f.QueueManagers, TLS: TLSConfig(f.TLS), DataDir: f.DataDir, QueueMonitoring: f.QueueMonitoring}
	for _, m := range f.ModelQueues {
		cfg.ModelQueues = append(cfg.ModelQueues, ModelQueue(m))
	}
	for _, ch := range f.Channels {
		cfg.Channels = append(cfg.Channels, Channel(ch))
	}
	for _, u := range f.Users {
		if p := os.Getenv(passwordEnv(u.Name)); p != "" {
			u.Password = p
		}
		cfg.Users = append(cfg.Users, User(u))
	}
	return cfg, nil
}

// monitoringLevels are MONQ's values (MQMON_*); "" is OFF.
var monitoringLevels = map[string]int32{"": 0, "OFF": 0, "LOW": 17, "MEDIUM": 33, "HIGH": 65}
