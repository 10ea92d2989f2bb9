package idempotency

import "time"

// Clock tells the engine the time; tests inject one they can move.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now().UTC() }

// SystemClock is the wall clock, in UTC.
var SystemClock Clock = systemClock{}
