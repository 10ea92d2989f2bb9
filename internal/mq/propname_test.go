package mq_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

// TestCheckPropertyName: IBM MQ's property-name rules (MQRC_PROPERTY_NAME_ERROR).
func TestCheckPropertyName(t *testing.T) {
	for _, name := range []string{"traceparent", "team", "app.trace_id", "usr.team", "mq.a", "mq_usr.a.b", "$x", "_a1", "prénom", "Rooted"[1:], "JMX", "nulls", "usr.island"} {
		if err := mq.CheckPropertyName(name); err != nil {
			t.Errorf("%q: %v, want accepted", name, err)
		}
	}
	for name, rule := range map[string]string{
		"":                        "empty",
		"NULL":                    "selector keyword NULL",
		"true":                    "selector keyword TRUE",
		"usr.Between":             "selector keyword BETWEEN",
		"JMSFoo":                  "reserved for JMS",
		"usr.JMSx":                "reserved for JMS",
		"Body":                    "message trees",
		"Root.x":                  "message trees",
		"a..b":                    "two dots",
		"a.":                      "end with a dot",
		".a":                      "start",
		"mq.a.b":                  "reserved for IBM MQ",
		"MQ.x.y":                  "reserved for IBM MQ",
		"1abc":                    "Java identifiers",
		"a-b":                     "Java identifiers",
		"a b":                     "Java identifiers",
		strings.Repeat("a", 4096): "at most 4095",
	} {
		if err := mq.CheckPropertyName(name); err == nil || !strings.Contains(err.Error(), rule) {
			t.Errorf("%.20q: %v, want an error saying %q", name, err, rule)
		}
	}
}

// TestPutRefusesPropertyNamesIBMRefuses: the embedded queue manager answers
// a put with such a name as IBM MQ does, 2442, and stores nothing.
func TestPutRefusesPropertyNamesIBMRefuses(t *testing.T) {
	b := embedded.NewDefault()
	ctx := context.Background()
	c, err := b.Connect(ctx, mq.Target{QueueManager: "QM1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q, err := c.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput|mq.OpenInquire)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	_, err = q.Put(ctx, &mq.Message{Payload: []byte("x"), Properties: mq.Properties{"JMSFoo": "v"}}, mq.PutOptions{})
	mqtest.WantReason(t, err, mq.ReasonPropertyNameError)
	depth, err := q.Inquire(ctx)
	if err != nil || depth.CurrentDepth != 0 {
		t.Errorf("depth %+v %v, want nothing put", depth, err)
	}
}
