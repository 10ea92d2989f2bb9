package testenv

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestJaegerOTLPHTTPRoundTrip sends one span as raw OTLP/HTTP JSON to the
// receiver Jaeger() provides and reads it back by trace id over the query API.
func TestJaegerOTLPHTTPRoundTrip(t *testing.T) {
	ep, stop, err := Jaeger()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for name, u := range map[string]string{"OTLPHTTP": ep.OTLPHTTP, "OTLPGRPC": ep.OTLPGRPC, "Query": ep.Query} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") && !strings.HasPrefix(u, "http://localhost:") {
			if u == "" && name == "OTLPGRPC" {
				continue // optional when the environment names the server
			}
			t.Errorf("Endpoints.%s = %q, want http://127.0.0.1:PORT", name, u)
		}
	}

	traceID, spanID := randomHex(t, 16), randomHex(t, 8)
	if _, err := JaegerTrace(ep.Query, traceID); !errors.Is(err, ErrTraceNotFound) {
		t.Fatalf("JaegerTrace(unsent trace) error = %v, want ErrTraceNotFound", err)
	}

	start := time.Now()
	body := fmt.Sprintf(`{"resourceSpans":[{
	  "resource":{"attributes":[{"key":"service.name","value":{"stringValue":"mqprobe-testenv"}}]},
	  "scopeSpans":[{"scope":{"name":"testenv"},"spans":[{
	    "traceId":%q,"spanId":%q,"name":"testenv.jaeger-roundtrip","kind":1,
	    "startTimeUnixNano":"%d","endTimeUnixNano":"%d",
	    "attributes":[{"key":"mqprobe.test","value":{"boolValue":true}}]}]}]}]}`,
		traceID, spanID, start.UnixNano(), start.Add(time.Millisecond).UnixNano())
	resp, err := http.Post(strings.TrimRight(ep.OTLPHTTP, "/")+"/v1/traces", "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	reply, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/traces: %s: %s", resp.Status, reply)
	}

	names, err := AwaitJaegerTrace(ep.Query, traceID, 1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != "testenv.jaeger-roundtrip" {
		t.Fatalf("trace %s spans = %q, want [testenv.jaeger-roundtrip]", traceID, names)
	}

	if ep.OTLPGRPC != "" {
		u, err := url.Parse(ep.OTLPGRPC)
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
		if err != nil {
			t.Fatalf("OTLP/gRPC endpoint %s: %v", ep.OTLPGRPC, err)
		}
		c.Close()
	}
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
