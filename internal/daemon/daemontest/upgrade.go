package daemontest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// Version is one mqprobe binary of a mixed-version (rolling upgrade) test:
// "old" (PreviousRelease) or "new" (this tree).
type Version struct {
	Label string
	Bin   string
}

// Versions are the previous release's binary (BinaryAt PreviousRelease) and
// this tree's (Binary), both with the test binary's build tags.
func Versions(t testing.TB) (previous, current Version) {
	t.Helper()
	return Version{Label: "old", Bin: BinaryAt(t, PreviousRelease)}, Version{Label: "new", Bin: Binary(t)}
}

// upgradeHTTP answers a command that runs for seconds on a busy machine.
var upgradeHTTP = &http.Client{Timeout: 60 * time.Second}

// retryUndecidedWithin bounds how long Post repeats a request answered 503.
const retryUndecidedWithin = 90 * time.Second

// Post sends body as application/json to the process's path with headers
// (name, value pairs) and returns the answer, failing t if there is none.
// It repeats the request while the answer is 503 with Retry-After, as the
// API asks a client to: a store blip while the outcome was recorded leaves
// it to a repeat with the same key, which replays or resumes the command.
func (p *Process) Post(t testing.TB, path, body string, headers ...string) Response {
	t.Helper()
	var r Response
	testenv.UntilEvery(retryUndecidedWithin, time.Second, func() bool {
		r = p.postOnce(t, path, body, headers...)
		undecided := r.Status == http.StatusServiceUnavailable && r.Header.Get("Retry-After") != ""
		if undecided {
			t.Logf("%s: POST %s: %d %s; repeating it", p.Name, path, r.Status, r.Body)
		}
		return !undecided
	})
	return r
}

// postOnce is one request of Post.
func (p *Process) postOnce(t testing.TB, path, body string, headers ...string) Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.Base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := upgradeHTTP.Do(req)
	if err != nil {
		t.Fatalf("%s: POST %s: %v", p.Name, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: POST %s: reading the answer: %v", p.Name, path, err)
	}
	return Response{resp.StatusCode, resp.Header, data}
}

// SameApartFromReplay says how a replayed result (an HTTP body or a result
// event's data) differs from the original, or nil when it does not: the
// one field allowed to differ is "replay", which a replay states truthfully
// (a release before issue 29 sent the stored "replay":false). An absent
// "keyGenerated" equals false: a release before it had no such field.
func SameApartFromReplay(original, replay []byte) error {
	var a, b map[string]any
	if err := json.Unmarshal(original, &a); err != nil {
		return fmt.Errorf("the original is not a JSON object (%v): %s", err, original)
	}
	if err := json.Unmarshal(replay, &b); err != nil {
		return fmt.Errorf("the replay is not a JSON object (%v): %s", err, replay)
	}
	for _, m := range []map[string]any{a, b} {
		delete(m, "replay")
		if m["keyGenerated"] == false {
			delete(m, "keyGenerated")
		}
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	var diffs []string
	for k, v := range a {
		if w, ok := b[k]; !ok || !reflect.DeepEqual(v, w) {
			diffs = append(diffs, fmt.Sprintf("%s: %s, replayed as %s", k, compact(v, true), compact(w, ok)))
		}
	}
	for k, w := range b {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: absent, replayed as %s", k, compact(w, true)))
		}
	}
	return fmt.Errorf("the replay differs from the original beyond \"replay\": %s\noriginal: %s\nreplay:   %s", strings.Join(diffs, "; "), original, replay)
}

func compact(v any, present bool) string {
	if !present {
		return "absent"
	}
	data, _ := json.Marshal(v)
	return string(data)
}
