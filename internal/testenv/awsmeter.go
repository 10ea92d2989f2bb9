package testenv

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Usage is what requests cost in AWS's billing units, counted on the wire.
type Usage struct {
	// Calls counts requests by operation as sent ("PutItem",
	// "SendMessage"); a ReceiveMessage that returned no message counts as
	// "ReceiveMessage (empty)".
	Calls map[string]int
	// WRU and RRU are DynamoDB's request units computed from item sizes,
	// not from what an emulator reports: a write is 1 WRU per KB of the
	// larger of the old and the new item, plus 1 per index whose keys it
	// sets; a read 1 RRU per 4 KB read strongly consistent, half that
	// eventually consistent.
	WRU, RRU float64
	// SQSRequests and SNSPublishes are billed requests: each 64 KB chunk
	// of a request's body counts as one. Empty receives are apart in
	// SQSIdleRequests: their number follows time and pollers, not commands.
	SQSRequests, SQSIdleRequests, SNSPublishes float64
}

// Add is u and v together.
func (u Usage) Add(v Usage) Usage {
	calls := maps.Clone(u.Calls)
	if calls == nil {
		calls = map[string]int{}
	}
	for op, n := range v.Calls {
		calls[op] += n
	}
	return Usage{Calls: calls, WRU: u.WRU + v.WRU, RRU: u.RRU + v.RRU, SQSRequests: u.SQSRequests + v.SQSRequests,
		SQSIdleRequests: u.SQSIdleRequests + v.SQSIdleRequests, SNSPublishes: u.SNSPublishes + v.SNSPublishes}
}

// AWSMeter is a reverse proxy on 127.0.0.1 in front of one AWS service's
// endpoint that bills every request going through it (Usage).
type AWSMeter struct {
	// URL is the proxy's endpoint: give it to the client instead of the
	// target.
	URL     string
	service string
	target  *url.URL
	// DynamoDB: the table's key attributes and each index's hash key.
	tableKey  []string
	indexKeys [][]string

	mu    sync.Mutex
	usage Usage
}

// MeterSQS, MeterSNS and MeterDynamoDB start an AWSMeter in front of
// target, stopped when the test ends. A DynamoDB meter reads the item a
// write changes before and after it (straight from target, not billed) to
// size it; tableKey names the table's key attributes, indexKeys the hash
// attributes of each secondary index.
func MeterSQS(t testing.TB, target string) *AWSMeter { return startMeter(t, "sqs", target, nil, nil) }

// MeterSNS: see MeterSQS.
func MeterSNS(t testing.TB, target string) *AWSMeter { return startMeter(t, "sns", target, nil, nil) }

// MeterDynamoDB: see MeterSQS.
func MeterDynamoDB(t testing.TB, target string, tableKey []string, indexKeys [][]string) *AWSMeter {
	return startMeter(t, "dynamodb", target, tableKey, indexKeys)
}

func startMeter(t testing.TB, service, target string, tableKey []string, indexKeys [][]string) *AWSMeter {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("%s meter target %q: %v", service, target, err)
	}
	m := &AWSMeter{service: service, target: u, tableKey: tableKey, indexKeys: indexKeys, usage: Usage{Calls: map[string]int{}}}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		op := operation(r)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if m.service == "dynamodb" {
			m.dynamoDB(rw, r, op, body, proxy)
			return
		}
		rec := &recordingWriter{ResponseWriter: rw}
		proxy.ServeHTTP(rec, r)
		m.bill(op, body, rec.body.Bytes())
	}))
	t.Cleanup(srv.Close)
	m.URL = srv.URL
	return m
}

// Reset returns the usage so far and starts from zero.
func (m *AWSMeter) Reset() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.usage
	m.usage = Usage{Calls: map[string]int{}}
	return u
}

// chunks64K is how many requests AWS bills a request body of n bytes as.
func chunks64K(n int) float64 { return math.Max(1, math.Ceil(float64(n)/65536)) }

func (m *AWSMeter) bill(op string, req, resp []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.service == "sqs" && op == "ReceiveMessage" && !bytes.Contains(resp, []byte("ReceiptHandle")):
		m.usage.Calls["ReceiveMessage (empty)"]++
		m.usage.SQSIdleRequests++
	case m.service == "sqs":
		m.usage.Calls[op]++
		m.usage.SQSRequests += chunks64K(len(req))
	case op == "Publish" || op == "PublishBatch":
		m.usage.Calls[op]++
		m.usage.SNSPublishes += chunks64K(len(req))
	default: // SNS management calls are not billed per request
		m.usage.Calls[op]++
	}
}

type item = map[string]map[string]json.RawMessage

// dynamoRequest is the part of a DynamoDB request the meter reads.
type dynamoRequest struct {
	TableName                string
	Key, Item                item
	UpdateExpression         string
	ExpressionAttributeNames map[string]string
	ConsistentRead           bool
	RequestItems             map[string]struct{ ConsistentRead bool }
}

// dynamoResponse is the part of a DynamoDB answer the meter reads.
type dynamoResponse struct {
	Item      item
	Items     []item
	Responses map[string][]item
}

func (m *AWSMeter) dynamoDB(rw http.ResponseWriter, r *http.Request, op string, body []byte, proxy http.Handler) {
	var req dynamoRequest
	_ = json.Unmarshal(body, &req) // an operation the meter does not size is still counted
	write := op == "PutItem" || op == "UpdateItem" || op == "DeleteItem"
	var key item
	var before int
	if write {
		key = req.Key
		if op == "PutItem" {
			key = item{}
			for _, a := range m.tableKey {
				key[a] = req.Item[a]
			}
		}
		before, _ = m.itemSize(r.Context(), r.Header, req.TableName, key)
	}
	// A plain answer, so that the meter can read it.
	r.Header.Set("Accept-Encoding", "identity")
	rec := &recordingWriter{ResponseWriter: rw}
	proxy.ServeHTTP(rec, r)
	var resp dynamoResponse
	_ = json.Unmarshal(rec.body.Bytes(), &resp)
	after := 0
	if write {
		after, _ = m.itemSize(r.Context(), r.Header, req.TableName, key)
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	m.usage.Calls[op]++
	readFactor := 0.5
	if req.ConsistentRead {
		readFactor = 1
	}
	switch {
	case write:
		m.usage.WRU += math.Max(1, math.Ceil(float64(max(before, after))/1024))
		if rec.status == http.StatusOK {
			for _, keys := range m.indexKeys {
				if setsKey(op, req, keys, before > 0) {
					m.usage.WRU++
				}
			}
		}
	case op == "GetItem":
		m.usage.RRU += readFactor * math.Max(1, math.Ceil(float64(ItemSize(resp.Item))/4096))
	case op == "Query" || op == "Scan":
		total := 0
		for _, it := range resp.Items {
			total += ItemSize(it)
		}
		m.usage.RRU += readFactor * math.Max(1, math.Ceil(float64(total)/4096))
	case op == "BatchGetItem":
		for table, items := range resp.Responses {
			f := 0.5
			if req.RequestItems[table].ConsistentRead {
				f = 1
			}
			for _, it := range items {
				m.usage.RRU += f * math.Max(1, math.Ceil(float64(ItemSize(it))/4096))
			}
		}
	}
}

// setsKey says whether a write sets (or, deleting, removes) one of an
// index's key attributes.
func setsKey(op string, req dynamoRequest, keys []string, existed bool) bool {
	if op == "DeleteItem" {
		return existed
	}
	set, remove, _ := strings.Cut(req.UpdateExpression, " REMOVE ")
	for _, attr := range keys {
		if op == "PutItem" {
			if _, ok := req.Item[attr]; ok {
				return true
			}
			continue
		}
		names := []string{attr}
		for placeholder, name := range req.ExpressionAttributeNames {
			if name == attr {
				names = append(names, placeholder)
			}
		}
		for _, n := range names {
			q := regexp.QuoteMeta(n)
			if regexp.MustCompile(`(^|[\s,])`+q+`\s*=`).MatchString(set) ||
				regexp.MustCompile(`(^|[\s,])`+q+`($|[\s,])`).MatchString(remove) {
				return true
			}
		}
	}
	return false
}

// ItemSize is the size of the item of table whose string key attributes
// are key, read strongly consistent from the target, not billed (0: absent).
func (m *AWSMeter) ItemSize(ctx context.Context, table string, key map[string]string) (int, error) {
	k := item{}
	for name, v := range key {
		s, err := json.Marshal(v)
		if err != nil {
			return 0, err
		}
		k[name] = map[string]json.RawMessage{"S": s}
	}
	// A well-formed signature the emulators accept without checking it.
	header := http.Header{}
	header.Set("X-Amz-Date", time.Now().UTC().Format("20060102T150405Z"))
	header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=local/"+time.Now().UTC().Format("20060102")+
		"/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00")
	return m.itemSize(ctx, header, table, k)
}

// itemSize reads the item key names straight from the target, signed as
// the client's request header is (the emulators do not check
// signatures), and returns its size (0: absent).
func (m *AWSMeter) itemSize(ctx context.Context, header http.Header, table string, key item) (int, error) {
	body, err := json.Marshal(map[string]any{"TableName": table, "Key": key, "ConsistentRead": true})
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.target.String(), bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	for _, h := range []string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token"} {
		if v := header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("meter GetItem: %w", err)
	}
	defer resp.Body.Close()
	var out dynamoResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("meter GetItem: status %d, %v", resp.StatusCode, err)
	}
	return ItemSize(out.Item), nil
}

// ItemSize is a DynamoDB item's size as AWS bills it: each attribute's
// name plus its value (strings and binaries their bytes, numbers about one
// byte per two significant digits plus one, booleans and nulls 1, lists
// and maps 3 plus 1 per element).
func ItemSize(it item) int {
	n := 0
	for name, v := range it {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v map[string]json.RawMessage) int {
	for typ, raw := range v {
		switch typ {
		case "S":
			var s string
			_ = json.Unmarshal(raw, &s)
			return len(s)
		case "N":
			var s string
			_ = json.Unmarshal(raw, &s)
			return numberSize(s)
		case "B":
			var b []byte // base64 in JSON
			_ = json.Unmarshal(raw, &b)
			return len(b)
		case "BOOL", "NULL":
			return 1
		case "SS", "NS", "BS":
			var ss []string
			_ = json.Unmarshal(raw, &ss)
			n := 0
			for _, s := range ss {
				switch typ {
				case "NS":
					n += numberSize(s)
				case "BS":
					b, _ := base64.StdEncoding.DecodeString(s)
					n += len(b)
				default:
					n += len(s)
				}
			}
			return n
		case "L":
			var l []map[string]json.RawMessage
			_ = json.Unmarshal(raw, &l)
			n := 3
			for _, e := range l {
				n += 1 + valueSize(e)
			}
			return n
		case "M":
			var m item
			_ = json.Unmarshal(raw, &m)
			n := 3
			for name, e := range m {
				n += len(name) + 1 + valueSize(e)
			}
			return n
		}
	}
	return 0
}

func numberSize(s string) int {
	digits := strings.TrimLeft(strings.TrimLeft(s, "-+"), "0.")
	if i := strings.IndexAny(digits, "eE"); i >= 0 {
		digits = digits[:i]
	}
	digits = strings.TrimRight(strings.ReplaceAll(digits, ".", ""), "0")
	return (len(digits)+1)/2 + 1
}

// recordingWriter passes a response on and keeps a copy.
type recordingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recordingWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(p)
	return w.ResponseWriter.Write(p)
}
