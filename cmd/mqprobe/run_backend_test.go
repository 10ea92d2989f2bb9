//go:build !ibmmq

package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestRunIBMMQBackendErrorsPointAtTheDocs: asking a build without IBM MQ
// for the ibmmq backend, or leaving out the inline allowlist, says what to
// do and where the docs explain it.
func TestRunIBMMQBackendErrorsPointAtTheDocs(t *testing.T) {
	defer slog.SetDefault(slog.Default()) // run sets the daemon's logger as the default
	t.Setenv("MQPROBE_IDEMPOTENCY_STORE", "memory")
	t.Setenv("MQPROBE_LOG_LEVEL", "error")
	t.Setenv("MQPROBE_HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("MQPROBE_MQ_BACKEND", "ibmmq")
	for _, tc := range []struct {
		hosts string
		want  []string
	}{
		{"", []string{"targets.inline.hosts", "docs/security.md#target-profiles-and-allowlists", "targets.allowInline false"}},
		{"127.0.0.1:1414", []string{`mq.backend: "ibmmq" is not available in this build`, "-tags ibmmq", "docs/deployment.md#building-with-ibm-mq"}},
	} {
		t.Setenv("MQPROBE_TARGETS_INLINE_HOSTS", tc.hosts)
		_, stderr, status := runCLI(t, context.Background(), "run")
		for _, want := range tc.want {
			if status == 0 || !strings.Contains(stderr, want) {
				t.Errorf("run, inline hosts %q: exit %d, stderr %s; want an error with %q", tc.hosts, status, stderr, want)
			}
		}
	}
}
