//go:build ibmmq

package ibmmq

import (
	"context"
	"fmt"
	"log/slog"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// Backend connects to IBM MQ queue managers as a client. The zero value is
// ready and safe for concurrent use.
type Backend struct {
	// Log receives the warnings (MQCC_WARNING) of calls that did their work
	// anyway, such as a connection made with 2391 SSL_ALREADY_INITIALIZED.
	// Nil means slog.Default().
	Log *slog.Logger
}

var _ mq.Backend = (*Backend)(nil)

// New returns the IBM MQ client backend.
func New() *Backend { return &Backend{} }

// maxChannelMsgLength is the largest MAXMSGL IBM MQ allows (100 MiB). The
// client offers it on the channel so that the server's channel definition
// alone sets the limit.
const maxChannelMsgLength = 100 * 1024 * 1024

// Connect connects with MQCONNX in client mode. A target with ConnName
// names the channel itself; one with CCDTURL takes it from that table; one
// with neither leaves the choice to the MQ client's own configuration
// (MQSERVER, MQCHLLIB/MQCHLTAB). MQCONNX cannot be interrupted, so ctx is
// only checked before it starts. A connect that completes with a warning
// returns the connection and logs the warning to b.Log.
func (b *Backend) Connect(ctx context.Context, t mq.Target) (mq.Conn, error) {
	t = t.Normalized()
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("mq: %s %s: %w", mq.VerbConnect, t.QueueManager, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mq: %s %s: %w", mq.VerbConnect, t.QueueManager, err)
	}
	qm, err := connx(t.QueueManager, connectOptions(t))
	if err != nil && !isWarning(err) {
		return nil, mqError(mq.VerbConnect, t.QueueManager, err)
	}
	c := &conn{qm: qm, qmName: t.QueueManager, channel: t.Channel, connName: t.ConnName, tls: t.TLS.Enabled(), log: b.logger()}
	// A warned MQCONNX (2391 SSL_ALREADY_INITIALIZED: the process's TLS
	// environment was set up by an earlier connection with other settings;
	// 2002 ALREADY_CONNECTED) returns a live hConn. Failing here would leak
	// one channel instance per attempt until the channel's MAXINST.
	c.warned(mq.VerbConnect, t.QueueManager, err)
	return c, nil
}

// connx is MQCONNX; a variable so that unit tests can make it warn.
var connx = mqi.Connx

func (b *Backend) logger() *slog.Logger {
	if b.Log != nil {
		return b.Log
	}
	return slog.Default()
}

// connectOptions builds the MQCNO for t. The passwords go only into the
// MQCSP and MQSCO, whose copies the binding frees after MQCONNX.
func connectOptions(t mq.Target) *mqi.MQCNO {
	cno := mqi.NewMQCNO()
	// A client connection whatever MQ_CONNECT_TYPE says. HANDLE_SHARE_NO_BLOCK
	// lets goroutines migrate between threads, and makes a Conn used from two
	// goroutines at once fail with 2219 instead of blocking. RECONNECT_DISABLED
	// overrides a site's DefRecon (mqclient.ini) or the channel's DEFRECON:
	// the pool reconnects itself, and an automatic reconnect behind its back
	// would block calls until 2556 and fail commits with 2003.
	cno.Options = mqi.MQCNO_CLIENT_BINDING | mqi.MQCNO_HANDLE_SHARE_NO_BLOCK | mqi.MQCNO_RECONNECT_DISABLED
	cno.ApplName = t.ApplName
	cno.CCDTUrl = t.CCDTURL
	if t.ConnName != "" {
		cd := mqi.NewMQCD()
		cd.ChannelName = t.Channel
		cd.ConnectionName = t.ConnName
		cd.MaxMsgLength = maxChannelMsgLength
		cd.SSLCipherSpec = t.TLS.CipherSpec
		cd.SSLPeerName = t.TLS.PeerName
		cd.CertificateLabel = t.TLS.CertLabel
		cno.ClientConn = cd
	}
	if t.TLS.Enabled() {
		sco := mqi.NewMQSCO()
		sco.KeyRepository = t.TLS.KeyRepository
		sco.KeyRepoPassword = t.TLS.KeyRepositoryPassword // the binding frees its copy after MQCONNX
		sco.CertificateLabel = t.TLS.CertLabel
		cno.SSLConfig = sco
	}
	if t.User != "" {
		csp := mqi.NewMQCSP()
		csp.AuthenticationType = mqi.MQCSP_AUTH_USER_ID_AND_PWD
		csp.UserId = t.User
		csp.Password = t.Password
		cno.SecurityParms = csp
	}
	return cno
}
