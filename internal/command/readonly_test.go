package command

import "testing"

// TestReadOnly: only commands that change nothing on the queue manager are
// read-only; the fields that make a CONSUME or a REDRIVE one are read from
// the command as sent.
func TestReadOnly(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	for _, c := range []struct {
		body string
		want bool
	}{
		{minimalDepth, true},
		{minimalConnectionTest, true},
		{`{"operationType":"CONSUME","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"browseOnly":true}`, true},
		{minimalConsume, false},
		{`{"operationType":"REDRIVE","target":{"queueManager":"QM1","queue":"DEV.DEAD.LETTER.QUEUE"},"dryRun":true}`, true},
		{minimalRedrive, false},
		{minimalProduce, false},
		{minimalTest, false},
		{minimalStopTest, false},
	} {
		if got := mustDecode(t, d, bus(c.body)).Command.ReadOnly(); got != c.want {
			t.Errorf("%s: ReadOnly() = %v, want %v", c.body, got, c.want)
		}
	}
}
