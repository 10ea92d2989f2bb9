package mqserver

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// The commands the command server runs (MQCMD_*) and their parameters
// (MQCA_*, MQIA_*, MQCACF_*, MQIACF_*, MQCACH_*, MQIACH_*), with IBM's
// values (cmqcfc.h).
const (
	cmdInquireQMgr          int32 = 2
	cmdInquireQ             int32 = 13
	cmdResetQStats          int32 = 17
	cmdInquireQNames        int32 = 18
	cmdInquireChannelNames  int32 = 20
	cmdInquireChannel       int32 = 25
	cmdInquireQStatus       int32 = 41
	cmdInquireChannelStatus int32 = 42
	cmdInquireQMgrStatus    int32 = 161

	iacfQMgrAttrs       int32 = 1001
	iacfQAttrs          int32 = 1002
	iacfAll             int32 = 1009
	iacfChannelAttrs    int32 = 1015
	iacfUncommittedMsgs int32 = 1027
	iacfQStatusAttrs    int32 = 1026
	iacfQStatusType     int32 = 1103
	iacfQHandle         int32 = 1104
	iacfQStatus         int32 = 1105
	iacfQMgrStatus      int32 = 1149
	iacfQTimeIndicator  int32 = 1226
	iacfOldestMsgAge    int32 = 1227
	iacfConnectionCount int32 = 1230
	iacfChinitStatus    int32 = 1232
	iacfCmdServerStatus int32 = 1233
	iacfQTypes          int32 = 1261
	iaTimeSinceReset    int32 = 35
	iaHighQDepth        int32 = 36
	iaMsgEnqCount       int32 = 37
	iaMsgDeqCount       int32 = 38
	cacfQNames          int32 = 3011
	cacfQMgrStartDate   int32 = 3175
	cacfQMgrStartTime   int32 = 3176
	cacfLastPutDate     int32 = 3128
	cacfLastPutTime     int32 = 3129
	cacfLastGetDate     int32 = 3130
	cacfLastGetTime     int32 = 3131

	cachChannelName          int32 = 3501
	cachDesc                 int32 = 3502
	cachXmitQName            int32 = 3505
	cachConnectionName       int32 = 3506
	cachChannelNames         int32 = 3512
	cachLocalAddress         int32 = 3520
	cachLastMsgTime          int32 = 3524
	cachLastMsgDate          int32 = 3525
	cachMCAUserID            int32 = 3527
	cachChannelStartTime     int32 = 3528
	cachChannelStartDate     int32 = 3529
	cachMCAJobName           int32 = 3530
	cachSSLCipherSpec        int32 = 3544
	cachSSLShortPeerName     int32 = 3547
	cachRemoteApplTag        int32 = 3548
	cachSSLCertIssuerName    int32 = 3550
	iachXmitProtocolType     int32 = 1501
	iachMaxMsgLength         int32 = 1510
	iachChannelType          int32 = 1511
	iachChannelInstanceType  int32 = 1523
	iachChannelInstanceAttrs int32 = 1524
	iachChannelStatus        int32 = 1527
	iachMsgs                 int32 = 1534
	iachBytesSent            int32 = 1535
	iachBytesReceived        int32 = 1536
	iachBuffersSent          int32 = 1538
	iachBuffersReceived      int32 = 1539
	iachMCAStatus            int32 = 1542
	iachStopRequested        int32 = 1543
	iachHBInterval           int32 = 1563
	iachChannelSubstate      int32 = 1609
	iachSharingConversation  int32 = 1615
	iachCurrentSharingConvs  int32 = 1617
	iachMaxInstances         int32 = 1618
	iachMaxInstsPerClient    int32 = 1619
	iachChannelTypes         int32 = 1582

	qtLocal             int32 = 1
	qtModel             int32 = 2
	qtAlias             int32 = 3
	qtRemote            int32 = 6
	qtAll               int32 = 1001
	chtSvrconn          int32 = 7
	chtAll              int32 = 5
	otCurrentChannel    int32 = 1011
	otSavedChannel      int32 = 1012
	chsRunning          int32 = 3
	chsstateReceiving   int32 = 300
	mcasRunning         int32 = 3
	xptTCP              int32 = 2
	qmstaRunning        int32 = 2
	svcStatusRunning    int32 = 2
	monNotAvailable     int32 = -1
	monOff              int32 = 0
	maxInstances        int32 = 999999999 // MAXINST, MAXINSTC of IBM's SVRCONNs
	channelNameLength         = 20
	qNameLength               = 48
	dateLength                = 12
	timeLength                = 8
	svrconnHeartbeat    int32 = 300
	jobNameLength             = 28
	connNameLength            = 264
	applTagLength             = 28
	userIDLength              = 12
	cipherSpecLength          = 32
	peerNameLength            = 256
	channelDescLength         = 64
	sharingConversation int32 = 1 // one conversation per TCP connection
)

// pcfDate and pcfTime are a date and time as the command server gives
// them: yyyy-mm-dd and hh.mm.ss, the queue manager's local time; blank for
// the zero time.
func pcfDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02")
}

func pcfTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("15.04.05")
}

// inquireQMgr is INQUIRE_Q_MGR: the attributes MQIACF_Q_MGR_ATTRS names
// (all without it).
func (cs *commandServer) inquireQMgr(cmd *pcfCommand) []pcfReply {
	want := cmd.attrs(iacfQMgrAttrs)
	var r pcfReply
	r.resp.str(caQMgrName, cs.qmgr.Name, qNameLength)
	for _, sel := range slices.Sorted(maps.Keys(qmgrCharLengths)) {
		if sel != caQMgrName && (want == nil || want[sel]) {
			r.resp.str(sel, qmgrCharAttr(&cs.qmgr, sel), qmgrCharLengths[sel])
		}
	}
	ints := append(slices.Collect(maps.Keys(qmgrFixedIntAttrs)), iaCommandLevel, iaMaxMsgLength,
		iaMaxUncommittedMsgs, iaMonitoringQ)
	slices.Sort(ints)
	for _, sel := range ints {
		if want == nil || want[sel] {
			v, _ := cs.srv.qmgrIntAttr(&cs.qmgr, sel)
			r.resp.integer(sel, v)
		}
	}
	return []pcfReply{r}
}

// inquireQMgrStatus is INQUIRE_Q_MGR_STATUS.
func (cs *commandServer) inquireQMgrStatus() []pcfReply {
	var r pcfReply
	r.resp.str(caQMgrName, cs.qmgr.Name, qNameLength)
	r.resp.integer(iacfQMgrStatus, qmstaRunning)
	r.resp.str(cacfQMgrStartDate, pcfDate(cs.srv.started), dateLength)
	r.resp.str(cacfQMgrStartTime, pcfTime(cs.srv.started), timeLength)
	r.resp.integer(iacfConnectionCount, int32(len(cs.srv.channelInstances(cs.qmgr.Name))))
	r.resp.integer(iacfChinitStatus, svcStatusRunning)
	r.resp.integer(iacfCmdServerStatus, svcStatusRunning)
	return []pcfReply{r}
}

// queueEntry is a queue, or model queue, as the queue commands see it.
type queueEntry struct {
	embedded.QueueDefinition
	qtype int32 // MQQT_*
}

// queues lists the queues and model queues matching the command's
// MQCA_Q_NAME and MQIA_Q_TYPE. A missing name is MQRCCF_PARM_COUNT_TOO_SMALL.
func (cs *commandServer) queues(cmd *pcfCommand) ([]queueEntry, int32) {
	pattern, ok := cmd.str(caQName)
	if !ok {
		return nil, rccfParmCountTooSmall
	}
	qtype, ok := cmd.integer(iaQType)
	if !ok {
		qtype = qtAll
	}
	var all []queueEntry
	for _, d := range cs.srv.queueDefinitions(cs.qmgr.Name) {
		t := map[mq.QueueType]int32{mq.QueueLocal: qtLocal, mq.QueueAlias: qtAlias, mq.QueueRemote: qtRemote}[d.Type]
		all = append(all, queueEntry{QueueDefinition: d, qtype: t})
	}
	for _, m := range cs.srv.models {
		all = append(all, queueEntry{QueueDefinition: embedded.QueueDefinition{Name: m.Name, MaxDepth: m.MaxDepth},
			qtype: qtModel})
	}
	slices.SortFunc(all, func(a, b queueEntry) int { return strings.Compare(a.Name, b.Name) })
	var out []queueEntry
	for _, e := range all {
		if matchName(pattern, e.Name) && (qtype == qtAll || qtype == e.qtype) {
			out = append(out, e)
		}
	}
	return out, rcNone
}

// inquireQ is INQUIRE_Q: one response per queue with the attributes
// MQIACF_Q_ATTRS names (all without it), as MQINQ reads them.
func (cs *commandServer) inquireQ(cmd *pcfCommand) ([]pcfReply, int32) {
	entries, rc := cs.queues(cmd)
	if rc != rcNone {
		return nil, rc
	}
	if len(entries) == 0 {
		return nil, rcUnknownObjectName
	}
	want := cmd.attrs(iacfQAttrs)
	replies := make([]pcfReply, len(entries))
	for i, e := range entries {
		r := &replies[i].resp
		r.str(caQName, e.Name, qNameLength)
		r.integer(iaQType, e.qtype)
		info, typ := cs.queueInfo(e)
		for _, sel := range slices.Sorted(maps.Keys(queueIntAttrs)) {
			a := queueIntAttrs[sel]
			if sel == iaQType || a.types&typ == 0 || want != nil && !want[sel] {
				continue
			}
			v := a.value(&info)
			switch {
			case sel == iaDefinitionType && (e.DefinitionType == embedded.TemporaryDynamic || e.qtype == qtModel):
				v = qdtTemporaryDynamic
			case e.qtype == qtModel && (sel == iaCurrentQDepth || sel == iaOpenInputCount || sel == iaOpenOutputCount):
				continue // a model queue holds no messages and has no handles
			}
			r.integer(sel, v)
		}
		if want == nil || want[iaMonitoringQ] {
			r.integer(iaMonitoringQ, -3) // MQMON_Q_MGR
		}
		for _, sel := range slices.Sorted(maps.Keys(queueCharAttrs)) {
			a := queueCharAttrs[sel]
			if sel == caQName || a.types&typ == 0 || want != nil && !want[sel] {
				continue
			}
			r.str(sel, cs.srv.queueCharAttr(sel, &info), a.length)
		}
	}
	return replies, rcNone
}

// queueInfo is what MQINQ would read of a queue, and its type bit.
func (cs *commandServer) queueInfo(e queueEntry) (mq.QueueInfo, int) {
	info := mq.QueueInfo{Name: e.Name, Type: e.Type, MaxDepth: e.MaxDepth, MaxMsgLength: e.MaxMsgLength,
		BaseQueue: e.Target, RemoteQueue: e.RemoteQueue, RemoteQueueManager: e.RemoteQueueManager,
		TransmissionQueue: e.TransmissionQueue}
	switch e.qtype {
	case qtModel:
		info.Type = mq.QueueLocal
		if info.MaxDepth == 0 {
			info.MaxDepth = cs.qmgr.MaxDepth
		}
		info.MaxMsgLength = cs.qmgr.MaxMsgLength
	case qtLocal:
		if st, err := cs.srv.backend.QueueStatus(cs.qmgr.Name, e.Name); err == nil {
			info.CurrentDepth, info.OpenInputCount, info.OpenOutputCount = st.Depth, st.OpenInputCount, st.OpenOutputCount
		}
	}
	return info, typeBit(info.Type)
}

// inquireQNames is INQUIRE_Q_NAMES: one response, the names and their
// types.
func (cs *commandServer) inquireQNames(cmd *pcfCommand) ([]pcfReply, int32) {
	entries, rc := cs.queues(cmd)
	if rc != rcNone {
		return nil, rc
	}
	names, types := make([]string, len(entries)), make([]int32, len(entries))
	for i, e := range entries {
		names[i], types[i] = e.Name, e.qtype
	}
	var r pcfReply
	r.resp.strs(cacfQNames, names, qNameLength)
	r.resp.integers(iacfQTypes, types)
	return []pcfReply{r}, rcNone
}

// localQueues are the local queues among the command's queues: status and
// statistics exist for them only. A specific name that is another kind of
// queue is MQRCCF_Q_TYPE_ERROR; no match at all is
// MQRC_UNKNOWN_OBJECT_NAME.
func (cs *commandServer) localQueues(cmd *pcfCommand) ([]queueEntry, int32) {
	entries, rc := cs.queues(cmd)
	if rc != rcNone {
		return nil, rc
	}
	var local []queueEntry
	for _, e := range entries {
		if e.qtype == qtLocal {
			local = append(local, e)
		}
	}
	pattern, _ := cmd.str(caQName)
	switch {
	case len(local) == 0 && len(entries) > 0 && !isGeneric(pattern):
		return nil, rccfQTypeError
	case len(local) == 0:
		return nil, rcUnknownObjectName
	}
	return local, rcNone
}

// inquireQStatus is INQUIRE_Q_STATUS of type MQIACF_Q_STATUS: one
// response per local queue, with the attributes MQIACF_Q_STATUS_ATTRS
// names (all without it) besides the name and status type. The oldest message's age, the queue times and
// the last put and get are there only with queue monitoring on (MONQ), as
// on IBM MQ.
func (cs *commandServer) inquireQStatus(cmd *pcfCommand) ([]pcfReply, int32) {
	if t, ok := cmd.integer(iacfQStatusType); ok && t != iacfQStatus {
		if t == iacfQHandle {
			return nil, rccfCFHCommandError // handle status is not kept
		}
		return nil, rccfParmValueError
	}
	entries, rc := cs.localQueues(cmd)
	if rc != rcNone {
		return nil, rc
	}
	monitoring := cs.srv.queueMonitoring != monOff
	want := cmd.attrs(iacfQStatusAttrs)
	now := time.Now()
	var replies []pcfReply
	for _, e := range entries {
		st, err := cs.srv.backend.QueueStatus(cs.qmgr.Name, e.Name)
		if err != nil {
			continue // deleted since listed
		}
		var r pcfReply
		p := &r.resp
		p.str(caQName, st.Name, qNameLength)
		p.integer(iacfQStatusType, iacfQStatus)
		p.integer(iaCurrentQDepth, int32(st.Depth))
		p.integer(iaOpenInputCount, int32(st.OpenInputCount))
		p.integer(iaOpenOutputCount, int32(st.OpenOutputCount))
		p.integer(iacfUncommittedMsgs, int32(st.Uncommitted))
		p.integer(iaMonitoringQ, cs.srv.queueMonitoring)
		age, qtimes := monNotAvailable, []int32{monNotAvailable, monNotAvailable}
		lastGet, lastPut := time.Time{}, time.Time{}
		if monitoring {
			age = 0
			if !st.OldestPut.IsZero() {
				age = int32(now.Sub(st.OldestPut) / time.Second)
			}
			if st.QueueTimeKnown {
				qtimes = []int32{clampInt32(st.QueueTimeShort.Microseconds()), clampInt32(st.QueueTimeLong.Microseconds())}
			}
			lastGet, lastPut = st.LastGet, st.LastPut
		}
		p.integer(iacfOldestMsgAge, age)
		p.integers(iacfQTimeIndicator, qtimes)
		p.str(cacfLastGetDate, pcfDate(lastGet), dateLength)
		p.str(cacfLastGetTime, pcfTime(lastGet), timeLength)
		p.str(cacfLastPutDate, pcfDate(lastPut), dateLength)
		p.str(cacfLastPutTime, pcfTime(lastPut), timeLength)
		p.keep(want, caQName, iacfQStatusType)
		replies = append(replies, r)
	}
	if len(replies) == 0 {
		return nil, rcUnknownObjectName
	}
	return replies, rcNone
}

// resetQStats is RESET_Q_STATS: per local queue, the puts and gets and the
// highest depth since the previous reset, and the seconds since it.
func (cs *commandServer) resetQStats(cmd *pcfCommand) ([]pcfReply, int32) {
	entries, rc := cs.localQueues(cmd)
	if rc != rcNone {
		return nil, rc
	}
	var replies []pcfReply
	for _, e := range entries {
		st, err := cs.srv.backend.ResetQueueStatistics(cs.qmgr.Name, e.Name)
		if err != nil {
			continue
		}
		var r pcfReply
		r.resp.str(caQName, e.Name, qNameLength)
		r.resp.integer(iaTimeSinceReset, int32(st.Interval/time.Second))
		r.resp.integer(iaHighQDepth, int32(st.HighDepth))
		r.resp.integer(iaMsgEnqCount, int32(st.Enqueued))
		r.resp.integer(iaMsgDeqCount, int32(st.Dequeued))
		replies = append(replies, r)
	}
	if len(replies) == 0 {
		return nil, rcUnknownObjectName
	}
	return replies, rcNone
}

// channels lists the SVRCONN channels matching the command's
// MQCACH_CHANNEL_NAME and MQIACH_CHANNEL_TYPE, sorted.
func (cs *commandServer) channels(cmd *pcfCommand) ([]Channel, int32) {
	pattern, ok := cmd.str(cachChannelName)
	if !ok {
		return nil, rccfParmCountTooSmall
	}
	if t, ok := cmd.integer(iachChannelType); ok && t != chtSvrconn && t != chtAll {
		return nil, rcNone
	}
	var out []Channel
	for _, ch := range cs.srv.channels {
		if matchName(pattern, ch.Name) {
			out = append(out, ch)
		}
	}
	slices.SortFunc(out, func(a, b Channel) int { return strings.Compare(a.Name, b.Name) })
	return out, rcNone
}

// inquireChannel is INQUIRE_CHANNEL: one response per channel.
func (cs *commandServer) inquireChannel(cmd *pcfCommand) ([]pcfReply, int32) {
	chs, rc := cs.channels(cmd)
	if rc != rcNone {
		return nil, rc
	}
	if len(chs) == 0 {
		return nil, rccfChannelNotFound
	}
	want := cmd.attrs(iacfChannelAttrs)
	replies := make([]pcfReply, len(chs))
	for i, ch := range chs {
		r := &replies[i].resp
		r.str(cachChannelName, ch.Name, channelNameLength)
		r.integer(iachChannelType, chtSvrconn)
		add := func(sel, v int32) {
			if want == nil || want[sel] {
				r.integer(sel, v)
			}
		}
		addStr := func(sel int32, v string, length int) {
			if want == nil || want[sel] {
				r.str(sel, v, length)
			}
		}
		add(iachXmitProtocolType, xptTCP)
		add(iachMaxMsgLength, int32(ch.MaxMsgLength))
		add(iachHBInterval, svrconnHeartbeat)
		add(iachMaxInstances, maxInstances)
		add(iachMaxInstsPerClient, maxInstances)
		add(iachSharingConversation, sharingConversation)
		addStr(cachDesc, "", channelDescLength)
		addStr(cachMCAUserID, "", userIDLength)
		addStr(cachSSLCipherSpec, ch.CipherSpec, cipherSpecLength)
	}
	return replies, rcNone
}

// inquireChannelNames is INQUIRE_CHANNEL_NAMES: one response.
func (cs *commandServer) inquireChannelNames(cmd *pcfCommand) ([]pcfReply, int32) {
	chs, rc := cs.channels(cmd)
	if rc != rcNone {
		return nil, rc
	}
	names, types := make([]string, len(chs)), make([]int32, len(chs))
	for i, ch := range chs {
		names[i], types[i] = ch.Name, chtSvrconn
	}
	var r pcfReply
	r.resp.strs(cachChannelNames, names, channelNameLength)
	r.resp.integers(iachChannelTypes, types)
	return []pcfReply{r}, rcNone
}

// inquireChannelStatus is INQUIRE_CHANNEL_STATUS of current instances:
// one response per connection through a matching channel, with the
// attributes MQIACH_CHANNEL_INSTANCE_ATTRS names (all without it) besides
// the name, type, instance type and connection name, which always come. Saved status is
// kept for no SVRCONN, as on IBM MQ.
func (cs *commandServer) inquireChannelStatus(cmd *pcfCommand) ([]pcfReply, int32) {
	pattern, ok := cmd.str(cachChannelName)
	if !ok {
		return nil, rccfParmCountTooSmall
	}
	if t, ok := cmd.integer(iachChannelInstanceType); ok && t != otCurrentChannel {
		if t == otSavedChannel {
			return nil, rccfChlStatusNotFound
		}
		return nil, rccfParmValueError
	}
	want := cmd.attrs(iachChannelInstanceAttrs)
	insts := cs.srv.channelInstances(cs.qmgr.Name)
	slices.SortFunc(insts, func(a, b channelInstance) int { return strings.Compare(a.jobName, b.jobName) })
	var replies []pcfReply
	for _, in := range insts {
		if !matchName(pattern, in.channel) {
			continue
		}
		var r pcfReply
		p := &r.resp
		p.str(cachChannelName, in.channel, channelNameLength)
		p.integer(iachChannelType, chtSvrconn)
		p.integer(iachChannelInstanceType, otCurrentChannel)
		p.str(cachConnectionName, in.connName, connNameLength)
		p.str(cachLocalAddress, in.localAddress, connNameLength)
		p.str(cachXmitQName, "", qNameLength)
		p.str(caRemoteQMgrName, "", qNameLength)
		p.integer(iachChannelStatus, chsRunning)
		p.integer(iachChannelSubstate, chsstateReceiving)
		p.integer(iachMCAStatus, mcasRunning)
		p.integer(iachStopRequested, 0)
		p.str(cachChannelStartDate, pcfDate(in.started), dateLength)
		p.str(cachChannelStartTime, pcfTime(in.started), timeLength)
		p.str(cachLastMsgDate, pcfDate(in.lastCall), dateLength)
		p.str(cachLastMsgTime, pcfTime(in.lastCall), timeLength)
		p.integer(iachMsgs, clampInt32(in.calls))
		p.integer(iachBytesSent, clampInt32(in.bytesOut))
		p.integer(iachBytesReceived, clampInt32(in.bytesIn))
		p.integer(iachBuffersSent, clampInt32(in.buffersOut))
		p.integer(iachBuffersReceived, clampInt32(in.buffersIn))
		p.integer(iachHBInterval, svrconnHeartbeat)
		p.integer(iachMaxMsgLength, int32(in.maxMsgLength))
		p.integer(iachCurrentSharingConvs, sharingConversation)
		p.str(cachMCAJobName, in.jobName, jobNameLength)
		p.str(cachMCAUserID, in.user, userIDLength)
		p.str(cachRemoteApplTag, applNameField(in.applName), applTagLength)
		// TLS: a plain channel has no CipherSpec and no peer.
		p.str(cachSSLCipherSpec, in.cipherSpec, cipherSpecLength)
		p.str(cachSSLShortPeerName, in.peerName, peerNameLength)
		p.str(cachSSLCertIssuerName, in.issuerName, peerNameLength)
		p.keep(want, cachChannelName, iachChannelType, iachChannelInstanceType, cachConnectionName)
		replies = append(replies, r)
	}
	if len(replies) == 0 {
		return nil, rccfChlStatusNotFound
	}
	return replies, rcNone
}

func clampInt32(v int64) int32 { return int32(min(max(v, -1<<31), 1<<31-1)) }
