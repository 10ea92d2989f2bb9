package mqserver

import (
	"strings"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// Attribute selectors (MQIA_*, MQCA_*) and the values MQINQ answers with.
const (
	iaFirst, iaLast int32 = 1, 2000 // integer selectors; the rest are character ones

	iaCodedCharSetID      int32 = 2
	iaCurrentQDepth       int32 = 3
	iaDefInputOpenOption  int32 = 4
	iaDefPersistence      int32 = 5
	iaDefPriority         int32 = 6
	iaDefinitionType      int32 = 7
	iaHardenGetBackout    int32 = 8
	iaInhibitGet          int32 = 9
	iaInhibitPut          int32 = 10
	iaMaxHandles          int32 = 11
	iaUsage               int32 = 12
	iaMaxMsgLength        int32 = 13
	iaMaxPriority         int32 = 14
	iaMaxQDepth           int32 = 15
	iaMsgDeliverySequence int32 = 16
	iaOpenInputCount      int32 = 17
	iaOpenOutputCount     int32 = 18
	iaQType               int32 = 20
	iaRetentionInterval   int32 = 21
	iaBackoutThreshold    int32 = 22
	iaShareability        int32 = 23
	iaTriggerControl      int32 = 24
	iaTriggerInterval     int32 = 25
	iaTriggerMsgPriority  int32 = 26
	iaTriggerType         int32 = 28
	iaTriggerDepth        int32 = 29
	iaSyncpoint           int32 = 30
	iaCommandLevel        int32 = 31
	iaPlatform            int32 = 32
	iaMaxUncommittedMsgs  int32 = 33
	iaDistLists           int32 = 34
	iaQDepthHighLimit     int32 = 40
	iaQDepthLowLimit      int32 = 41
	iaScope               int32 = 45
	iaDefBind             int32 = 61
	iaDefPutResponseType  int32 = 184
	iaPropertyControl     int32 = 190
	iaBaseType            int32 = 193
	iaNameCount           int32 = 19
	iaNamelistType        int32 = 72
	iaDefReadAhead        int32 = 188

	iaAuthorityEvent         int32 = 47
	iaInhibitEvent           int32 = 48
	iaLocalEvent             int32 = 49
	iaRemoteEvent            int32 = 50
	iaConfigurationEvent     int32 = 51
	iaStartStopEvent         int32 = 52
	iaPerformanceEvent       int32 = 53
	iaChannelAutoDef         int32 = 55
	iaChannelAutoDefEvent    int32 = 56
	iaMsgMarkBrowseInterval  int32 = 68
	iaChannelEvent           int32 = 73
	iaBridgeEvent            int32 = 74
	iaSSLEvent               int32 = 75
	iaLoggerEvent            int32 = 94
	iaCommandEvent           int32 = 99
	iaCmdServerControl       int32 = 120
	iaMonitoringChannel      int32 = 122
	iaMonitoringQ            int32 = 123
	iaMonitoringAutoClussdr  int32 = 124
	iaStatisticsMQI          int32 = 127
	iaStatisticsQ            int32 = 128
	iaStatisticsChannel      int32 = 129
	iaStatisticsAutoClussdr  int32 = 130
	iaStatisticsInterval     int32 = 131
	iaAccountingMQI          int32 = 133
	iaAccountingQ            int32 = 134
	iaAccountingInterval     int32 = 135
	iaAccountingConnOverride int32 = 136
	iaTraceRouteRecording    int32 = 137
	iaActivityRecording      int32 = 138
	iaMaxPropertiesLength    int32 = 192
	iaActivityConnOverride   int32 = 239
	iaActivityTrace          int32 = 240
	iaChlauthRecords         int32 = 248

	caBaseQName         int32 = 2002
	caCommandInputQName int32 = 2003
	caCreationDate      int32 = 2004
	caCreationTime      int32 = 2005
	caDeadLetterQName   int32 = 2006
	caInitiationQName   int32 = 2008
	caProcessName       int32 = 2012
	caQDesc             int32 = 2013
	caQMgrDesc          int32 = 2014
	caQMgrName          int32 = 2015
	caQName             int32 = 2016
	caRemoteQMgrName    int32 = 2017
	caRemoteQName       int32 = 2018
	caBackoutReqQName   int32 = 2019
	caTriggerData       int32 = 2023
	caXmitQName         int32 = 2024
	caDefXmitQName      int32 = 2025
	caAlterationDate    int32 = 2027
	caAlterationTime    int32 = 2028
	caClusterName       int32 = 2029
	caClusterNamelist   int32 = 2030
	caQMgrIdentifier    int32 = 2032
	caVersion           int32 = 2120
	caNamelistDesc      int32 = 2009
	caNamelistName      int32 = 2010
	caNames             int32 = 2020
	caCustom            int32 = 2119

	iavNotApplicable    int32 = -1 // MQIAV_NOT_APPLICABLE
	qdtPredefined       int32 = 1  // MQQDT_PREDEFINED
	qdtTemporaryDynamic int32 = 3  // MQQDT_TEMPORARY_DYNAMIC
	platformUnix        int32 = 3
	qmgrVersion               = "09040000"
	commandQueue              = "SYSTEM.ADMIN.COMMAND.QUEUE"
	// defaultNamelist is the one namelist, empty, as on every IBM queue
	// manager; programs such as IBM's amqsinq sample inquire it.
	defaultNamelist = "SYSTEM.DEFAULT.NAMELIST"
)

// Queue types an attribute applies to.
const (
	forLocal  = 1 << iota // MQQT_LOCAL
	forAlias              // MQQT_ALIAS
	forRemote             // MQQT_REMOTE
	forQueues = forLocal | forAlias | forRemote
)

// queueIntAttr is an integer attribute of queues: the types it applies to
// and its value for a queue (info is only read for local queues).
type queueIntAttr struct {
	types int
	value func(info *mq.QueueInfo) int32
}

func constant(v int32) func(*mq.QueueInfo) int32 { return func(*mq.QueueInfo) int32 { return v } }

// queueIntAttrs are a default DEFINE QLOCAL/QALIAS/QREMOTE's integer
// attributes plus the live ones.
var queueIntAttrs = map[int32]queueIntAttr{
	iaQType:               {forQueues, func(i *mq.QueueInfo) int32 { return int32(i.Type) }},
	iaDefPersistence:      {forQueues, constant(perNotPersistent)},
	iaDefPriority:         {forQueues, constant(defaultQueuePriority)},
	iaInhibitPut:          {forQueues, constant(0)}, // MQQA_PUT_ALLOWED
	iaDefBind:             {forQueues, constant(0)}, // MQBND_BIND_ON_OPEN
	iaDefPutResponseType:  {forQueues, constant(1)}, // DEFPRESP(SYNC): MQPMO_RESPONSE_AS_Q_DEF puts synchronously
	iaScope:               {forQueues, constant(1)}, // MQSCO_Q_MGR
	iaInhibitGet:          {forLocal | forAlias, constant(0)},
	iaPropertyControl:     {forLocal | forAlias, constant(0)}, // MQPROP_COMPATIBILITY
	iaBaseType:            {forAlias, constant(otQ)},
	iaCurrentQDepth:       {forLocal, func(i *mq.QueueInfo) int32 { return int32(i.CurrentDepth) }},
	iaMaxQDepth:           {forLocal, func(i *mq.QueueInfo) int32 { return int32(i.MaxDepth) }},
	iaOpenInputCount:      {forLocal, func(i *mq.QueueInfo) int32 { return int32(i.OpenInputCount) }},
	iaOpenOutputCount:     {forLocal, func(i *mq.QueueInfo) int32 { return int32(i.OpenOutputCount) }},
	iaMaxMsgLength:        {forLocal, func(i *mq.QueueInfo) int32 { return int32(i.MaxMsgLength) }},
	iaDefinitionType:      {forLocal, constant(qdtPredefined)}, // a dynamic queue's: see inq
	iaDefReadAhead:        {forLocal | forAlias, constant(0)},  // MQREADA_NO
	iaDefInputOpenOption:  {forLocal, constant(ooInputShared)},
	iaShareability:        {forLocal, constant(1)}, // MQQA_SHAREABLE
	iaMsgDeliverySequence: {forLocal, constant(0)}, // MQMDS_PRIORITY
	iaBackoutThreshold:    {forLocal, constant(0)}, // BOTHRESH: the queue's (set.go)
	iaHardenGetBackout:    {forLocal, constant(1)}, // MQQA_BACKOUT_HARDENED
	iaUsage:               {forLocal, constant(0)}, // MQUS_NORMAL
	iaDistLists:           {forLocal, constant(0)}, // MQDL_NOT_SUPPORTED
	iaTriggerControl:      {forLocal, constant(0)}, // MQTC_OFF
	iaTriggerType:         {forLocal, constant(1)}, // MQTT_FIRST
	iaTriggerDepth:        {forLocal, constant(1)},
	iaTriggerMsgPriority:  {forLocal, constant(0)},
	iaRetentionInterval:   {forLocal, constant(999999999)},
	iaQDepthHighLimit:     {forLocal, constant(80)},
	iaQDepthLowLimit:      {forLocal, constant(20)},
}

// queueCharAttr is a character attribute of queues.
type queueCharAttr struct {
	types  int
	length int
}

var queueCharAttrs = map[int32]queueCharAttr{
	caQName:           {forQueues, 48},
	caQDesc:           {forQueues, 64},
	caAlterationDate:  {forQueues, 12},
	caAlterationTime:  {forQueues, 8},
	caClusterName:     {forQueues, 48},
	caClusterNamelist: {forQueues, 48},
	caBaseQName:       {forAlias, 48},
	caRemoteQName:     {forRemote, 48},
	caRemoteQMgrName:  {forRemote, 48},
	caXmitQName:       {forRemote, 48},
	caCreationDate:    {forLocal, 12},
	caCreationTime:    {forLocal, 8},
	caBackoutReqQName: {forLocal, 48},
	caInitiationQName: {forLocal, 48},
	caProcessName:     {forLocal, 48},
	caTriggerData:     {forLocal, 64},
}

// qmgrCharLengths are the queue manager's character attributes.
var qmgrCharLengths = map[int32]int{
	caQMgrName: 48, caQMgrIdentifier: 48, caQMgrDesc: 64, caDeadLetterQName: 48,
	caCommandInputQName: 48, caDefXmitQName: 48, caVersion: 8, caCustom: 128,
}

// namelistCharLengths are a namelist's character attributes; MQCA_NAMES
// is 48 bytes per name, none in the default namelist.
var namelistCharLengths = map[int32]int{
	caNamelistName: 48, caNamelistDesc: 64, caNames: 0,
	caAlterationDate: 12, caAlterationTime: 8,
}

// namelistIntAttr returns an integer attribute of the (empty) namelist.
func namelistIntAttr(sel int32) (int32, bool) {
	switch sel {
	case iaNameCount:
		return 0, true
	case iaNamelistType:
		return 0, true // MQNT_NONE
	}
	return 0, false
}

func (s *session) namelistCharAttr(o *object, sel int32) string {
	switch sel {
	case caNamelistName:
		return o.namelist
	case caAlterationDate:
		return s.srv.started.UTC().Format("2006-01-02")
	case caAlterationTime:
		return s.srv.started.UTC().Format("15.04.05")
	}
	return ""
}

// qmgrIntAttr returns an integer attribute of the queue manager.
func (s *session) qmgrIntAttr(sel int32) (int32, bool) { return s.srv.qmgrIntAttr(&s.qmgr, sel) }

func (s *session) qmgrCharAttr(sel int32) string { return qmgrCharAttr(&s.qmgr, sel) }

// qmgrIntAttr returns an integer attribute of the queue manager qa.
func (srv *Server) qmgrIntAttr(qa *embedded.QueueManagerAttributes, sel int32) (int32, bool) {
	switch sel {
	case iaCommandLevel:
		return int32(qa.CommandLevel), true
	case iaMaxMsgLength:
		return int32(qa.MaxMsgLength), true
	case iaMaxUncommittedMsgs:
		return int32(qa.MaxUncommittedMsgs), true
	case iaMonitoringQ:
		return srv.queueMonitoring, true
	}
	v, ok := qmgrFixedIntAttrs[sel]
	return v, ok
}

// qmgrFixedIntAttrs are the queue manager's integer attributes that do not
// depend on its configuration: a fresh IBM MQ 9.4 queue manager's, as the
// developer container leaves them (events off but start/stop, activity and
// trace-route recording to messages, no statistics or accounting).
var qmgrFixedIntAttrs = map[int32]int32{
	iaPlatform:               platformUnix,
	iaCodedCharSetID:         qmgrCCSID,
	iaMaxPriority:            maxPriority,
	iaSyncpoint:              1, // MQSP_AVAILABLE
	iaMaxHandles:             maxHandlesPerConn,
	iaDistLists:              1, // MQDL_SUPPORTED
	iaTriggerInterval:        999999999,
	iaAuthorityEvent:         0, // MQEVR_DISABLED
	iaInhibitEvent:           0,
	iaLocalEvent:             0,
	iaRemoteEvent:            0,
	iaConfigurationEvent:     0,
	iaStartStopEvent:         1, // MQEVR_ENABLED
	iaPerformanceEvent:       0,
	iaChannelAutoDef:         0, // MQCHAD_DISABLED
	iaChannelAutoDefEvent:    0,
	iaChannelEvent:           0,
	iaBridgeEvent:            0,
	iaSSLEvent:               0,
	iaCommandEvent:           0,
	iaLoggerEvent:            0,
	iaActivityRecording:      1, // MQRECORDING_MSG
	iaTraceRouteRecording:    1, // MQRECORDING_MSG
	iaStatisticsMQI:          0, // MQMON_OFF
	iaStatisticsQ:            0,
	iaStatisticsChannel:      0,
	iaStatisticsAutoClussdr:  -3, // MQMON_Q_MGR
	iaStatisticsInterval:     1800,
	iaAccountingMQI:          0,
	iaAccountingQ:            0,
	iaAccountingInterval:     1800,
	iaAccountingConnOverride: 0,
	iaMonitoringChannel:      0,
	iaMonitoringAutoClussdr:  -3,
	iaCmdServerControl:       0, // MQSVC_CONTROL_Q_MGR
	iaChlauthRecords:         1, // MQCHLA_ENABLED
	iaActivityTrace:          0,
	iaActivityConnOverride:   0,
	iaMaxPropertiesLength:    -1, // MQPROP_UNRESTRICTED_LENGTH
	iaMsgMarkBrowseInterval:  5000,
}

// qmgrCharAttr returns a character attribute of the queue manager qa.
func qmgrCharAttr(qa *embedded.QueueManagerAttributes, sel int32) string {
	switch sel {
	case caQMgrName:
		return qa.Name
	case caQMgrIdentifier:
		return qa.Identifier
	case caQMgrDesc:
		return "mqprobe mqserver"
	case caDeadLetterQName:
		return qa.DeadLetterQueue
	case caCommandInputQName:
		return commandQueue
	case caVersion:
		return qmgrVersion
	}
	return "" // DEFXMITQ: none; CUSTOM: empty
}

func (srv *Server) queueCharAttr(sel int32, info *mq.QueueInfo) string {
	switch sel {
	case caQName:
		return info.Name
	case caBaseQName:
		return info.BaseQueue
	case caRemoteQName:
		return info.RemoteQueue
	case caRemoteQMgrName:
		return info.RemoteQueueManager
	case caXmitQName:
		return info.TransmissionQueue
	case caCreationDate, caAlterationDate:
		return srv.started.UTC().Format("2006-01-02")
	case caCreationTime, caAlterationTime:
		return srv.started.UTC().Format("15.04.05")
	}
	return ""
}

func typeBit(t mq.QueueType) int {
	switch t {
	case mq.QueueAlias:
		return forAlias
	case mq.QueueRemote:
		return forRemote
	}
	return forLocal
}

// inq is MQINQ. Every selector must be valid for the object before
// anything is returned (2067); one valid for queues but not for this
// queue's type answers MQIAV_NOT_APPLICABLE or asterisks with warning
// 2068; too few integers or characters give what fits with warning 2022 or
// 2008.
func (s *session) inq(d *decoder) (cc, rc int32, err error) {
	hobj := d.i32()
	selectors := d.i32s()
	intCount, charLength := d.i32(), d.i32()
	if err := d.end(); err != nil {
		return 0, 0, err
	}
	fail := func(rc int32) (int32, int32, error) {
		s.out.i32s(nil)
		s.out.bytes(nil)
		return ccFailed, rc, nil
	}
	o := s.objects[hobj]
	switch {
	case o == nil:
		return fail(rcHobjError)
	case o.options&ooInquire == 0:
		return fail(rcNotOpenForInquire)
	case len(selectors) > maxSelectors:
		return fail(rcSelectorCountError)
	case intCount < 0:
		return fail(rcIntAttrCountError)
	case charLength < 0:
		return fail(rcCharAttrLengthError)
	}
	var info mq.QueueInfo
	if o.queue != nil {
		if info, err = o.queue.Inquire(); err != nil {
			_, rc := reasonOf(err)
			return fail(rc)
		}
	}
	for _, sel := range selectors {
		var ok bool
		switch {
		case o.namelist != "" && sel >= iaFirst && sel <= iaLast:
			_, ok = namelistIntAttr(sel)
		case o.namelist != "":
			_, ok = namelistCharLengths[sel]
		case o.queue == nil && sel >= iaFirst && sel <= iaLast:
			_, ok = s.qmgrIntAttr(sel)
		case o.queue == nil:
			_, ok = qmgrCharLengths[sel]
		case sel >= iaFirst && sel <= iaLast:
			_, ok = queueIntAttrs[sel]
		default:
			_, ok = queueCharAttrs[sel]
		}
		if !ok {
			return fail(rcSelectorError)
		}
	}
	ints := make([]int32, 0, min(int(intCount), len(selectors)))
	chars := make([]byte, 0, min(int(charLength), 48*len(selectors)))
	warn := rcNone
	warnOnce := func(rc int32) {
		if warn == rcNone {
			warn = rc
		}
	}
	typ := typeBit(info.Type)
	for _, sel := range selectors {
		if sel >= iaFirst && sel <= iaLast {
			var v int32
			if o.namelist != "" {
				v, _ = namelistIntAttr(sel)
			} else if o.queue == nil {
				v, _ = s.qmgrIntAttr(sel)
			} else if a := queueIntAttrs[sel]; a.types&typ == 0 {
				v = iavNotApplicable
				warnOnce(rcSelectorNotForType)
			} else if set, ok := s.storedIntAttr(sel, o.queue); ok {
				v = set // MQSET's or BOTHRESH (set.go)
			} else {
				v = a.value(&info)
				if sel == iaDefinitionType {
					v = s.srv.definitionType(s.qmgr.Name, info.Name)
				}
			}
			if len(ints) < int(intCount) {
				ints = append(ints, v)
			} else {
				warnOnce(rcIntAttrCountTooSmall)
			}
			continue
		}
		var length int
		var value string
		if o.namelist != "" {
			length, value = namelistCharLengths[sel], s.namelistCharAttr(o, sel)
		} else if o.queue == nil {
			length, value = qmgrCharLengths[sel], s.qmgrCharAttr(sel)
		} else {
			a := queueCharAttrs[sel]
			length, value = a.length, s.srv.queueCharAttr(sel, &info)
			if set, ok := s.storedCharAttr(sel, o.queue); ok {
				value = set
			}
			if a.types&typ == 0 {
				value = strings.Repeat("*", length)
				warnOnce(rcSelectorNotForType)
			}
		}
		field := make([]byte, length)
		fixed(field, value)
		if room := int(charLength) - len(chars); room < length {
			chars = append(chars, field[:max(room, 0)]...)
			warnOnce(rcCharAttrsTooShort)
			continue
		}
		chars = append(chars, field...)
	}
	s.out.i32s(ints)
	s.out.bytes(chars)
	if warn != rcNone {
		return ccWarning, warn, nil
	}
	return ccOK, rcNone, nil
}
