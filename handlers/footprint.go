package handlers

import (
	"encoding/base64"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
)

// Footprint is the payload bytes cmd holds while its handler runs, for the
// daemon's memory budget. PRODUCE builds one body and reuses it for every
// message, so its count does not matter; a TEST holds the body it puts and
// the one it gets back; a CONSUME holds what it captures into its result.
// DEPTH and CONNECTION_TEST move no payload.
func (o *Operations) Footprint(cmd command.Command) int64 {
	switch cmd.OperationType {
	case command.Produce:
		return bodyBytes(cmd)
	case command.Test:
		return 2 * bodyBytes(cmd)
	case command.Consume:
		return int64(o.capture.MaxBytes)
	}
	return 0
}

// bodyBytes is the size of the one message body PRODUCE or TEST builds.
func bodyBytes(cmd command.Command) int64 {
	var size int64
	if cmd.Batch != nil {
		size = int64(cmd.Batch.MessageSizeBytes)
	}
	if p := cmd.Payload; p != nil {
		switch p.Mode {
		case command.PayloadFixed:
			if size == 0 {
				size = int64(base64.StdEncoding.DecodedLen(len(p.FixedBase64)))
			}
		case command.PayloadTemplate:
			size = int64(renderedBound(p.Template))
		}
	}
	return size
}

// renderedBound is the most bytes a template renders to: its literal text
// and every placeholder at its longest.
func renderedBound(template string) int {
	longest := map[segmentKind]int{segSeq: 20, segUUID: 36, segTimestamp: len(time.RFC3339Nano)}
	n := 0
	for _, s := range compileTemplate(template) {
		n += len(s.text) + longest[s.kind]
	}
	return n
}
