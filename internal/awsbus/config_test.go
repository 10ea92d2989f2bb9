package awsbus

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestLoadConfigOnRealDefaults loads the configuration the way the daemon
// and `mqprobe store init` do, in the environments they meet: none of the
// machine's variables (an ECS task, an EKS pod), a CA bundle, a profile of
// a shared config file. Each makes real SQS and SNS calls; the TLS cases go
// through an HTTPS endpoint whose certificate only the bundle trusts.
func TestLoadConfigOnRealDefaults(t *testing.T) {
	ca := newTestCA(t)
	for _, e := range emulators {
		t.Run(e.name, func(t *testing.T) { loadConfigCases(t, ca, e.endpoint) })
	}
}

func loadConfigCases(t *testing.T, ca *testCA, endpoint string) {
	tlsEndpoint := ca.httpsProxy(t, endpoint)
	cases := []struct {
		name     string
		endpoint string
		env      func(t *testing.T) map[string]string
	}{
		{"SDK defaults", endpoint, func(*testing.T) map[string]string { return nil }},
		{"AWS_CA_BUNDLE", tlsEndpoint, func(*testing.T) map[string]string {
			return map[string]string{"AWS_CA_BUNDLE": ca.bundle}
		}},
		{"AWS_PROFILE with ca_bundle in a shared config file", tlsEndpoint, func(t *testing.T) map[string]string {
			file := filepath.Join(t.TempDir(), "config")
			profile := fmt.Sprintf("[profile mqprobe]\nregion = us-east-1\nca_bundle = %s\n", ca.bundle)
			if err := os.WriteFile(file, []byte(profile), 0o600); err != nil {
				t.Fatal(err)
			}
			return map[string]string{"AWS_CONFIG_FILE": file, "AWS_PROFILE": "mqprobe", "AWS_REGION": ""}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testenv.ClearMachineEnv(t)
			vars := map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
				"AWS_ENDPOINT_URL_SQS": c.endpoint, "AWS_ENDPOINT_URL_SNS": c.endpoint}
			for k, v := range c.env(t) {
				vars[k] = v
			}
			for k, v := range vars {
				if v != "" {
					t.Setenv(k, v)
				}
			}
			cfg, err := LoadConfig(t.Context())
			if err != nil {
				t.Fatalf("LoadConfig: %v", err)
			}
			if cfg.Region != "us-east-1" {
				t.Errorf("region %q, want us-east-1", cfg.Region)
			}
			roundTrip(t, cfg)
		})
	}

	t.Run("an untrusted certificate is refused", func(t *testing.T) {
		testenv.ClearMachineEnv(t)
		for k, v := range map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test",
			"AWS_SECRET_ACCESS_KEY": "test", "AWS_ENDPOINT_URL_SQS": tlsEndpoint} {
			t.Setenv(k, v)
		}
		cfg, err := LoadConfig(t.Context())
		if err != nil {
			t.Fatalf("LoadConfig: %v", err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		if _, err := sqs.NewFromConfig(cfg).ListQueues(ctx, &sqs.ListQueuesInput{}); err == nil {
			t.Error("a call through a certificate no bundle trusts succeeded")
		}
	})
}

// roundTrip creates a queue and a topic, sends a message and receives it.
func roundTrip(t *testing.T, cfg aws.Config) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	sqsc, snsc := sqs.NewFromConfig(cfg), sns.NewFromConfig(cfg)
	name := uniqueName(t)
	q, err := sqsc.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	defer sqsc.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: q.QueueUrl})
	if _, err := sqsc.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hello")}); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	out, err := sqsc.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 2})
	if err != nil {
		t.Fatalf("ReceiveMessage: %v", err)
	}
	if len(out.Messages) != 1 || aws.ToString(out.Messages[0].Body) != "hello" {
		t.Errorf("received %+v", out.Messages)
	}
	topic, err := snsc.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(name)})
	if err != nil {
		t.Fatalf("CreateTopic: %v", err)
	}
	_, _ = snsc.DeleteTopic(context.Background(), &sns.DeleteTopicInput{TopicArn: topic.TopicArn})
}

// testCA is a certificate authority written as a PEM bundle.
type testCA struct {
	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
	bundle string // its certificate, PEM
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mqprobe test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(bundle, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, bundle: bundle}
}

// httpsProxy serves target over HTTPS on 127.0.0.1 with a certificate the
// CA signed, and returns its URL.
func (ca *testCA) httpsProxy(t *testing.T, target string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(httputil.NewSingleHostReverseProxy(u))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}
