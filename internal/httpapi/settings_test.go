package httpapi_test

import (
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/httpapi"
)

// TestAllowedHosts: http.allowedHosts takes names and addresses as a Host
// header carries them, with an optional port; anything else is refused
// naming the entry.
func TestAllowedHosts(t *testing.T) {
	c := httpapi.DefaultSettings()
	c.AllowedHosts = []string{"mqprobe.lab.example.com", "jumphost:18080", "10.0.0.5", "[2001:db8::5]:8443", "::1", "[::1]", "host_1.example."}
	if err := c.Validate(); err != nil {
		t.Fatalf("valid entries refused: %v", err)
	}
	for _, bad := range []string{"http://mqprobe.example.com", "mqprobe.example.com/x", "*.example.com", "", "host:0", "host:99999", "host:port", "a b"} {
		c := httpapi.DefaultSettings()
		c.AllowedHosts = []string{"ok.example.com", bad}
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "http.allowedHosts[1]: must be a host name or IP address, optionally with :port") {
			t.Errorf("entry %q: %v; want http.allowedHosts[1] refused", bad, err)
		}
	}
}

// TestResultsSettingsValidate: results.maxReplyBytes must be positive.
func TestResultsSettingsValidate(t *testing.T) {
	if err := (httpapi.ResultsSettings{MaxReplyBytes: httpapi.DefaultMaxReplyBytes}).Validate(); err != nil {
		t.Errorf("default refused: %v", err)
	}
	err := httpapi.ResultsSettings{}.Validate()
	if err == nil || err.Error() != "results.maxReplyBytes: must be greater than 0 (got 0)" {
		t.Errorf("zero accepted or misnamed: %v", err)
	}
}
