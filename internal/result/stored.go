package result

import "encoding/json"

// Stored is a command's outcome as the idempotency engine recorded it, read
// back by operation type and key: whichever instance ran the command, and
// long after its event was published.
type Stored struct {
	// Status is StatusCompleted, StatusFailed or StatusInProgress (claimed,
	// perhaps by another instance, and not finished).
	Status Status
	// Data is a completed command's result data exactly as first answered
	// (the JSON body replays repeat); nil otherwise.
	Data json.RawMessage
	// Error is the recorded message of a failed command; "" otherwise.
	Error string
}
