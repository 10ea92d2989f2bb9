package main

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// TestSendRedriveDryRunThenMove dead-letters messages with PRODUCE (a fixed
// payload that starts with an MQDLH), lists them with send redrive
// --dry-run and moves them.
func TestSendRedriveDryRunThenMove(t *testing.T) {
	addr := startDaemon(t)
	h := mq.DeadLetterHeader{Reason: mq.ReasonQFull, DestQueue: "DEV.QUEUE.3", DestQMgr: "QM1", Encoding: mq.EncodingNativeLittle,
		CCSID: 1208, Format: mq.FormatString, PutApplName: "amqsdlh", PutTime: time.Now()}
	raw, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	body := base64.StdEncoding.EncodeToString(append(raw, "order 42"...))
	if out, status := mqprobe(t, "send", "produce", "--addr", addr, "--queue", "DEV.DEAD.LETTER.QUEUE", "--count", "3",
		"--payload", "fixed", "--fixed-base64", body); status != 0 {
		t.Fatalf("produce: %d %s", status, out)
	}
	out, status := mqprobe(t, "send", "redrive", "--addr", addr, "--queue", "DEV.DEAD.LETTER.QUEUE", "--dry-run", "--reason", "MQRC_Q_FULL,2085")
	var data struct {
		Result struct {
			DryRun   bool `json:"dryRun"`
			Moved    int  `json:"moved"`
			Messages []struct {
				ReasonName    string `json:"reasonName"`
				OriginalQueue string `json:"originalQueue"`
			} `json:"messages"`
			ByDestination map[string]int `json:"byDestination"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &data); err != nil || status != 0 {
		t.Fatalf("dry run: status %d, output %s", status, out)
	}
	if r := data.Result; !r.DryRun || r.Moved != 3 || len(r.Messages) != 3 || r.Messages[0].ReasonName != "MQRC_Q_FULL" ||
		r.Messages[0].OriginalQueue != "DEV.QUEUE.3" {
		t.Errorf("dry run result %s", out)
	}
	out, status = mqprobe(t, "send", "redrive", "--addr", addr, "--queue", "DEV.DEAD.LETTER.QUEUE", "--tx-size", "2", "--key", "redrive-1")
	if err := json.Unmarshal([]byte(out), &data); err != nil || status != 0 || data.Result.Moved != 3 || data.Result.ByDestination["DEV.QUEUE.3"] != 3 {
		t.Fatalf("redrive: status %d, output %s", status, out)
	}
	out, status = mqprobe(t, "send", "consume", "--addr", addr, "--queue", "DEV.QUEUE.3", "--max-messages", "5", "--wait-seconds", "0")
	if status != 0 || !strings.Contains(out, `"received": 3`) || !strings.Contains(out, `"format": "MQSTR"`) {
		t.Errorf("consume of the destination: %d %s", status, out)
	}
}
