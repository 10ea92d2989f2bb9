package result

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func consumeEvent(messages int) Event {
	var list []string
	for i := range messages {
		list = append(list, fmt.Sprintf(`{"msgIdBase64":"id-%04d","payloadBase64":"%s"}`, i, strings.Repeat("A", 100)))
	}
	data := Data{Status: StatusCompleted, IdempotencyKey: "k",
		Result: json.RawMessage(fmt.Sprintf(`{"received":%d,"browsed":0,"messages":[%s],"truncated":false}`, messages, strings.Join(list, ",")))}
	return New("mqprobe/test", data, time.Now())
}

func TestEncodeCutsTheListToTheLimit(t *testing.T) {
	e := consumeEvent(100)
	body, err := Encode(e, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) > 4096 {
		t.Fatalf("encoded %d bytes, over the 4096 limit", len(body))
	}
	var got Event
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Received  int
		Truncated bool
		Messages  []json.RawMessage
	}
	if err := json.Unmarshal(got.Data.Result, &r); err != nil {
		t.Fatal(err)
	}
	if r.Received != 100 || !r.Truncated || len(r.Messages) == 0 || len(r.Messages) >= 100 {
		t.Errorf("received %d truncated %v listed %d, want the count kept, some listed, truncated", r.Received, r.Truncated, len(r.Messages))
	}
	if one, _ := Encode(e, 0); len(one) <= 4096 {
		t.Errorf("no limit cut the event to %d bytes", len(one))
	}
	if _, err := Encode(consumeEvent(0), 100); err == nil || !strings.Contains(err.Error(), "limit of 100 bytes") {
		t.Errorf("an event that cannot fit: %v, want an error naming the limit", err)
	}
}
