package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmespath-community/go-jmespath"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/probe"
)

// Output formats of --output.
const (
	outputAuto  = "auto"
	outputJSON  = "json"
	outputYAML  = "yaml"
	outputTable = "table"
)

// outputOptions choose how a result is printed.
type outputOptions struct {
	format       string
	showPayloads bool
	query        string
	compiled     jmespath.JMESPath // query, once validated
	msgIDFormat  string            // hex or base64, in tables
}

// MsgId encodings of --msgid-format. Tables show hex, as IBM MQ's tools
// (amqsbcg, dmpmqmsg, MQ Explorer) do; JSON keeps the API's base64.
const (
	msgIDHex    = "hex"
	msgIDBase64 = "base64"
)

// summaryStyle is how a summary table shows what it lists.
type summaryStyle struct {
	showPayloads bool
	msgIDBase64  bool // MsgIds as the API's base64 rather than hex
}

// msgID shows a base64 MsgId in the style's encoding.
func (s summaryStyle) msgID(b64 string) string {
	if s.msgIDBase64 {
		return b64
	}
	return hexOf(b64)
}

// msgIDLabel names a MsgId column with its encoding.
func (s summaryStyle) msgIDLabel(label string) string {
	if s.msgIDBase64 {
		return label + " (base64)"
	}
	return label + " (hex)"
}

func (o *outputOptions) register(f *pflag.FlagSet) {
	f.StringVarP(&o.format, "output", "o", outputAuto, "auto (a summary table on a terminal, JSON otherwise), json (the full result), yaml (the same as YAML) or table")
	f.BoolVar(&o.showPayloads, "show-payloads", false, "table output: show CONSUME's message payloads")
	f.StringVar(&o.msgIDFormat, "msgid-format", msgIDHex, "how tables show MsgIds: hex (as IBM MQ's tools) or base64 (as the API's JSON, msgIdBase64)")
	f.StringVar(&o.query, "query", "", "JMESPath expression applied to the JSON answer before it is printed (as JSON, or YAML with -o yaml), e.g. result.enqueued")
}

func (o *outputOptions) validate(cmd *cobra.Command) error {
	switch o.format {
	case outputAuto, outputJSON, outputYAML, outputTable:
	default:
		return usageErrorf(cmd, "--output %q: must be auto, json, yaml or table", o.format)
	}
	if o.msgIDFormat != msgIDHex && o.msgIDFormat != msgIDBase64 {
		return usageErrorf(cmd, "--msgid-format %q: must be hex or base64", o.msgIDFormat)
	}
	if o.query == "" {
		return nil
	}
	if o.format == outputTable {
		return usageErrorf(cmd, "--query prints JSON or YAML: it does not go with --output table")
	}
	compiled, err := jmespath.Compile(o.query)
	if err != nil {
		return usageErrorf(cmd, "--query %q: not a JMESPath expression: %v", o.query, err)
	}
	o.compiled = compiled
	return nil
}

// table reports whether w gets the summary table rather than JSON.
func (o *outputOptions) table(w io.Writer) bool {
	if o.compiled != nil || o.format == outputYAML {
		return false
	}
	return o.format == outputTable || (o.format == outputAuto && isTerminal(w))
}

// print writes a command's answer (result data or a problem document) as
// the options ask.
func (o *outputOptions) print(w io.Writer, data []byte) error {
	if !o.table(w) {
		return o.printDocument(w, data)
	}
	var buf bytes.Buffer
	if !writeSummaryOf(&buf, data, summaryStyle{showPayloads: o.showPayloads, msgIDBase64: o.msgIDFormat == msgIDBase64}) {
		_, err := fmt.Fprintln(w, indentJSON(data))
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// printDocument writes data, narrowed by --query, as JSON or YAML.
func (o *outputOptions) printDocument(w io.Writer, data []byte) error {
	if o.compiled != nil {
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("--query: the answer is not JSON: %w", err)
		}
		found, err := o.compiled.Search(doc)
		if err != nil {
			return fmt.Errorf("--query %q: %w", o.query, err)
		}
		if data, err = json.Marshal(found); err != nil {
			return fmt.Errorf("--query %q: %w", o.query, err)
		}
	}
	if o.format != outputYAML {
		_, err := fmt.Fprintln(w, indentJSON(data))
		return err
	}
	out, err := jsonToYAML(data)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// jsonToYAML rewrites a JSON document as block-style YAML, keys in their
// order.
func jsonToYAML(data []byte) ([]byte, error) {
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		return nil, fmt.Errorf("answer as YAML: %w", err)
	}
	blockStyle(&node)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&node); err != nil {
		return nil, fmt.Errorf("answer as YAML: %w", err)
	}
	return buf.Bytes(), enc.Close()
}

// blockStyle undoes the flow style ({…}, […]) YAML's parser keeps from JSON
// and the quoting of its strings, where plain scalars read the same.
func blockStyle(n *yaml.Node) {
	n.Style &^= yaml.FlowStyle | yaml.DoubleQuotedStyle
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// resultData is the part of result data the summaries show.
type resultData struct {
	OperationType  string            `json:"operationType"`
	IdempotencyKey string            `json:"idempotencyKey"`
	Status         string            `json:"status"`
	Replay         bool              `json:"replay"`
	KeyGenerated   bool              `json:"keyGenerated"`
	Target         string            `json:"target"`
	Attempt        int               `json:"attempt"`
	DurationMs     int64             `json:"durationMs"`
	Result         json.RawMessage   `json:"result"`
	Error          *resultError      `json:"error"`
	Tags           map[string]string `json:"tags"`
}

type resultError struct {
	Code     string `json:"code"`
	Reason   int32  `json:"reason"`
	Message  string `json:"message"`
	Problems []struct {
		Path    string `json:"path"`
		Rule    string `json:"rule"`
		Message string `json:"message"`
	} `json:"problems"`
}

// problemDoc is an RFC 9457 problem the API answers with.
type problemDoc struct {
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Errors []struct {
		Path    string `json:"path"`
		Rule    string `json:"rule"`
		Message string `json:"message"`
	} `json:"errors"`
}

// writeSummaryOf writes the summary of data; false when data is neither
// result data nor a problem document.
func writeSummaryOf(w io.Writer, data []byte, style summaryStyle) bool {
	var d resultData
	if err := json.Unmarshal(data, &d); err == nil && d.OperationType != "" && d.Status != "" {
		writeResultSummary(w, d, style)
		return true
	}
	var p problemDoc
	if err := json.Unmarshal(data, &p); err == nil && p.Title != "" {
		fmt.Fprintf(w, "%d %s", p.Status, p.Title)
		if p.Detail != "" {
			fmt.Fprintf(w, ": %s", p.Detail)
		}
		fmt.Fprintln(w)
		for _, e := range p.Errors {
			fmt.Fprintf(w, "  %s: %s: %s\n", e.Path, e.Rule, e.Message)
		}
		return true
	}
	return false
}

func writeResultSummary(w io.Writer, d resultData, style summaryStyle) {
	head := []string{d.OperationType + " " + d.IdempotencyKey, d.Status}
	if d.Target != "" {
		head = append(head, d.Target)
	}
	took := time.Duration(d.DurationMs) * time.Millisecond
	var stats probe.Stats
	if d.OperationType == "TEST" && json.Unmarshal(d.Result, &stats) == nil && stats.Elapsed > 0 {
		took = stats.Elapsed.Round(time.Millisecond) // the run itself, without the setup
	}
	if d.Status != "IN_PROGRESS" {
		head = append(head, "in "+took.String())
	}
	if d.Attempt > 1 {
		head = append(head, fmt.Sprintf("attempt %d", d.Attempt))
	}
	if d.Replay {
		head = append(head, "(replayed)")
	}
	fmt.Fprintln(w, strings.Join(head, "  "))
	if d.KeyGenerated {
		fmt.Fprintln(w, "key generated: no idempotency key was given, so sending this again runs it again")
	}
	if len(d.Result) > 0 && string(d.Result) != "null" {
		writeOperationRows(w, d.OperationType, d.Result, style)
	}
	if e := d.Error; e != nil {
		msg := "error: " + e.Code
		if e.Reason != 0 {
			msg += fmt.Sprintf(" (reason %d)", e.Reason)
		}
		if e.Message != "" {
			msg += ": " + e.Message
		}
		fmt.Fprintln(w, msg)
		for _, p := range e.Problems {
			fmt.Fprintf(w, "  %s: %s: %s\n", p.Path, p.Rule, p.Message)
		}
	}
}

// writeOperationRows writes an operation's result as label/value rows;
// a result it cannot read is shown as JSON.
func writeOperationRows(w io.Writer, op string, raw json.RawMessage, style summaryStyle) {
	var rows [][2]string
	var err error
	switch op {
	case "PRODUCE":
		var r handlers.ProduceResult
		if err = json.Unmarshal(raw, &r); err == nil {
			rows = [][2]string{
				{"enqueued", fmt.Sprint(r.Enqueued)},
				{"transactions", fmt.Sprint(r.Transactions)},
				{"bytes", fmt.Sprint(r.Bytes)},
				{"elapsed", r.Elapsed},
				{"rate msg/s", strconv.FormatFloat(r.RatePerSec, 'f', 1, 64)},
				{"put latency p50 ms", millis(r.LatencyMs.P50)},
				{"put latency p95 ms", millis(r.LatencyMs.P95)},
				{"put latency p99 ms", millis(r.LatencyMs.P99)},
				{"put latency max ms", millis(r.LatencyMs.Max)},
			}
			if r.FirstMsgID != "" {
				rows = append(rows, [2]string{style.msgIDLabel("first MsgId"), style.msgID(r.FirstMsgID)},
					[2]string{style.msgIDLabel("last MsgId"), style.msgID(r.LastMsgID)})
			}
			if r.ResumedFrom != nil {
				rows = append(rows, [2]string{"resumed from", fmt.Sprint(*r.ResumedFrom)})
			}
		}
	case "CONSUME":
		var r handlers.ConsumeResult
		if err = json.Unmarshal(raw, &r); err == nil {
			writeRows(w, [][2]string{
				{"received", fmt.Sprint(r.Received)},
				{"browsed", fmt.Sprint(r.Browsed)},
				{"payloads truncated", strconv.FormatBool(r.Truncated)},
			})
			writeMessages(w, r.Messages, style)
			return
		}
	case "DEPTH":
		var r handlers.DepthResult
		if err = json.Unmarshal(raw, &r); err == nil {
			rows = depthRows(r)
		}
	case "CONNECTION_TEST":
		var r handlers.ConnectionResult
		if err = json.Unmarshal(raw, &r); err == nil {
			rows = connectionRows(r)
		}
	case "REDRIVE":
		var r handlers.RedriveResult
		if err = json.Unmarshal(raw, &r); err == nil {
			rows = redriveRows(r)
		}
	case "TEST":
		var r probe.Stats
		if err = json.Unmarshal(raw, &r); err == nil {
			writeTestRows(w, &r)
			return
		}
	default:
		err = fmt.Errorf("no summary for %s", op)
	}
	if err != nil {
		fmt.Fprintln(w, indentJSON(raw))
		return
	}
	writeRows(w, rows)
}

// writeRows aligns label/value rows: labels left, numbers and booleans
// right-aligned in one column, other values (MsgIds, times) left-aligned from its start.
func writeRows(w io.Writer, rows [][2]string) {
	lw, nw := 0, 0
	for _, row := range rows {
		lw = max(lw, len(row[0]))
		if rightAligned(row[1]) {
			nw = max(nw, len(row[1]))
		}
	}
	for _, row := range rows {
		if rightAligned(row[1]) {
			fmt.Fprintf(w, "  %-*s  %*s\n", lw, row[0], nw, row[1])
		} else {
			fmt.Fprintf(w, "  %-*s  %s\n", lw, row[0], row[1])
		}
	}
}

// rightAligned reports whether v is a number or a boolean: the values
// read down a column.
func rightAligned(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil || v == "true" || v == "false"
}

// writeMessages lists consumed messages, one line each; payloads only when
// asked, as text when they are printable UTF-8, else as base64.
func writeMessages(w io.Writer, msgs []handlers.CapturedMessage, style summaryStyle) {
	if len(msgs) == 0 {
		return
	}
	showPayloads := style.showPayloads
	fmt.Fprintf(w, "  %-3s  %-48s  %3s  %-13s  %8s  %s\n", "#", style.msgIDLabel("MsgId"), "pri", "persistence", "bytes", "put time")
	for i, m := range msgs {
		fmt.Fprintf(w, "  %-3d  %-48s  %3d  %-13s  %8d  %s\n", i+1, style.msgID(m.MsgIDBase64), m.Priority, m.Persistence, m.SizeBytes, m.PutTime)
		if showPayloads {
			fmt.Fprintf(w, "       payload: %s\n", payloadText(m.PayloadBase64))
		}
	}
	if !showPayloads {
		fmt.Fprintln(w, "  (payloads left out: --show-payloads, or --output json for everything)")
	}
}

func hexOf(b64 string) string {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return b64
	}
	return hex.EncodeToString(raw)
}

func payloadText(b64 string) string {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || !utf8.Valid(raw) {
		return "base64 " + b64
	}
	for _, r := range string(raw) {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' {
			return "base64 " + b64
		}
	}
	return strconv.Quote(string(raw))
}

// writeTestRows writes a TEST's statistics and, when it has one, its
// latency histogram.
func writeTestRows(w io.Writer, r *probe.Stats) {
	rows := [][2]string{
		{"sent", fmt.Sprint(r.Sent)},
		{"received", fmt.Sprint(r.Received)},
		{"lost", fmt.Sprint(r.Lost)},
		{"duplicated", fmt.Sprint(r.Duplicated)},
		{"out of order", fmt.Sprint(r.OutOfOrder)},
	}
	if r.InFlight != 0 {
		rows = append(rows, [2]string{"in flight", fmt.Sprint(r.InFlight)})
	}
	rows = append(rows,
		[2]string{"throughput msg/s", strconv.FormatFloat(r.ThroughputPerSec, 'f', 1, 64)},
		[2]string{"latency p50 ms", millis(r.LatencyMs.P50)},
		[2]string{"latency p90 ms", millis(r.LatencyMs.P90)},
		[2]string{"latency p99 ms", millis(r.LatencyMs.P99)},
		[2]string{"latency p99.9 ms", millis(r.LatencyMs.P999)},
		[2]string{"latency max ms", millis(r.LatencyMs.Max)},
		[2]string{"stopped", strconv.FormatBool(r.Stopped)},
	)
	writeRows(w, rows)
	writeHistogram(w, r.LatencyHistogram)
}

// histogramWidth is the longest bar, in characters.
const histogramWidth = 40

// writeHistogram draws the round-trip histogram, one bar per bucket,
// scaled to the fullest bucket, e.g.
//
//	<= 0.5 ms  ########################################  1200
func writeHistogram(w io.Writer, buckets []probe.LatencyBucket) {
	var most, total int64
	labels := make([]string, len(buckets))
	lw := 0
	for i, b := range buckets {
		most, total = max(most, b.Count), total+b.Count
		labels[i] = "<= " + strconv.FormatFloat(b.UpToMs, 'f', -1, 64) + " ms"
		lw = max(lw, len(labels[i]))
	}
	if most <= 0 {
		return
	}
	fmt.Fprintln(w, "round-trip latency")
	for i, b := range buckets {
		n := int(max(b.Count, 0) * histogramWidth / most)
		if n == 0 && b.Count > 0 {
			n = 1 // a bucket with anything in it shows
		}
		fmt.Fprintf(w, "  %*s  %-*s  %d (%.1f%%)\n", lw, labels[i], histogramWidth, strings.Repeat("#", n), b.Count, 100*float64(b.Count)/float64(total))
	}
}

// depthRows shows a DEPTH result: the named queue's type, what it points
// at, and the counts of the local queue holding its messages, if any.
func depthRows(r handlers.DepthResult) [][2]string {
	rows := [][2]string{{"queue type", r.QueueType}}
	for _, f := range [][2]string{
		{"base queue", r.BaseQueue},
		{"remote queue", r.RemoteQueue},
		{"remote queue manager", r.RemoteQueueManager},
		{"transmission queue", r.TransmissionQueue},
	} {
		if f[1] != "" {
			rows = append(rows, f)
		}
	}
	for _, f := range []struct {
		name  string
		count *int
	}{
		{"current depth", r.CurrentDepth},
		{"max depth", r.MaxDepth},
		{"open input count", r.OpenInputCount},
		{"open output count", r.OpenOutputCount},
	} {
		if f.count != nil {
			rows = append(rows, [2]string{f.name, strconv.Itoa(*f.count)})
		}
	}
	if r.DepthShare != nil {
		rows = append(rows, [2]string{"depth share", strconv.FormatFloat(*r.DepthShare, 'f', -1, 64)})
	}
	if r.UncommittedMessages != nil {
		rows = append(rows, [2]string{"uncommitted messages", strconv.Itoa(*r.UncommittedMessages)})
	}
	if r.OldestMessageAgeSeconds != nil {
		rows = append(rows, [2]string{"oldest message age s", strconv.FormatFloat(*r.OldestMessageAgeSeconds, 'f', -1, 64)})
	}
	for _, f := range []struct {
		name string
		at   *time.Time
	}{{"last put", r.LastPutAt}, {"last get", r.LastGetAt}} {
		if f.at != nil {
			rows = append(rows, [2]string{f.name, f.at.Format(time.RFC3339)})
		}
	}
	if r.QueueTime != nil {
		rows = append(rows, [2]string{"queue time ms", fmt.Sprintf("%s short, %s long", millis(r.QueueTime.ShortMs), millis(r.QueueTime.LongMs))})
	}
	if r.Verdict != "" {
		rows = append(rows, [2]string{"verdict", r.Verdict})
		for _, f := range r.Findings {
			value := "missing"
			if f.Value != nil {
				value = strconv.FormatFloat(*f.Value, 'f', -1, 64)
			}
			rows = append(rows, [2]string{"  " + f.Figure, fmt.Sprintf("%s: %s against %s", f.Verdict, value, strconv.FormatFloat(f.Threshold, 'f', -1, 64))})
		}
	}
	return append(rows, missingRows(r.Missing)...)
}

// connectionRows shows a CONNECTION_TEST result.
func connectionRows(r handlers.ConnectionResult) [][2]string {
	rows := [][2]string{
		{"connected", strconv.FormatBool(r.Connected)},
		{"queue manager", r.QueueManager},
		{"command level", fmt.Sprint(r.CommandLevel)},
		{"platform", r.Platform},
		{"ccsid", fmt.Sprint(r.CCSID)},
		{"connect ms", millis(r.ConnectMs)},
		{"inquire ms", millis(r.InquireMs)},
	}
	if d := r.DeadLetterQueue; d != nil {
		rows = append(rows, [2]string{"dead-letter queue", fmt.Sprintf("%s, depth %d (%s ms)", d.Name, d.CurrentDepth, millis(d.InquireMs))})
	}
	if c := r.Channel; c != nil {
		rows = append(rows, [2]string{"channel", fmt.Sprintf("%s from %s, %d instance(s)", c.Name, c.ConnectionName, c.Instances)})
		if c.Cipher != "" {
			rows = append(rows, [2]string{"tls cipher", c.Cipher}, [2]string{"peer name", c.PeerName}, [2]string{"cert issuer", c.CertIssuer})
		}
		if qc := c.Certificate; qc != nil {
			rows = append(rows, [2]string{"qmgr certificate", fmt.Sprintf("%s, expires %s (%d days)", qc.Subject, qc.NotAfter.UTC().Format(time.DateOnly), qc.DaysToExpiry)})
		}
	}
	if cs := r.CommandServer; cs != nil {
		rows = append(rows, [2]string{"command server", fmt.Sprintf("answered %t (%s ms)", cs.Answered, millis(cs.Ms))})
	}
	return append(rows, missingRows(r.Missing)...)
}

// missingRows names each missing figure with why, in a stable order.
func missingRows(missing map[string]string) [][2]string {
	var rows [][2]string
	for _, k := range slices.Sorted(maps.Keys(missing)) {
		rows = append(rows, [2]string{"missing " + k, missing[k]})
	}
	return rows
}

// millis formats a latency in milliseconds, to the microsecond.
func millis(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func indentJSON(data []byte) string {
	var pretty bytes.Buffer
	data = bytes.TrimSpace(data)
	if json.Indent(&pretty, data, "", "  ") != nil {
		return string(data)
	}
	return pretty.String()
}

// redriveRows summarises a REDRIVE: what moved (or would), by reason and
// destination, and what stayed.
func redriveRows(r handlers.RedriveResult) [][2]string {
	moved := "moved"
	if r.DryRun {
		moved = "would move"
	}
	rows := [][2]string{{moved, fmt.Sprint(r.Moved)}, {"transactions", fmt.Sprint(r.Transactions)},
		{"browsed", fmt.Sprint(r.Browsed)}, {"skipped", fmt.Sprint(r.Skipped)}}
	for _, counts := range []struct {
		label string
		m     map[string]int
	}{{"reason ", r.ByReason}, {"to ", r.ByDestination}, {"skipped: ", r.SkippedBy}} {
		for _, k := range slices.Sorted(maps.Keys(counts.m)) {
			rows = append(rows, [2]string{counts.label + k, fmt.Sprint(counts.m[k])})
		}
	}
	for _, m := range r.Messages {
		rows = append(rows, [2]string{"message " + hexOf(m.MsgIDBase64),
			fmt.Sprintf("%s from %s to %s, dead-lettered %s by %s", m.ReasonName, m.OriginalQueue, m.Destination,
				m.DeadLetteredAt.Format(time.RFC3339), m.PutApplName)})
	}
	if r.ResumedFrom != nil {
		rows = append(rows, [2]string{"resumed from", fmt.Sprint(*r.ResumedFrom)})
	}
	return rows
}
