//go:build ibmmq

package ibmmq

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// The command server and where its answers go: a temporary dynamic queue
// from IBM's default model, as IBM's mq-metric-samples use.
const (
	commandQueue      = "SYSTEM.ADMIN.COMMAND.QUEUE"
	replyModelQueue   = "SYSTEM.DEFAULT.MODEL.QUEUE"
	replyDynamicQName = "MQPROBE.PCF.*"
	// commandWait bounds the wait for the command server's answer when
	// the context allows longer: a stopped command server must not hold
	// a DEPTH for its whole deadline.
	commandWait = 5 * time.Second
	// maxReplyLength bounds one response message: an INQUIRE_Q_STATUS
	// answer for one queue is well under 1 KiB.
	maxReplyLength = 64 << 10
)

// InquireQueueStatus sends one PCF INQUIRE_Q_STATUS for the local queue
// name to the command server and reads its answer.
func (c *conn) InquireQueueStatus(ctx context.Context, name string) (mq.QueueStatus, error) {
	params := []*mqi.PCFParameter{
		{Type: mqi.MQCFT_STRING, Parameter: mqi.MQCA_Q_NAME, String: []string{name}},
		{Type: mqi.MQCFT_INTEGER, Parameter: mqi.MQIACF_Q_STATUS_TYPE, Int64Value: []int64{int64(mqi.MQIACF_Q_STATUS)}},
	}
	replies, err := c.runCommand(ctx, mqi.MQCMD_INQUIRE_Q_STATUS, params, name)
	if err != nil {
		return mq.QueueStatus{}, err
	}
	if len(replies) == 0 {
		return mq.QueueStatus{}, mq.NewError(mq.VerbInquire, name, mq.ReasonUnknownObjectName)
	}
	return parseQueueStatus(replies[0]), nil
}

// InquireChannelStatus sends one PCF INQUIRE_CHANNEL_STATUS for the
// target's channel and reads the instance that made the latest call: this
// connection's, which has just put the command, unless another made one
// within the same second.
func (c *conn) InquireChannelStatus(ctx context.Context) (mq.ChannelStatus, error) {
	if c.channel == "" {
		return mq.ChannelStatus{}, nil
	}
	params := []*mqi.PCFParameter{{Type: mqi.MQCFT_STRING, Parameter: mqi.MQCACH_CHANNEL_NAME, String: []string{c.channel}}}
	replies, err := c.runCommand(ctx, mqi.MQCMD_INQUIRE_CHANNEL_STATUS, params, c.channel)
	if err != nil {
		return mq.ChannelStatus{}, err
	}
	st := mq.ChannelStatus{Channel: c.channel, Instances: len(replies)}
	var latest string
	for _, ps := range replies {
		var inst mq.ChannelStatus
		var lastDate, lastTime string
		for _, p := range ps {
			switch p.Parameter {
			case mqi.MQCACH_CONNECTION_NAME:
				inst.ConnectionName = firstString(p)
			case mqi.MQCACH_SSL_CIPHER_SPEC:
				inst.Cipher = firstString(p)
			case mqi.MQCACH_SSL_SHORT_PEER_NAME:
				inst.PeerName = firstString(p)
			case mqi.MQCACH_SSL_CERT_ISSUER_NAME:
				inst.CertIssuer = firstString(p)
			case mqi.MQCACH_LAST_MSG_DATE:
				lastDate = firstString(p)
			case mqi.MQCACH_LAST_MSG_TIME:
				lastTime = firstString(p)
			}
		}
		if last := lastDate + " " + lastTime; last >= latest {
			latest = last
			st.ConnectionName, st.Cipher, st.PeerName, st.CertIssuer = inst.ConnectionName, inst.Cipher, inst.PeerName, inst.CertIssuer
		}
	}
	if c.tls {
		c.addCertificate(ctx, &st)
	}
	return st, nil
}

// addCertificate reads the certificate the queue manager presents on the
// channel into st, or says why it could not.
func (c *conn) addCertificate(ctx context.Context, st *mq.ChannelStatus) {
	if c.connName == "" {
		st.CertificateUnread = "the channel's address came from a CCDT or MQSERVER, not connName"
		return
	}
	cert, err := queueManagerCertificate(ctx, c.connName, c.channel)
	if err != nil {
		st.CertificateUnread = err.Error()
		return
	}
	st.QueueManagerCertificate = &cert
}

// parseQueueStatus reads one INQUIRE_Q_STATUS response. MQMON_NOT_AVAILABLE
// (-1) in the oldest message's age says queue monitoring is off.
func parseQueueStatus(params []*mqi.PCFParameter) mq.QueueStatus {
	var (
		st               mq.QueueStatus
		getDate, getTime string
		putDate, putTime string
		qtimes           []int64
		oldestAge        = int64(mqi.MQMON_NOT_AVAILABLE)
	)
	for _, p := range params {
		switch p.Parameter {
		case mqi.MQCA_Q_NAME:
			st.Name = firstString(p)
		case mqi.MQIA_CURRENT_Q_DEPTH:
			st.CurrentDepth = firstInt(p)
		case mqi.MQIA_OPEN_INPUT_COUNT:
			st.OpenInputCount = firstInt(p)
		case mqi.MQIA_OPEN_OUTPUT_COUNT:
			st.OpenOutputCount = firstInt(p)
		case mqi.MQIACF_UNCOMMITTED_MSGS:
			st.Uncommitted = firstInt(p)
		case mqi.MQIACF_OLDEST_MSG_AGE:
			oldestAge = int64(firstInt(p))
		case mqi.MQIACF_Q_TIME_INDICATOR:
			qtimes = p.Int64Value
		case mqi.MQCACF_LAST_GET_DATE:
			getDate = firstString(p)
		case mqi.MQCACF_LAST_GET_TIME:
			getTime = firstString(p)
		case mqi.MQCACF_LAST_PUT_DATE:
			putDate = firstString(p)
		case mqi.MQCACF_LAST_PUT_TIME:
			putTime = firstString(p)
		}
	}
	if oldestAge == int64(mqi.MQMON_NOT_AVAILABLE) {
		return st
	}
	st.Monitored = true
	st.OldestMessageAge = time.Duration(oldestAge) * time.Second
	st.LastGet, st.LastPut = pcfTimestamp(getDate, getTime), pcfTimestamp(putDate, putTime)
	if len(qtimes) == 2 && qtimes[0] != int64(mqi.MQMON_NOT_AVAILABLE) && qtimes[1] != int64(mqi.MQMON_NOT_AVAILABLE) {
		st.QueueTimeKnown = true
		st.QueueTimeShort = time.Duration(qtimes[0]) * time.Microsecond
		st.QueueTimeLong = time.Duration(qtimes[1]) * time.Microsecond
	}
	return st
}

// pcfTimestamp reads a PCF date (yyyy-mm-dd) and time (hh.mm.ss), the
// queue manager's local time; zero when blank.
func pcfTimestamp(date, clock string) time.Time {
	date, clock = strings.TrimSpace(date), strings.TrimSpace(clock)
	if date == "" || clock == "" {
		return time.Time{}
	}
	t, err := time.ParseInLocation("2006-01-02 15.04.05", date+" "+clock, time.Local)
	if err != nil {
		return time.Time{}
	}
	return t
}

func firstInt(p *mqi.PCFParameter) int {
	if len(p.Int64Value) == 0 {
		return 0
	}
	return int(p.Int64Value[0])
}

func firstString(p *mqi.PCFParameter) string {
	if len(p.String) == 0 {
		return ""
	}
	return strings.TrimSpace(p.String[0])
}

// adminQueues are the command queue and the reply queue (a temporary
// dynamic one) a connection's PCF commands use: opened by the first
// command and kept until the connection closes, as IBM's mq-metric-samples
// keep theirs, so that each later command is one put and its gets rather
// than four more calls and a queue created and deleted on the queue
// manager. A reply that comes after its command gave up is never matched
// (each get asks for its own request's CorrelId) and expires where it lies:
// a request's expiry is its wait, which replies inherit.
type adminQueues struct {
	cmd, reply mqi.MQObject
	replyName  string
}

// adminQueues opens the connection's command and reply queues unless open.
func (c *conn) adminQueues() (*adminQueues, error) {
	if c.admin != nil {
		return c.admin, nil
	}
	cmdOD := mqi.NewMQOD()
	cmdOD.ObjectName = commandQueue
	cmdQ, err := c.qm.Open(cmdOD, mqi.MQOO_OUTPUT|mqi.MQOO_FAIL_IF_QUIESCING)
	if err != nil && !isWarning(err) {
		return nil, fmt.Errorf("command server: %w", mqError(mq.VerbOpen, commandQueue, err))
	}
	replyOD := mqi.NewMQOD()
	replyOD.ObjectName, replyOD.DynamicQName = replyModelQueue, replyDynamicQName
	replyQ, err := c.qm.Open(replyOD, mqi.MQOO_INPUT_EXCLUSIVE|mqi.MQOO_FAIL_IF_QUIESCING)
	if err != nil && !isWarning(err) {
		return nil, errors.Join(fmt.Errorf("command server reply queue: %w", mqError(mq.VerbOpen, replyModelQueue, err)),
			closeObject(&cmdQ, commandQueue))
	}
	c.admin = &adminQueues{cmd: cmdQ, reply: replyQ, replyName: replyQ.Name}
	return c.admin, nil
}

// closeAdmin closes the command queue and deletes the reply queue, if open.
func (c *conn) closeAdmin() error {
	a := c.admin
	if a == nil {
		return nil
	}
	c.admin = nil
	err := closeObject(&a.cmd, commandQueue)
	if cerr := a.reply.Close(mqi.MQCO_DELETE_PURGE); cerr != nil {
		err = errors.Join(err, mqError(mq.VerbClose, a.replyName, cerr))
	}
	return err
}

// runCommand puts one PCF command on the command queue and collects the
// parameters of each response up to the last, answered to the
// connection's reply queue (see adminQueues). A response with a reason
// fails with it, naming object. A failed put or get closes the admin
// queues, so the next command opens them afresh.
func (c *conn) runCommand(ctx context.Context, command int32, params []*mqi.PCFParameter, object string) (replies [][]*mqi.PCFParameter, err error) {
	admin, err := c.adminQueues()
	if err != nil {
		return nil, err
	}
	cmdQ, replyQ, replyName := admin.cmd, admin.reply, admin.replyName
	defer func() {
		var e *mq.Error
		if err != nil && errors.As(err, &e) && (e.Verb == mq.VerbPut || e.Verb == mq.VerbGet) && e.Reason != mq.Reason(mqi.MQRC_NO_MSG_AVAILABLE) {
			err = errors.Join(err, c.closeAdmin())
		}
	}()

	wait := commandWait
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d))
	}
	if wait <= 0 {
		return nil, ctx.Err()
	}
	cfh := mqi.NewMQCFH()
	cfh.Command, cfh.ParameterCount = command, int32(len(params))
	buf := cfh.Bytes()
	for _, p := range params {
		buf = append(buf, p.Bytes()...)
	}
	md, pmo := mqi.NewMQMD(), mqi.NewMQPMO()
	md.Format, md.MsgType, md.ReplyToQ = mqi.MQFMT_ADMIN, mqi.MQMT_REQUEST, replyName
	md.Report = mqi.MQRO_PASS_DISCARD_AND_EXPIRY
	md.Expiry = int32(wait / (100 * time.Millisecond)) // tenths: an unanswered command does not outlive its wait
	pmo.Options = mqi.MQPMO_NO_SYNCPOINT | mqi.MQPMO_NEW_MSG_ID | mqi.MQPMO_FAIL_IF_QUIESCING
	if err := cmdQ.Put(md, pmo, buf); err != nil && !isWarning(err) {
		return nil, fmt.Errorf("command server: %w", mqError(mq.VerbPut, commandQueue, err))
	}

	deadline := time.Now().Add(wait)
	reply := make([]byte, maxReplyLength)
	for {
		gmd, gmo := mqi.NewMQMD(), mqi.NewMQGMO()
		gmd.CorrelId = md.MsgId
		gmo.Version = mqi.MQGMO_VERSION_2
		gmo.MatchOptions = mqi.MQMO_MATCH_CORREL_ID
		gmo.Options = mqi.MQGMO_NO_SYNCPOINT | mqi.MQGMO_WAIT | mqi.MQGMO_CONVERT | mqi.MQGMO_FAIL_IF_QUIESCING
		gmo.WaitInterval = waitMillis(max(time.Until(deadline), time.Millisecond))
		n, err := replyQ.Get(gmd, gmo, reply)
		if err != nil && !isWarning(err) {
			if reasonOf(err) == mqi.MQRC_NO_MSG_AVAILABLE {
				return nil, fmt.Errorf("command server did not answer within %s: %w", wait.Round(time.Millisecond),
					mqError(mq.VerbGet, replyName, err))
			}
			return nil, fmt.Errorf("command server reply: %w", mqError(mq.VerbGet, replyName, err))
		}
		head, off := mqi.ReadPCFHeader(reply[:n])
		if head.Reason != mqi.MQRC_NONE {
			return nil, fmt.Errorf("command server: %w", &mq.Error{Verb: mq.VerbInquire, Object: object,
				CompCode: mq.CompCode(head.CompCode), Reason: mq.Reason(head.Reason)})
		}
		var ps []*mqi.PCFParameter
		for i := int32(0); i < head.ParameterCount && off < n; i++ {
			p, used := mqi.ReadPCFParameter(reply[off:n])
			ps, off = append(ps, p), off+used
		}
		replies = append(replies, ps)
		if head.Control == mqi.MQCFC_LAST {
			return replies, nil
		}
	}
}
