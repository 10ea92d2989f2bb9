package result

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Encode returns e's JSON in at most limit bytes (0: no limit). An event
// over the limit whose data.result lists "messages" (CONSUME) keeps the
// first messages that fit and says "truncated": true; the counts beside
// the list stay as they are, so nothing consumed goes uncounted. An event
// that cannot be cut to fit is an error naming the limit.
func Encode(e Event, limit int) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode result event: %w", err)
	}
	if limit <= 0 || len(body) <= limit {
		return body, nil
	}
	var res map[string]json.RawMessage
	var msgs []json.RawMessage
	if json.Unmarshal(e.Data.Result, &res) != nil || json.Unmarshal(res["messages"], &msgs) != nil || len(msgs) == 0 {
		return nil, fmt.Errorf("result event of %d bytes is over its destination's limit of %d bytes", len(body), limit)
	}
	res["truncated"] = json.RawMessage("true")
	keep := func(n int) ([]byte, error) {
		res["messages"], _ = json.Marshal(msgs[:n])
		cut := e
		cut.Data.Result, _ = json.Marshal(res)
		cut.encodedData = nil // the data changed
		return json.Marshal(cut)
	}
	// The largest prefix of the list that fits.
	n := sort.Search(len(msgs)+1, func(n int) bool {
		b, _ := keep(n)
		return len(b) > limit
	}) - 1
	if n < 0 {
		return nil, fmt.Errorf("result event is over its destination's limit of %d bytes even without its messages", limit)
	}
	return keep(n)
}
