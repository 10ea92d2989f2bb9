package daemonclient

import (
	"encoding/json"
	"net/url"
	"time"
)

// CommandState is GET /commands/{operationType}/{key}'s answer: the live
// state of one command.
type CommandState struct {
	OperationType  string    `json:"operationType"`
	IdempotencyKey string    `json:"idempotencyKey"`
	Status         string    `json:"status"`
	Attempt        int       `json:"attempt"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
	ExpiresAt      time.Time `json:"expiresAt"`
	Lease          *struct {
		Holder    string    `json:"holder"`
		ExpiresAt time.Time `json:"expiresAt"`
	} `json:"lease"`
	Progress *struct {
		Total      int64     `json:"total"`
		Done       int64     `json:"done"`
		Committed  int64     `json:"committed"`
		RatePerSec float64   `json:"ratePerSec"`
		StartedAt  time.Time `json:"startedAt"`
	} `json:"progress"`
	Result json.RawMessage `json:"result"`
}

// CommandStatePath is the API path of a command's live state, relative to
// the daemon's address.
func CommandStatePath(operation, key string) string {
	return "commands/" + url.PathEscape(operation) + "/" + url.PathEscape(key)
}
