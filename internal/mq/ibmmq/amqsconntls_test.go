//go:build ibmmq

package ibmmq

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// TestIBMSampleAmqsconntls runs IBM's amqsconntls (mq-golang's TLS
// connect sample: CipherSpec TLS_RSA_WITH_AES_128_CBC_SHA256, key
// repository ./mykey) against mqserver's DEV.TLS.SVRCONN through a TCP
// proxy. It connects only with a key repository that trusts the server's
// certificate, and then the proxy sees a TLS handshake from its first byte.
func TestIBMSampleAmqsconntls(t *testing.T) {
	bin := buildSamples(t, "amqsconntls")
	srv, pki := mqsimtest.StartTLS(t)
	proxy := mqsimtest.StartProxy(t, srv.Addr().String())
	verdicts := sampleVerdicts(t)
	const password = "mykey-passw0rd"

	run := func(t *testing.T, prepare func(dir string)) (lines []string, exitCode int) {
		t.Helper()
		verdicts.ran(t, "amqsconntls")
		dir := t.TempDir() // the sample's working directory: ./mykey is here
		prepare(dir)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "amqsconntls"), "QM1", mqserver.TLSChannel, proxy.ConnName)
		cmd.Dir = dir
		// Nothing but the program's own settings: no MQSSLKEYR, no
		// MQSAMP_USER_ID (which would ask for a password on stdin).
		cmd.Env = filteredEnv("MQSSLKEYR=", "MQKEYRPWD=", "MQSAMP_USER_ID=", "MQSERVER=")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("amqsconntls: %v (stderr %q)", err, stderr.String())
		}
		return strings.Split(strings.TrimRight(string(out), "\n"), "\n"), cmd.ProcessState.ExitCode()
	}
	refused := func(reason string) []string {
		return []string{"Connection to QM1 failed.", "MQCONNX: MQCC = MQCC_FAILED [2] MQRC = " + reason, "Done."}
	}

	t.Run("empty repository", func(t *testing.T) {
		out, code := run(t, func(dir string) {
			for _, name := range []string{"mykey.kdb", "mykey.sth"} {
				if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
		})
		expectLines(t, "amqsconntls with an empty mykey.kdb", out, refused("MQRC_KEY_REPOSITORY_ERROR [2381]"))
		if code != 2 {
			t.Errorf("exit code %d, want 2 (MQCC_FAILED)", code)
		}
	})
	t.Run("no repository", func(t *testing.T) {
		out, code := run(t, func(string) {})
		expectLines(t, "amqsconntls without mykey", out, refused("MQRC_KEY_REPOSITORY_ERROR [2381]"))
		if code != 2 {
			t.Errorf("exit code %d, want 2 (MQCC_FAILED)", code)
		}
	})
	t.Run("wrong repository", func(t *testing.T) {
		// A well-formed repository whose CA did not sign the server's certificate.
		other := mqsimtest.NewPKI(t)
		out, code := run(t, func(dir string) {
			other.KeyRepository(t, filepath.Join(dir, "mykey.kdb"), password, false, true)
		})
		expectLines(t, "amqsconntls with another CA's repository", out, refused("MQRC_SSL_INITIALIZATION_ERROR [2393]"))
		if code != 2 {
			t.Errorf("exit code %d, want 2 (MQCC_FAILED)", code)
		}
	})
	t.Run("correct repository", func(t *testing.T) {
		before := len(proxy.FirstBytes())
		out, code := run(t, func(dir string) {
			pki.KeyRepository(t, filepath.Join(dir, "mykey.kdb"), password, false, true)
		})
		expectLines(t, "amqsconntls with the CA's repository", out, []string{"Connection to QM1 succeeded.", "Done."})
		if code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
		firsts := proxy.FirstBytes()[before:]
		if len(firsts) != 1 || len(firsts[0]) < 3 || firsts[0][0] != 0x16 || firsts[0][1] != 0x03 {
			t.Errorf("the proxy saw connections starting %x, want one TLS handshake record (16 03 ..)", firsts)
		}
	})
}

// filteredEnv is this process's environment without the variables whose
// "NAME=" prefixes are given.
func filteredEnv(drop ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		keep := true
		for _, prefix := range drop {
			keep = keep && !strings.HasPrefix(kv, prefix)
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}
