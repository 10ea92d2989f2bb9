package testenv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The variables that point tests at a running OTLP receiver backed by Jaeger.
// MQPROBE_TEST_JAEGER_QUERY and MQPROBE_TEST_OTLP_ENDPOINT go together;
// MQPROBE_TEST_OTLP_GRPC_ENDPOINT is optional (Endpoints.OTLPGRPC stays
// empty without it). scripts/jaeger.sh start prints all three as KEY=VALUE.
const (
	JaegerQueryEnv      = "MQPROBE_TEST_JAEGER_QUERY"
	OTLPEndpointEnv     = "MQPROBE_TEST_OTLP_ENDPOINT"
	OTLPGRPCEndpointEnv = "MQPROBE_TEST_OTLP_GRPC_ENDPOINT"
)

// Endpoints are the base URLs of a Jaeger for tests, each http://host:port
// with no path: OTLPHTTP takes OTLP/HTTP at /v1/traces (the form of
// OTEL_EXPORTER_OTLP_ENDPOINT), OTLPGRPC takes OTLP/gRPC (the form of
// OTEL_EXPORTER_OTLP_ENDPOINT with OTEL_EXPORTER_OTLP_PROTOCOL=grpc; strip
// the scheme for otlptracegrpc.WithEndpoint), Query serves Jaeger's HTTP JSON
// API (/api/traces/{id}, /api/services).
type Endpoints struct {
	OTLPHTTP, OTLPGRPC, Query string
}

// Jaeger returns the endpoints of a Jaeger: the one named by
// MQPROBE_TEST_JAEGER_QUERY and MQPROBE_TEST_OTLP_ENDPOINT (and
// MQPROBE_TEST_OTLP_GRPC_ENDPOINT), or a private in-memory one it starts with
// scripts/jaeger.sh, which builds it first when needed (about a minute and a
// half with a cold Go build cache). stop ends a server it started (and is a
// no-op otherwise).
func Jaeger() (ep Endpoints, stop func(), err error) {
	query, otlp := os.Getenv(JaegerQueryEnv), os.Getenv(OTLPEndpointEnv)
	switch {
	case query != "" && otlp != "":
		return Endpoints{OTLPHTTP: otlp, OTLPGRPC: os.Getenv(OTLPGRPCEndpointEnv), Query: query}, func() {}, nil
	case query != "" || otlp != "":
		return Endpoints{}, nil, fmt.Errorf("%s and %s must be set together (got %s=%q, %s=%q)",
			JaegerQueryEnv, OTLPEndpointEnv, JaegerQueryEnv, query, OTLPEndpointEnv, otlp)
	}
	root, err := RepoRoot()
	if err != nil {
		return Endpoints{}, nil, err
	}
	dir, err := os.MkdirTemp("", "mqprobe-jaeger-")
	if err != nil {
		return Endpoints{}, nil, err
	}
	script := filepath.Join(root, "scripts", "jaeger.sh")
	stop = func() { _ = exec.Command("bash", script, "stop", dir).Run() }
	var stderr bytes.Buffer
	cmd := exec.Command("bash", script, "start", dir)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		stop()
		return Endpoints{}, nil, fmt.Errorf("Jaeger is neither given by %s and %s nor startable (%s start): %w\n%s",
			JaegerQueryEnv, OTLPEndpointEnv, script, err, stderr.String())
	}
	vars := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok {
			vars[k] = v
		}
	}
	ep = Endpoints{OTLPHTTP: vars[OTLPEndpointEnv], OTLPGRPC: vars[OTLPGRPCEndpointEnv], Query: vars[JaegerQueryEnv]}
	if ep.OTLPHTTP == "" || ep.OTLPGRPC == "" || ep.Query == "" {
		stop()
		return Endpoints{}, nil, fmt.Errorf("%s start printed no endpoints:\n%s\n%s", script, out, stderr.String())
	}
	return ep, stop, nil
}

// ErrTraceNotFound is returned (wrapped) by JaegerTrace when the query API
// does not know the trace (yet: the collector stores spans asynchronously).
var ErrTraceNotFound = errors.New("trace not found")

// JaegerTrace fetches a trace from the query API at the base URL query
// (GET /api/traces/{traceID}, traceID in the 32 hex digits of OTLP) and
// returns the names of its spans, in the order the API lists them.
func JaegerTrace(query, traceID string) ([]string, error) {
	u := strings.TrimRight(query, "/") + "/api/traces/" + url.PathEscape(traceID)
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("GET %s: %w", u, ErrTraceNotFound)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", u, resp.Status, body)
	}
	var doc struct {
		Data []struct {
			TraceID string `json:"traceID"`
			Spans   []struct {
				OperationName string `json:"operationName"`
			} `json:"spans"`
		} `json:"data"`
		Errors []struct {
			Code int    `json:"code"`
			Msg  string `json:"msg"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("GET %s: decoding %q: %w", u, body, err)
	}
	if len(doc.Errors) > 0 {
		return nil, fmt.Errorf("GET %s: %d %s", u, doc.Errors[0].Code, doc.Errors[0].Msg)
	}
	if len(doc.Data) == 0 {
		return nil, fmt.Errorf("GET %s: %w", u, ErrTraceNotFound)
	}
	var names []string
	for _, t := range doc.Data {
		for _, s := range t.Spans {
			names = append(names, s.OperationName)
		}
	}
	return names, nil
}

// AwaitJaegerTrace polls JaegerTrace until the trace holds at least minSpans
// spans or timeout passes, and returns the span names it last saw.
func AwaitJaegerTrace(query, traceID string, minSpans int, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	for {
		names, err := JaegerTrace(query, traceID)
		if err != nil && !errors.Is(err, ErrTraceNotFound) {
			return names, err
		}
		if err == nil && len(names) >= minSpans {
			return names, nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return nil, fmt.Errorf("after %s: %w", timeout, err)
			}
			return names, fmt.Errorf("after %s: trace %s has %d spans %q, want at least %d",
				timeout, traceID, len(names), names, minSpans)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
