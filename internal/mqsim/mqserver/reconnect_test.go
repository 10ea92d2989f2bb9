package mqserver

import "testing"

func (c *client) reopen(h int32, name string, options int32) (int32, reply) {
	c.t.Helper()
	var e encoder
	e.i32(h)
	e.i32(otQ)
	e.str(name)
	e.str("")
	e.str("")
	e.i32(options)
	r := c.mustCall(opReopen, &e)
	got := r.d.i32()
	r.d.str()
	r.d.str()
	c.end(r)
	return got, r
}

// TestReopenReinstatesAHandle: a reconnecting client gets its handle
// numbers back, and later opens never reuse them.
func TestReopenReinstatesAHandle(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h, r := c.reopen(205, "DEV.QUEUE.1", ooOutput|ooInputShared)
	wantRC(t, "reopen", r, ccOK, rcNone)
	if h != 205 {
		t.Fatalf("reopen as 205 gave %d", h)
	}
	c.mustPut(205, 0, "through the reinstated handle")
	if got := c.mustGet(205, 0); string(got.data) != "through the reinstated handle" {
		t.Errorf("got %q", got.data)
	}
	if h2 := c.mustOpen("DEV.QUEUE.1", ooOutput); h2 <= 205 {
		t.Errorf("an open after reopening 205 gave %d", h2)
	}
	for _, tc := range []struct {
		name string
		h    int32
	}{{"a handle in use", 205}, {"below the first handle", 5}} {
		got, r := c.reopen(tc.h, "DEV.QUEUE.1", ooOutput)
		wantRC(t, tc.name, r, ccFailed, rcHobjError)
		if got != -1 {
			t.Errorf("%s: hobj %d, want MQHO_UNUSABLE_HOBJ", tc.name, got)
		}
	}
	_, r = c.reopen(300, "NO.SUCH.QUEUE", ooOutput)
	wantRC(t, "unknown queue", r, ccFailed, rcUnknownObjectName)
}
