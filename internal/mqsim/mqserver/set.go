package mqserver

import (
	"sync"

	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// MQSET (op 12): the queue attributes IBM MQ lets an application change —
// InhibitGet (not for remote definitions), InhibitPut, DistLists and the
// trigger attributes (local queues) — kept per queue by the server for its
// lifetime, answered by MQINQ and enforced on MQPUT (2051) and MQGET
// (2016). Triggering itself is not modelled: the trigger attributes are
// stored and inquired only.

const (
	rcGetInhibited          int32 = 2016
	rcInhibitValueError     int32 = 2020
	rcNotOpenForSet         int32 = 2040
	rcPutInhibited          int32 = 2051
	rcSelectorLimitExceeded int32 = 2066
	rcTriggerControlError   int32 = 2075
	rcTriggerDepthError     int32 = 2076
	rcTriggerMsgPriorityErr int32 = 2077
	rcTriggerTypeError      int32 = 2078

	triggerDataLength = 64 // MQ_TRIGGER_DATA_LENGTH
	maxTriggerType    = 3  // MQTT_EVERY; MQTT_NONE is 0
)

// queueSettings are a queue's attributes that MQSET changes.
type queueSettings struct {
	inhibitGet, inhibitPut, distLists int32
	triggerControl, triggerType       int32
	triggerDepth, triggerMsgPriority  int32
	triggerData                       string
}

// defaultQueueSettings are DEFINE QLOCAL's: GET(ENABLED) PUT(ENABLED)
// DISTL(NO) NOTRIGGER TRIGTYPE(FIRST) TRIGDPTH(1) TRIGMPRI(0) TRIGDATA( ).
var defaultQueueSettings = queueSettings{triggerType: 1, triggerDepth: 1}

// settingsStore holds the settings MQSET changed, by queue manager and
// queue: at most one entry per defined queue.
type settingsStore struct {
	mu      sync.Mutex
	byQueue map[[2]string]queueSettings
}

func (st *settingsStore) get(qmgr, queue string) queueSettings {
	st.mu.Lock()
	defer st.mu.Unlock()
	if v, ok := st.byQueue[[2]string{qmgr, queue}]; ok {
		return v
	}
	return defaultQueueSettings
}

func (st *settingsStore) put(qmgr, queue string, v queueSettings) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.byQueue == nil {
		st.byQueue = make(map[[2]string]queueSettings)
	}
	st.byQueue[[2]string{qmgr, queue}] = v
}

// set is MQSET. Every selector and value is checked before any is applied:
// MQSET has no partial completion.
func (s *session) set(d *decoder) (cc, rc int32, err error) {
	hobj := d.i32()
	selectors, ints, chars := d.i32s(), d.i32s(), d.bytes()
	if err := d.end(); err != nil {
		return 0, 0, err
	}
	o := s.objects[hobj]
	switch {
	case o == nil:
		return ccFailed, rcHobjError, nil
	case o.options&ooSet == 0:
		return ccFailed, rcNotOpenForSet, nil
	case len(selectors) > maxSelectors:
		return ccFailed, rcSelectorLimitExceeded, nil
	case o.queue == nil && len(selectors) > 0:
		return ccFailed, rcSelectorError, nil // only queues' attributes can be set
	case o.queue == nil:
		return ccOK, rcNone, nil
	}
	info, err := o.queue.Inquire()
	if err != nil {
		cc, rc := reasonOf(err)
		return cc, rc, nil
	}
	typ := typeBit(info.Type)
	next := s.srv.settings.get(s.qmgr.Name, o.queue.Name())
	for _, sel := range selectors {
		if sel < iaFirst || sel > iaLast {
			if sel != caTriggerData || typ != forLocal {
				return ccFailed, rcSelectorError, nil
			}
			if len(chars) < triggerDataLength {
				return ccFailed, rcCharAttrLengthError, nil
			}
			next.triggerData = trimmed(chars[:triggerDataLength])
			chars = chars[triggerDataLength:]
			continue
		}
		if len(ints) == 0 {
			return ccFailed, rcIntAttrCountError, nil
		}
		v := ints[0]
		ints = ints[1:]
		if rc := next.setInt(sel, v, typ); rc != rcNone {
			return ccFailed, rc, nil
		}
	}
	s.srv.settings.put(s.qmgr.Name, o.queue.Name(), next)
	return ccOK, rcNone, nil
}

// setInt sets one integer attribute of a queue of type typ (forLocal, ...)
// or returns MQSET's reason code for the selector or value.
func (qs *queueSettings) setInt(sel, v int32, typ int) int32 {
	bounded := func(field *int32, lo, hi, rc int32) int32 {
		if v < lo || v > hi {
			return rc
		}
		*field = v
		return rcNone
	}
	switch {
	case sel == iaInhibitPut:
		return bounded(&qs.inhibitPut, 0, 1, rcInhibitValueError)
	case sel == iaInhibitGet && typ != forRemote:
		return bounded(&qs.inhibitGet, 0, 1, rcInhibitValueError)
	case typ != forLocal:
		return rcSelectorError
	case sel == iaDistLists:
		return bounded(&qs.distLists, 0, 1, rcSelectorError)
	case sel == iaTriggerControl:
		return bounded(&qs.triggerControl, 0, 1, rcTriggerControlError)
	case sel == iaTriggerType:
		return bounded(&qs.triggerType, 0, maxTriggerType, rcTriggerTypeError)
	case sel == iaTriggerDepth:
		return bounded(&qs.triggerDepth, 1, 999999999, rcTriggerDepthError)
	case sel == iaTriggerMsgPriority:
		return bounded(&qs.triggerMsgPriority, 0, maxPriority, rcTriggerMsgPriorityErr)
	}
	return rcSelectorError
}

// storedIntAttr is MQINQ's answer for an integer attribute that
// mq.QueueInfo does not carry — those MQSET changes and BOTHRESH; ok is
// false for the others.
func (s *session) storedIntAttr(sel int32, q *embedded.MQIQueue) (v int32, ok bool) {
	qs := s.srv.settings.get(s.qmgr.Name, q.Name())
	switch sel {
	case iaBackoutThreshold:
		threshold, _ := q.Backout()
		return int32(threshold), true
	case iaInhibitGet:
		return qs.inhibitGet, true
	case iaInhibitPut:
		return qs.inhibitPut, true
	case iaDistLists:
		return qs.distLists, true
	case iaTriggerControl:
		return qs.triggerControl, true
	case iaTriggerType:
		return qs.triggerType, true
	case iaTriggerDepth:
		return qs.triggerDepth, true
	case iaTriggerMsgPriority:
		return qs.triggerMsgPriority, true
	}
	return 0, false
}

// storedCharAttr is storedIntAttr for MQCA_TRIGGER_DATA and BOQNAME.
func (s *session) storedCharAttr(sel int32, q *embedded.MQIQueue) (string, bool) {
	switch sel {
	case caTriggerData:
		return s.srv.settings.get(s.qmgr.Name, q.Name()).triggerData, true
	case caBackoutReqQName:
		_, requeue := q.Backout()
		return requeue, true
	}
	return "", false
}

// inhibited reports whether the queue q was opened as, or the local queue
// it resolves to (an alias's base), has put (or get) inhibited.
func (s *session) inhibited(q *embedded.MQIQueue, put bool) bool {
	names := []string{q.Name()}
	if rq, rqm := q.Resolved(); rqm == s.qmgr.Name && rq != q.Name() {
		names = append(names, rq)
	}
	for _, name := range names {
		qs := s.srv.settings.get(s.qmgr.Name, name)
		if put && qs.inhibitPut != 0 || !put && qs.inhibitGet != 0 {
			return true
		}
	}
	return false
}
