//go:build ibmmq

package ibmmq

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

// Tests of what the adapter adds to the MQI, beyond the shared suite. They
// run on whichever harness the suite uses and need no fault injection.

type adapterEnv struct {
	t      *testing.T
	target mq.Target
	queue  string
	ctx    context.Context
}

func newAdapterEnv(t *testing.T) *adapterEnv {
	env := selectHarness().New(t)
	return &adapterEnv{t: t, target: env.Target, queue: cmp.Or(env.Queue, "DEV.QUEUE.1"), ctx: context.Background()}
}

func (e *adapterEnv) connect() mq.Conn {
	e.t.Helper()
	c, err := New().Connect(e.ctx, e.target)
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

func (e *adapterEnv) open(c mq.Conn, opts mq.OpenOption) mq.Queue {
	e.t.Helper()
	q, err := c.OpenQueue(e.ctx, e.queue, opts)
	if err != nil {
		e.t.Fatalf("open %s: %v", e.queue, err)
	}
	return q
}

func (e *adapterEnv) put(q mq.Queue, msg *mq.Message) {
	e.t.Helper()
	if _, err := q.Put(e.ctx, msg, mq.PutOptions{}); err != nil {
		e.t.Fatalf("put: %v", err)
	}
}

func TestBrowseRereadsTruncatedMessage(t *testing.T) {
	e := newAdapterEnv(t)
	c := e.connect()
	out := e.open(c, mq.OpenOutput)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1024)
	bigger := bytes.Repeat(big, 2) // outgrows the buffer big left behind
	sent := [][]byte{big, []byte("s1"), bigger, []byte("s2")}
	for _, payload := range sent {
		e.put(out, &mq.Message{Payload: payload})
	}

	// Each 2080 leaves the cursor where it was, so the repeated browse
	// returns the same message and the next browse the one after it.
	br := e.open(c, mq.OpenBrowse|mq.OpenInquire)
	msg := mq.Message{Payload: make([]byte, 0, 8)}
	for i, want := range sent {
		mode := mq.BrowseNext
		if i == 0 {
			mode = mq.BrowseFirst
		}
		if err := br.Get(e.ctx, &msg, mq.GetOptions{Browse: mode}); err != nil {
			t.Fatalf("browse %d: %v", i, err)
		}
		if !bytes.Equal(msg.Payload, want) {
			t.Fatalf("browse %d returned %d bytes, want %d", i, len(msg.Payload), len(want))
		}
	}
	mqtest.WantReason(t, br.Get(e.ctx, &msg, mq.GetOptions{Browse: mq.BrowseNext}), mq.ReasonNoMsgAvailable)
	if info, err := br.Inquire(e.ctx); err != nil || info.CurrentDepth != len(sent) {
		t.Fatalf("depth after browsing = %+v, %v; want %d", info, err, len(sent))
	}
}

func TestGetWaitEndsWithContext(t *testing.T) {
	e := newAdapterEnv(t)
	in := e.open(e.connect(), mq.OpenInputShared)
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"canceled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(e.ctx)
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(e.ctx, 100*time.Millisecond)
		}, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			start := time.Now()
			var msg mq.Message
			err := in.Get(ctx, &msg, mq.GetOptions{Wait: time.Minute})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if elapsed := time.Since(start); elapsed > maxWaitSlice+time.Second {
				t.Errorf("get returned %s after the context ended", elapsed)
			}
		})
	}
}

func TestReusedPutHandleDropsOldProperties(t *testing.T) {
	e := newAdapterEnv(t)
	c := e.connect()
	out := e.open(c, mq.OpenOutput)
	in := e.open(c, mq.OpenInputShared)
	sent := []mq.Properties{
		{"a": "1", "b": int64(2)},
		{"b": int64(3), "c": true},
		nil,
		{"a": []byte("again")},
	}
	for _, props := range sent {
		e.put(out, &mq.Message{Properties: props, Payload: []byte("x")})
	}
	var msg mq.Message
	for i, want := range sent {
		if err := in.Get(e.ctx, &msg, mq.GetOptions{}); err != nil {
			t.Fatalf("get %d: %v", i, err)
		}
		if len(want) == 0 && len(msg.Properties) == 0 {
			continue
		}
		if !reflect.DeepEqual(msg.Properties, want) {
			t.Errorf("message %d has properties %v, want %v", i, msg.Properties, want)
		}
	}
}

// TestUnchangedPropertiesAreLeftOnTheHandle: a message handle keeps its
// properties across MQPUTs, so a put whose properties equal the previous
// put's sets none of them again: a property removed from the handle behind
// the adapter's back stays removed until the caller's value changes. The
// caller's map reused and written in place (as PRODUCE does) still gives
// each message its own properties.
func TestUnchangedPropertiesAreLeftOnTheHandle(t *testing.T) {
	e := newAdapterEnv(t)
	c := e.connect()
	out := e.open(c, mq.OpenOutput)
	in := e.open(c, mq.OpenInputShared)
	props := mq.Properties{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "id": []byte{1}}
	msg := &mq.Message{Properties: props, Payload: []byte("x")}
	e.put(out, msg)
	if err := out.(*queue).putProps.handle.DltMP(mqi.NewMQDMPO(), "traceparent"); err != nil {
		t.Fatal(err)
	}
	e.put(out, msg) // nothing changed: MQSETMP not called, traceparent not restored
	props["id"].([]byte)[0] = 2
	e.put(out, msg) // id changed in place: set again; traceparent still not
	props["traceparent"] = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"
	e.put(out, msg)
	delete(props, "id")
	e.put(out, msg)
	want := []mq.Properties{
		{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "id": []byte{1}},
		{"id": []byte{1}},
		{"id": []byte{2}},
		{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01", "id": []byte{2}},
		{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"},
	}
	var got mq.Message
	for i, w := range want {
		if err := in.Get(e.ctx, &got, mq.GetOptions{}); err != nil {
			t.Fatalf("get %d: %v", i+1, err)
		}
		if !reflect.DeepEqual(got.Properties, w) {
			t.Errorf("message %d has properties %v, want %v", i+1, got.Properties, w)
		}
	}
}

// TestPropertiesKeepTheirTypes: every MQ property type comes back as the
// Go type it was put with, a null property included.
func TestPropertiesKeepTheirTypes(t *testing.T) {
	e := newAdapterEnv(t)
	c := e.connect()
	out := e.open(c, mq.OpenOutput)
	in := e.open(c, mq.OpenInputShared)
	sent := mq.Properties{
		"s": "text", "b": true, "bytes": []byte{0, 1, 2},
		"i8": int8(-8), "i16": int16(-1600), "i32": int32(-320000), "i64": int64(-6400000000),
		"f32": float32(0.25), "f64": 0.125, "nothing": nil,
	}
	e.put(out, &mq.Message{Properties: sent, Payload: []byte("x")})
	var msg mq.Message
	if err := in.Get(e.ctx, &msg, mq.GetOptions{}); err != nil {
		t.Fatalf("get: %v", err)
	}
	for name, want := range sent {
		got, ok := msg.Properties[name]
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("property %s = %T %v (present %v), want %T %v", name, got, got, ok, want, want)
		}
	}
	if len(msg.Properties) != len(sent) {
		t.Errorf("got %d properties %v, want %d", len(msg.Properties), msg.Properties, len(sent))
	}
}

func TestRejectsWhatThePortForbids(t *testing.T) {
	e := newAdapterEnv(t)
	q := e.open(e.connect(), mq.OpenOutput|mq.OpenInputShared|mq.OpenBrowse)
	for _, tc := range []struct {
		msg  mq.Message
		want mq.Reason
	}{
		{mq.Message{Priority: 10}, mq.ReasonPriorityError},
		{mq.Message{Priority: -1}, mq.ReasonPriorityError},
		{mq.Message{Expiry: -time.Second}, mq.ReasonExpiryError},
		{mq.Message{Format: "TOOLONGFMT"}, mq.ReasonFormatError},
		{mq.Message{Properties: mq.Properties{"n": 1}}, mq.ReasonPropertyTypeError},
	} {
		_, err := q.Put(e.ctx, &tc.msg, mq.PutOptions{})
		mqtest.WantReason(t, err, tc.want)
	}
	var msg mq.Message
	mqtest.WantReason(t, q.Get(e.ctx, &msg, mq.GetOptions{Browse: mq.BrowseFirst, Syncpoint: true}), mq.ReasonOptionsError)
	mqtest.WantReason(t, q.Get(e.ctx, &msg, mq.GetOptions{Wait: -time.Second}), mq.ReasonWaitIntervalError)
	_, err := e.connect().OpenQueue(e.ctx, e.queue, mq.OpenInputShared|mq.OpenInputExclusive)
	mqtest.WantReason(t, err, mq.ReasonOptionsError)
}

func TestClosedHandles(t *testing.T) {
	e := newAdapterEnv(t)
	c, err := New().Connect(e.ctx, e.target)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	q := e.open(c, mq.OpenOutput)
	if err := q.Close(); err != nil {
		t.Fatalf("close queue: %v", err)
	}
	mqtest.WantReason(t, q.Close(), mq.ReasonHobjError)
	if err := c.Close(); err != nil {
		t.Fatalf("disconnect: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second disconnect: %v", err)
	}
	_, err = c.OpenQueue(e.ctx, e.queue, mq.OpenOutput)
	mqtest.WantReason(t, err, mq.ReasonHconnError)
}

func TestConnectRejectsInvalidTarget(t *testing.T) {
	_, err := New().Connect(context.Background(), mq.Target{QueueManager: "QM1", Password: "secret"})
	if err == nil || bytes.Contains([]byte(err.Error()), []byte("secret")) {
		t.Fatalf("got %v, want a validation error without the password", err)
	}
	if _, isMQ := mq.AsError(err); isMQ {
		t.Errorf("a configuration error was reported as an MQ outcome: %v", err)
	}
}

func TestConnectOptions(t *testing.T) {
	cno := connectOptions(mq.Target{
		QueueManager: "QM1",
		Channel:      "APP.SVRCONN",
		ConnName:     "mq1(1414),mq2(1415)",
		User:         "app",
		Password:     "secret",
		ApplName:     "probe",
		TLS: mq.TLS{CipherSpec: "ANY_TLS13", KeyRepository: "/keys/key.p12", KeyRepositoryPassword: "p12-pw",
			CertLabel: "me", PeerName: "CN=QM1"},
	})
	if cno.Options&mqi.MQCNO_CLIENT_BINDING == 0 || cno.ApplName != "probe" || cno.CCDTUrl != "" {
		t.Errorf("MQCNO = options %#x, applName %q, ccdt %q", cno.Options, cno.ApplName, cno.CCDTUrl)
	}
	// Whatever DefRecon or DEFRECON say, the client must not reconnect
	// behind the pool's back.
	if cno.Options&mqi.MQCNO_RECONNECT_DISABLED == 0 || cno.Options&mqi.MQCNO_RECONNECT != 0 {
		t.Errorf("MQCNO = options %#x, applName %q, ccdt %q", cno.Options, cno.ApplName, cno.CCDTUrl)
	}
	cd := cno.ClientConn
	if cd == nil || cd.ChannelName != "APP.SVRCONN" || cd.ConnectionName != "mq1(1414),mq2(1415)" ||
		cd.SSLCipherSpec != "ANY_TLS13" || cd.SSLPeerName != "CN=QM1" || cd.CertificateLabel != "me" ||
		cd.MaxMsgLength != maxChannelMsgLength {
		t.Errorf("MQCD = %+v", cd)
	}
	if sco := cno.SSLConfig; sco == nil || sco.KeyRepository != "/keys/key.p12" || sco.KeyRepoPassword != "p12-pw" || sco.CertificateLabel != "me" {
		t.Errorf("MQSCO = %+v", sco)
	}
	csp := cno.SecurityParms
	if csp == nil || csp.AuthenticationType != mqi.MQCSP_AUTH_USER_ID_AND_PWD || csp.UserId != "app" || csp.Password != "secret" {
		t.Errorf("MQCSP: authentication type %d, user %q", csp.AuthenticationType, csp.UserId)
	}

	cno = connectOptions(mq.Target{QueueManager: "QM1", CCDTURL: "file:///ccdt.json"})
	if cno.CCDTUrl != "file:///ccdt.json" || cno.ClientConn != nil || cno.SSLConfig != nil || cno.SecurityParms != nil {
		t.Errorf("CCDT target gave MQCNO %+v", cno)
	}
}

func TestUnitConversions(t *testing.T) {
	for d, want := range map[time.Duration]int32{
		0:                          mqi.MQEI_UNLIMITED,
		time.Millisecond:           1,
		100 * time.Millisecond:     1,
		101 * time.Millisecond:     2,
		time.Minute:                600,
		100 * 365 * 24 * time.Hour: math.MaxInt32,
	} {
		if got := expiryTenths(d); got != want {
			t.Errorf("expiryTenths(%s) = %d, want %d", d, got, want)
		}
	}
	for d, want := range map[time.Duration]int32{
		time.Microsecond:        1,
		time.Second:             1000,
		1500 * time.Microsecond: 2,
		100 * 24 * time.Hour:    math.MaxInt32,
	} {
		if got := waitMillis(d); got != want {
			t.Errorf("waitMillis(%s) = %d, want %d", d, got, want)
		}
	}
}
