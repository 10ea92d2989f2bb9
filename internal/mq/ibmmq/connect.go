//go:build ibmmq

package ibmmq

import (
	"context"
	"fmt"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// Backend connects to IBM MQ queue managers as a client. It holds no state:
// the zero value is ready and safe for concurrent use.
type Backend struct{}

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
// only checked before it starts.
func (b *Backend) Connect(ctx context.Context, t mq.Target) (mq.Conn, error) {
	t = t.Normalized()
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("mq: %s %s: %w", mq.VerbConnect, t.QueueManager, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mq: %s %s: %w", mq.VerbConnect, t.QueueManager, err)
	}
	qm, err := mqi.Connx(t.QueueManager, connectOptions(t))
	if err != nil {
		return nil, mqError(mq.VerbConnect, t.QueueManager, err)
	}
	return &conn{qm: qm, qmName: t.QueueManager}, nil
}

// connectOptions builds the MQCNO for t. The password goes only into the
// MQCSP, which the binding frees after MQCONNX.
func connectOptions(t mq.Target) *mqi.MQCNO {
	cno := mqi.NewMQCNO()
	// A client connection whatever MQ_CONNECT_TYPE says. HANDLE_SHARE_NO_BLOCK
	// lets goroutines migrate between threads, and makes a Conn used from two
	// goroutines at once fail with 2219 instead of blocking.
	cno.Options = mqi.MQCNO_CLIENT_BINDING | mqi.MQCNO_HANDLE_SHARE_NO_BLOCK
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
