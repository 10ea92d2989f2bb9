package executor

import "testing"

// TestMarkReplay: only the top-level replay field changes, wherever it is
// and however spaced; a nested one, or one in a string, stays.
func TestMarkReplay(t *testing.T) {
	for _, tc := range []struct{ recorded, want string }{
		{`{"status":"COMPLETED","replay":false,"tags":{}}`, `{"status":"COMPLETED","replay":true,"tags":{}}`},
		{`{"result":{"replay":false},"rawBody":"\"replay\":false", "replay" :  false }`, `{"result":{"replay":false},"rawBody":"\"replay\":false", "replay" :  true }`},
		{`{"replay":true}`, `{"replay":true}`},
	} {
		got, ok := markReplay([]byte(tc.recorded))
		if !ok || string(got) != tc.want {
			t.Errorf("markReplay(%s) = %s %v, want %s", tc.recorded, got, ok, tc.want)
		}
	}
	for _, bad := range []string{`{"status":"COMPLETED"}`, `{"replay":"false"}`, `[false]`, `{"replay":fal`, ``} {
		if got, ok := markReplay([]byte(bad)); ok {
			t.Errorf("markReplay(%s) = %s, want not ok", bad, got)
		}
	}
}
