package awsbus

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// LoadConfig wraps the HTTP client only after the SDK has applied
// AWS_CA_BUNDLE, which it cannot do to a client it did not build.
func TestLoadConfigWithCABundle(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(bundle, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CA_BUNDLE", bundle)
	cfg, err := LoadConfig(t.Context())
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	if _, ok := cfg.HTTPClient.(bufferedRequests); !ok {
		t.Errorf("HTTP client is %T", cfg.HTTPClient)
	}
}

func TestBufferedRequestsSendKnownLength(t *testing.T) {
	var gotLength int64
	var gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotLength = r.ContentLength
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
	}))
	defer srv.Close()

	// A body of unknown length would otherwise go out chunked.
	body := io.MultiReader(strings.NewReader("hello "), strings.NewReader("world"))
	req, err := http.NewRequest(http.MethodPost, srv.URL, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := bufferedRequests{next: srv.Client()}.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotLength != int64(len("hello world")) || gotBody != "hello world" {
		t.Errorf("server got length %d, body %q", gotLength, gotBody)
	}
}
