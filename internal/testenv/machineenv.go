package testenv

import (
	"os"
	"strings"
	"testing"
)

// IsMachineVariable reports whether the environment variable name changes
// how the AWS SDK or Go's HTTP client behaves on one machine and not on
// another: every AWS_* variable (CA bundle, profile, shared config and
// credentials files, region, endpoints, credentials) and the proxy
// variables in either case. A container on ECS or EKS has none of them
// unless its task definition sets them; scripts/run-tests.sh removes the
// same set before running the tests.
func IsMachineVariable(name string) bool {
	switch strings.ToUpper(name) {
	case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY":
		return true
	}
	return strings.HasPrefix(name, "AWS_")
}

// UnsetMachineEnv unsets every machine variable (IsMachineVariable) in this
// process. The TestMain of each package whose tests reach AWS calls it
// first, so they see a container's environment however they were started.
func UnsetMachineEnv() {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); IsMachineVariable(name) {
			os.Unsetenv(name)
		}
	}
}

// ClearMachineEnv unsets every machine variable (IsMachineVariable) for the
// rest of the test and restores them when it ends: for a test that sets
// some of them itself. Like t.Setenv it cannot be used in parallel tests.
func ClearMachineEnv(t testing.TB) {
	t.Helper()
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if !IsMachineVariable(name) {
			continue
		}
		t.Setenv(name, value) // registers the restore
		if err := os.Unsetenv(name); err != nil {
			t.Fatalf("unset %s: %v", name, err)
		}
	}
}

// WithoutMachineEnv returns env (NAME=value entries) without the machine
// variables: the environment of a process started the way a container
// starts it.
func WithoutMachineEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !IsMachineVariable(name) {
			out = append(out, kv)
		}
	}
	return out
}
