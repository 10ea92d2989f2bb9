package mqserver

import (
	"strings"
	"testing"
)

func (c *client) set(h int32, selectors, ints []int32, chars []byte) reply {
	c.t.Helper()
	var e encoder
	e.i32(h)
	e.i32s(selectors)
	e.i32s(ints)
	e.bytes(chars)
	r := c.mustCall(opSet, &e)
	c.end(r)
	return r
}

func TestSetInhibitsPutAndGet(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooSet|ooInquire|ooOutput|ooInputShared)
	c.mustPut(h, pmoNoSyncpoint, "before")
	wantRC(t, "MQSET inhibit", c.set(h, []int32{iaInhibitPut, iaInhibitGet}, []int32{1, 1}, nil), ccOK, rcNone)

	r, _ := c.put(h, pmoNoSyncpoint, defaultMD(), nil, []byte("inhibited"))
	wantRC(t, "put to a put-inhibited queue", r, ccFailed, rcPutInhibited)
	r, _ = c.get(h, getArgs{gmo: gmoNoSyncpoint, bufferLength: 100})
	wantRC(t, "get from a get-inhibited queue", r, ccFailed, rcGetInhibited)
	// Through the alias: its base queue is inhibited.
	alias := c.mustOpen("DEV.ALIAS.1", ooOutput)
	r, _ = c.put(alias, pmoNoSyncpoint, defaultMD(), nil, []byte("via alias"))
	wantRC(t, "put through an alias of a put-inhibited queue", r, ccFailed, rcPutInhibited)
	// Another connection sees the change, and MQINQ answers it.
	other := appClient(t, s)
	oh := other.mustOpen("DEV.QUEUE.1", ooInquire)
	r, ints, _ := other.inq(oh, []int32{iaInhibitPut, iaInhibitGet}, 2, 0)
	wantRC(t, "inquire", r, ccOK, rcNone)
	if ints[0] != 1 || ints[1] != 1 {
		t.Fatalf("MQINQ INHIBIT_PUT, INHIBIT_GET = %v, want [1 1]", ints)
	}

	wantRC(t, "MQSET allow", c.set(h, []int32{iaInhibitPut, iaInhibitGet}, []int32{0, 0}, nil), ccOK, rcNone)
	if got := c.mustGet(h, gmoNoSyncpoint); string(got.data) != "before" {
		t.Fatalf("got %q, want the message put before", got.data)
	}
}

func TestSetTriggerAttributes(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.2", ooSet|ooInquire)
	data := make([]byte, triggerDataLength)
	fixed(data, "trigger me")
	wantRC(t, "MQSET triggers", c.set(h, []int32{iaTriggerControl, caTriggerData, iaTriggerType, iaTriggerDepth,
		iaTriggerMsgPriority}, []int32{1, 2, 7, 4}, data), ccOK, rcNone)
	r, ints, chars := c.inq(h, []int32{iaTriggerControl, iaTriggerType, iaTriggerDepth, iaTriggerMsgPriority,
		caTriggerData}, 4, triggerDataLength)
	wantRC(t, "inquire", r, ccOK, rcNone)
	if want := []int32{1, 2, 7, 4}; ints[0] != want[0] || ints[1] != want[1] || ints[2] != want[2] || ints[3] != want[3] ||
		trimmed(chars) != "trigger me" {
		t.Fatalf("MQINQ = %v %q, want %v %q", ints, chars, want, "trigger me")
	}
}

func TestSetRefusesWhatIBMRefuses(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooSet)
	noSet := c.mustOpen("DEV.QUEUE.1", ooInquire)
	remote := c.mustOpen("DEV.REMOTE.1", ooSet)
	alias := c.mustOpen("DEV.ALIAS.1", ooSet)
	qmgr, r, _, _ := c.open(otQMgr, "", ooSet)
	wantRC(t, "open the queue manager for set", r, ccOK, rcNone)
	for _, tc := range []struct {
		what       string
		h          int32
		selectors  []int32
		ints       []int32
		chars      []byte
		wantReason int32
	}{
		{"not opened for set", noSet, []int32{iaInhibitPut}, []int32{1}, nil, rcNotOpenForSet},
		{"an attribute MQSET cannot change", h, []int32{iaMaxQDepth}, []int32{10}, nil, rcSelectorError},
		{"inhibit value", h, []int32{iaInhibitPut}, []int32{2}, nil, rcInhibitValueError},
		{"trigger control value", h, []int32{iaTriggerControl}, []int32{5}, nil, rcTriggerControlError},
		{"trigger depth", h, []int32{iaTriggerDepth}, []int32{0}, nil, rcTriggerDepthError},
		{"trigger type", h, []int32{iaTriggerType}, []int32{4}, nil, rcTriggerTypeError},
		{"trigger priority", h, []int32{iaTriggerMsgPriority}, []int32{10}, nil, rcTriggerMsgPriorityErr},
		{"fewer integers than selectors", h, []int32{iaInhibitPut, iaInhibitGet}, []int32{1}, nil, rcIntAttrCountError},
		{"short trigger data", h, []int32{caTriggerData}, nil, make([]byte, 10), rcCharAttrLengthError},
		{"inhibit get of a remote definition", remote, []int32{iaInhibitGet}, []int32{1}, nil, rcSelectorError},
		{"trigger of an alias", alias, []int32{iaTriggerControl}, []int32{1}, nil, rcSelectorError},
		{"the queue manager", qmgr, []int32{iaInhibitPut}, []int32{1}, nil, rcSelectorError},
	} {
		wantRC(t, tc.what, c.set(tc.h, tc.selectors, tc.ints, tc.chars), ccFailed, tc.wantReason)
	}
	// Nothing of a refused MQSET was applied.
	r = c.set(h, []int32{iaInhibitPut, iaTriggerDepth}, []int32{1, 0}, nil)
	wantRC(t, "half-valid MQSET", r, ccFailed, rcTriggerDepthError)
	out := c.mustOpen("DEV.QUEUE.1", ooOutput)
	c.mustPut(out, pmoNoSyncpoint, "still allowed")
}

func TestBackoutAttributesFromTheConfiguration(t *testing.T) {
	cfg, err := parseConfig(strings.NewReader(`
queueManagers:
  - name: QM1
    queues:
      - name: APP.IN
        backoutThreshold: 3
        backoutRequeueQueue: APP.BACKOUT
      - APP.BACKOUT
`))
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, cfg)
	c := appClient(t, s)
	h := c.mustOpen("APP.IN", ooInquire)
	r, ints, chars := c.inq(h, []int32{iaBackoutThreshold, caBackoutReqQName}, 1, 48)
	wantRC(t, "inquire", r, ccOK, rcNone)
	if ints[0] != 3 || trimmed(chars) != "APP.BACKOUT" {
		t.Fatalf("BOTHRESH %d BOQNAME %q, want 3 and APP.BACKOUT", ints[0], chars)
	}
	other := c.mustOpen("APP.BACKOUT", ooInquire)
	r, ints, chars = c.inq(other, []int32{iaBackoutThreshold, caBackoutReqQName}, 1, 48)
	wantRC(t, "inquire", r, ccOK, rcNone)
	if ints[0] != 0 || trimmed(chars) != "" {
		t.Fatalf("a queue without them: BOTHRESH %d BOQNAME %q, want 0 and blank", ints[0], chars)
	}
}
