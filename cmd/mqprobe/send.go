package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemonclient"
	"github.com/mqprobe/mqprobe/internal/problems"
	"github.com/mqprobe/mqprobe/internal/result"
)

var sendRoutes = map[string]string{
	"produce":         "messages/produce",
	"consume":         "messages/consume",
	"depth":           "queue/depth",
	"connection-test": "connections/test",
	"redrive":         "messages/redrive",
}

// sendOptions are the flags every send subcommand shares.
type sendOptions struct {
	client clientOptions
	keys   keyOptions
	target targetOptions
	aws    awsOptions
	output outputOptions
	// wait: wait for the command's outcome (aws mode: on the results
	// queue), showing its progress on a terminal.
	wait bool
}

// targetOptions describe what the command addresses, or where to read it.
type targetOptions struct {
	file      string
	qmgr      string
	queue     string
	targetRef string
	tags      map[string]string
	// A real queue manager's client connection (inline targets only):
	// the password is a reference the daemon resolves, never the value.
	connName, channel, ccdtURL, user, passwordRef string
}

// targetFlags names the flags of targetOptions that build the command
// body, and so conflict with --file.
var targetFlags = []string{"qmgr", "queue", "target-ref", "tag", "conn-name", "channel", "ccdt-url", "user", "password-ref"}

// connectionFlags are the flags of an inline target's client connection.
var connectionFlags = []string{"conn-name", "channel", "ccdt-url", "user", "password-ref"}

func (o *targetOptions) register(f *pflag.FlagSet) {
	f.StringVar(&o.file, "file", "", "read the command JSON from this file ('-' for stdin) instead of flags")
	f.StringVar(&o.qmgr, "qmgr", "QM1", "queue manager of the inline target")
	f.StringVar(&o.queue, "queue", "DEV.QUEUE.1", "queue of the inline target; with --target-ref, a queue the profile allows")
	f.StringVar(&o.targetRef, "target-ref", "", "name of a configured target profile instead of --qmgr/--queue")
	f.StringToStringVar(&o.tags, "tag", nil, "tag key=value, repeatable")
	f.StringVar(&o.connName, "conn-name", "", "inline target: the queue manager's CONNAME, host(port); needs an ibmmq daemon whose targets.inline admits it")
	f.StringVar(&o.channel, "channel", "", "inline target: the SVRCONN channel, e.g. DEV.APP.SVRCONN")
	f.StringVar(&o.ccdtURL, "ccdt-url", "", "inline target: a CCDT (file:// or https://) instead of --conn-name/--channel")
	f.StringVar(&o.user, "user", "", "inline target: the user id to connect as")
	f.StringVar(&o.passwordRef, "password-ref", "", "inline target: a reference to the password, env:NAME, file:/path or secret://…, which the daemon resolves within targets.inline.secretRefs (the CLI never sends a password)")
}

// passwordRefSchemes are the forms of a secret reference.
var passwordRefSchemes = []string{"env:", "file:", "secret://"}

// connection is the inline target's connection fields the flags give.
func (o *targetOptions) connection(cmd *cobra.Command, target map[string]any) error {
	given := func(name string) bool { return cmd.Flags().Changed(name) }
	if o.passwordRef != "" && !slices.ContainsFunc(passwordRefSchemes, func(p string) bool { return strings.HasPrefix(o.passwordRef, p) }) {
		return usageErrorf(cmd, "--password-ref: give a reference the daemon resolves (env:NAME, file:/path or secret://…), never the password itself")
	}
	if given("password-ref") && !given("user") {
		return usageErrorf(cmd, "--password-ref goes with --user")
	}
	if given("ccdt-url") && (given("conn-name") || given("channel")) {
		return usageErrorf(cmd, "--ccdt-url replaces --conn-name and --channel: give one or the other")
	}
	for flag, field := range map[string]string{"conn-name": "connName", "channel": "channel", "ccdt-url": "ccdtUrl"} {
		if given(flag) {
			target[field] = cmd.Flag(flag).Value.String()
		}
	}
	if given("user") {
		auth := map[string]any{"user": o.user}
		if o.passwordRef != "" {
			auth["passwordRef"] = o.passwordRef
		}
		target["auth"] = auth
	}
	return nil
}

// awsOptions choose aws mode and its queues.
type awsOptions struct {
	sqsQueue     string
	snsTopic     string
	resultsQueue string
}

// awsFlags names the flags of awsOptions.
var awsFlags = []string{"sqs-queue", "sns-topic", "results-queue"}

func (o *awsOptions) register(f *pflag.FlagSet) {
	f.StringVar(&o.sqsQueue, "sqs-queue", "", "aws mode: publish to this SQS queue (name or URL; default sqs.commandQueue)")
	f.StringVar(&o.snsTopic, "sns-topic", "", "aws mode: publish to this SNS topic ARN instead")
	f.StringVar(&o.resultsQueue, "results-queue", "", "aws mode: wait on this shared results queue (default: a queue of its own subscribed to results.snsTopicArn, else results.sqsQueue)")
}

// produceOptions are send produce's flags.
type produceOptions struct {
	count, size, rate, txSize int
	noTx                      bool
	payload, fixedBase64      string
	template                  string
	persistent                bool
	priority                  int
	expiryMs                  int64
	correl, correlIDBase64    string
	headers                   map[string]string
}

func (o *produceOptions) register(f *pflag.FlagSet) {
	f.IntVar(&o.count, "count", 1, "messages to put (batch.count, which HTTP requires; the CLI always sends it)")
	sizeVar(f, &o.size, "size", 1024, "message size in bytes")
	f.IntVar(&o.rate, "rate", 0, "messages per second (default: as fast as possible)")
	f.IntVar(&o.txSize, "tx-size", 100, "messages per syncpoint transaction")
	f.BoolVar(&o.noTx, "no-tx", false, "put outside syncpoint")
	f.StringVar(&o.payload, "payload", "random", "payload mode: random, fixed or template")
	f.StringVar(&o.fixedBase64, "fixed-base64", "", "payload for --payload fixed")
	f.StringVar(&o.template, "template", "", "payload template for --payload template ({{seq}}, {{uuid}}, {{timestamp}})")
	f.BoolVar(&o.persistent, "persistent", false, "put persistent messages")
	f.IntVar(&o.priority, "priority", 0, "message priority 0-9")
	f.Int64Var(&o.expiryMs, "expiry-ms", 0, "message expiry in milliseconds (0: unlimited)")
	f.StringVar(&o.correl, "correl", "none", "CorrelId mode: none, echoMsgId or fixed")
	f.StringVar(&o.correlIDBase64, "correl-id-base64", "", "CorrelId for --correl fixed")
	f.StringToStringVar(&o.headers, "header", nil, "message property name=value, repeatable")
}

// consumeOptions are send consume's flags.
type consumeOptions struct {
	maxMessages, waitSeconds int
	browse, includePayloads  bool
	ack                      string
	msgIDBase64              string
	correlIDBase64           string
}

func (o *consumeOptions) register(f *pflag.FlagSet) {
	f.IntVar(&o.maxMessages, "max-messages", 1, "most messages to get")
	f.IntVar(&o.waitSeconds, "wait-seconds", 20, "seconds MQ waits for the first message (0-60; waitSeconds)")
	f.BoolVar(&o.browse, "browse", false, "browse instead of getting")
	f.BoolVar(&o.includePayloads, "include-payloads", false, "list the messages' payloads in the result (includePayloads; the CLI leaves them out unless this or --show-payloads asks)")
	f.StringVar(&o.ack, "ack", "commit", "commit, rollback or none")
	f.StringVar(&o.msgIDBase64, "msg-id-base64", "", "select by MsgId")
	f.StringVar(&o.correlIDBase64, "correl-id-base64", "", "select by CorrelId")
}

// redriveOptions are send redrive's flags.
type redriveOptions struct {
	dryRun         bool
	destination    string
	reasons        []string
	originalQueues []string
	minAgeSeconds  int
	maxMessages    int
	txSize         int
}

func (o *redriveOptions) register(f *pflag.FlagSet) {
	f.BoolVar(&o.dryRun, "dry-run", false, "browse only: list what would move")
	f.StringVar(&o.destination, "destination", "", "put every message on this queue instead of its original one")
	f.StringSliceVar(&o.reasons, "reason", nil, "move only messages dead-lettered for these reasons: MQRC names or numbers (repeatable)")
	f.StringSliceVar(&o.originalQueues, "original-queue", nil, "move only messages for queues matching these patterns, * and ? wildcards (repeatable)")
	f.IntVar(&o.minAgeSeconds, "min-age-seconds", 0, "move only messages dead-lettered at least this long ago")
	f.IntVar(&o.maxMessages, "max-messages", 0, "move at most this many messages")
	f.IntVar(&o.txSize, "tx-size", 0, "messages per unit of work and checkpoint (1-1000; txSize)")
}

// fill adds REDRIVE's fields the user gave; a numeric --reason is sent as
// a number.
func (o *redriveOptions) fill(flags *pflag.FlagSet, c map[string]any) {
	given(flags, "dry-run", c, "dryRun", o.dryRun)
	given(flags, "destination", c, "destination", o.destination)
	given(flags, "tx-size", c, "txSize", o.txSize)
	filter := map[string]any{}
	if len(o.reasons) > 0 {
		reasons := make([]any, len(o.reasons))
		for i, r := range o.reasons {
			if n, err := strconv.Atoi(r); err == nil {
				reasons[i] = n
			} else {
				reasons[i] = r
			}
		}
		filter["reasons"] = reasons
	}
	given(flags, "original-queue", filter, "originalQueues", o.originalQueues)
	given(flags, "min-age-seconds", filter, "minAgeSeconds", o.minAgeSeconds)
	given(flags, "max-messages", filter, "maxMessages", o.maxMessages)
	if len(filter) > 0 {
		c["filter"] = filter
	}
}

func sendCommand() *cobra.Command {
	opts := &sendOptions{}
	send := &cobra.Command{
		Use:   "send",
		Short: "Send a command to the daemon and print its result",
		Long: `Send a command to the running daemon (embedded mode: its HTTP API) and print
its result. The command is built from flags, or read whole from --file.
Only the flags you give are sent; the schema supplies every default.

Output: on a terminal a short summary (--show-payloads adds CONSUME's
payloads); otherwise, or with --output json, the full result JSON (-o yaml
as YAML; --query narrows it with JMESPath). Summaries show MsgIds in hex, as
IBM MQ's tools do (--msgid-format base64 for the API's encoding); the JSON
keeps the API's base64 (msgIdBase64).

The daemon: --addr (host:port or an http(s) URL; default http.addr of the
configuration), HTTPS verified against --ca-file, a client certificate
(--cert-file/--key-file) for mTLS, the bearer token from --token-file,
$MQPROBE_TOKEN or http.authToken ($MQPROBE_HTTP_AUTHTOKEN); $MQPROBE_CA_FILE,
$MQPROBE_CLIENT_CERTFILE, $MQPROBE_CLIENT_KEYFILE and $MQPROBE_SERVER_NAME
stand in for --ca-file, --cert-file, --key-file and --server-name. Without
--key a key is generated and shown, so an interrupted or timed-out command
can be looked up: mqprobe send status <OPERATION> <key>. With --file the
file holds the whole command: the flags that build one are refused.

--wait waits for the outcome. Over HTTP the reply is the outcome anyway;
--wait adds a live progress line on a terminal (produce, consume). In aws
mode (the configuration's mode, or --sqs-queue / --sns-topic) the command is
published to the command queue (sqs.commandQueue) or topic with the message
attributes Idempotency-Key and Idempotency-Expiry-Seconds. With --wait, send
waits for its result on a temporary queue of its own (mqprobe-wait-<uuid>,
removed after) subscribed to results.snsTopicArn for its key, or else on the
shared results queue (results.sqsQueue, or --results-queue). Without --wait
it prints the message id.

Exit status: 0 COMPLETED (or published, without --wait), 1 FAILED (or the
daemon unreachable, a TLS handshake failed, no mqprobe API at --addr),
2 usage or configuration (also: the daemon refused the token or certificate
(401, 403), or plain HTTP sent to its HTTPS port), 3 REJECTED (invalid, key
reused, target not allowed, over a limit), 4 not decided (in progress
elsewhere, busy, rate limited, the daemon could not decide, --timeout ran
out, or interrupted): look again later.`,
	}
	produceOpts := &produceOptions{}
	produceFlags := pflag.NewFlagSet("produce", pflag.ContinueOnError)
	produceOpts.register(produceFlags)
	produce := &cobra.Command{Use: "produce", Short: "Put a batch of messages"}
	produce.RunE = func(cmd *cobra.Command, _ []string) error {
		return runSend(cmd, opts, "produce", flagNames(produceFlags), func(c map[string]any) { produceOpts.fill(cmd.Flags(), c) })
	}
	produce.Flags().AddFlagSet(produceFlags)

	consumeOpts := &consumeOptions{}
	consumeFlags := pflag.NewFlagSet("consume", pflag.ContinueOnError)
	consumeOpts.register(consumeFlags)
	consume := &cobra.Command{Use: "consume", Short: "Get or browse a batch of messages"}
	consume.RunE = func(cmd *cobra.Command, _ []string) error {
		return runSend(cmd, opts, "consume", flagNames(consumeFlags), func(c map[string]any) { consumeOpts.fill(cmd.Flags(), c) })
	}
	consume.Flags().AddFlagSet(consumeFlags)

	redriveOpts := &redriveOptions{}
	redriveFlags := pflag.NewFlagSet("redrive", pflag.ContinueOnError)
	redriveOpts.register(redriveFlags)
	redrive := &cobra.Command{Use: "redrive", Short: "Move dead-lettered messages back to their queues (the target queue is the dead-letter queue)"}
	redrive.RunE = func(cmd *cobra.Command, _ []string) error {
		return runSend(cmd, opts, "redrive", flagNames(redriveFlags), func(c map[string]any) { redriveOpts.fill(cmd.Flags(), c) })
	}
	redrive.Flags().AddFlagSet(redriveFlags)

	depthOpts := &depthOptions{}
	depthFlags := pflag.NewFlagSet("depth", pflag.ContinueOnError)
	depthOpts.register(depthFlags)
	depth := &cobra.Command{Use: "depth", Short: "Read a queue's depth and health, judged against thresholds when given"}
	depth.RunE = func(cmd *cobra.Command, _ []string) error {
		return runSend(cmd, opts, "depth", flagNames(depthFlags), func(c map[string]any) { depthOpts.fill(cmd.Flags(), c) })
	}
	depth.Flags().AddFlagSet(depthFlags)
	conn := &cobra.Command{Use: "connection-test", Short: "Connect and inquire the queue manager, its dead-letter queue and the channel's status"}
	conn.RunE = func(cmd *cobra.Command, _ []string) error { return runSend(cmd, opts, cmd.Name(), nil, nil) }
	// Each subcommand has only the flags that apply to it: send test runs
	// over HTTP whatever the mode (no aws flags), send status only reads.
	for _, c := range []*cobra.Command{produce, consume, depth, conn, redrive} {
		f := c.Flags()
		opts.client.register(f, "how long to wait for the daemon's answer or the result", 10*time.Minute)
		opts.keys.register(f)
		opts.target.register(f)
		opts.aws.register(f)
		opts.output.register(f)
		f.BoolVar(&opts.wait, "wait", false, "wait for the outcome: a live progress line on a terminal; in aws mode, the result from the results queue")
	}
	test := testCommand(opts)
	tf := test.Flags()
	opts.client.register(tf, "how long to wait for each of the daemon's answers", 10*time.Minute)
	opts.keys.register(tf)
	opts.target.register(tf)
	opts.output.register(tf)
	tf.BoolVar(&opts.wait, "wait", false, "wait for the run's end, showing its progress")
	status := statusCommand(opts)
	opts.client.register(status.Flags(), "how long to wait for the daemon's answer", time.Minute)
	opts.output.register(status.Flags())
	send.AddCommand(produce, consume, depth, conn, redrive, test, status)
	return send
}

// flagNames are the names of the flags in f.
func flagNames(f *pflag.FlagSet) []string {
	var names []string
	f.VisitAll(func(fl *pflag.Flag) { names = append(names, fl.Name) })
	return names
}

// runSend sends one command: ownFlags are the operation's own flags, and
// fill adds their fields.
func runSend(cmd *cobra.Command, opts *sendOptions, op string, ownFlags []string, fill func(map[string]any)) error {
	if err := opts.output.validate(cmd); err != nil {
		return err
	}
	body, err := commandBody(cmd, &opts.target, op, ownFlags, fill)
	if err != nil {
		return err
	}
	if handled, err := awsSend(cmd, opts, op, body); handled || err != nil {
		return err
	}
	dc, err := newDaemonClient(cmd, &opts.client)
	if err != nil {
		return err
	}
	operation := operationType(op)
	key := bodyKey(body)
	if key == "" {
		key = opts.keys.key
	}
	header := opts.keys.header()
	if key == "" {
		// A key of our own, so the command can be watched and looked up.
		key = uuid.NewString()
		header.Set("Idempotency-Key", key)
		fmt.Fprintf(cmd.ErrOrStderr(), "idempotency key %s\n", key)
	}
	out := cmd.OutOrStdout()
	var watch *commandWatch
	// A CONSUME blocks for up to waitSeconds on an empty queue: it shows
	// that it waits even without --wait.
	if (opts.wait || op == "consume") && liveLine(out, &opts.output, op) {
		watch = startCommandWatch(cmd.Context(), httpStateSource(dc, operation, key), verbOf(op), totalOf(body), &progressLine{w: out, tty: true})
	}
	resp, data, err := dc.Do(cmd.Context(), http.MethodPost, sendRoutes[op], body, header)
	watch.stop()
	if err != nil {
		return unreachable(dc, err, lookupHint(dc, operation, key))
	}
	if err := opts.output.print(out, data); err != nil {
		return err
	}
	if hint := connectionHint(cmd, dc, resp, data); hint != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), hint)
	}
	if resp.Header.Get("Idempotent-Replay") == "true" {
		fmt.Fprintln(cmd.ErrOrStderr(), "(replayed: this command already ran; the recorded result is shown)")
	}
	return exitFor(resp, data)
}

// inlineAllowlistKey finds the targets.inline key a refusal names.
var inlineAllowlistKey = regexp.MustCompile(`targets\.inline\.[A-Za-z]+`)

// connectionHint says what a daemon needs to take the one-line command to
// a real queue manager (--conn-name …), when it refused the target: an
// ibmmq daemon an allowlist pattern, the key its refusal names; the
// embedded backend (which checks the allowlist first, so its refusal may
// name a key too) an ibmmq build.
func connectionHint(cmd *cobra.Command, dc *daemonclient.Client, resp *http.Response, data []byte) string {
	if resp.StatusCode != http.StatusUnprocessableEntity || !slices.ContainsFunc(connectionFlags, cmd.Flags().Changed) {
		return ""
	}
	var p struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(data, &p) != nil || p.Code != "TARGET_NOT_ALLOWED" {
		return ""
	}
	if key := inlineAllowlistKey.FindString(p.Detail); key != "" && daemonMQBackend(cmd.Context(), dc) == config.BackendIBMMQ {
		return fmt.Sprintf("mqprobe: the daemon's allowlist does not admit this target: add a pattern to %s (%s) in its configuration: "+
			"docs/security.md#target-profiles-and-allowlists", key, config.EnvName(key))
	}
	return "mqprobe: a queue manager of your own needs a daemon built with IBM MQ (-tags ibmmq, docs/deployment.md#building-with-ibm-mq; mqprobe version says) and " +
		"MQPROBE_MQ_BACKEND=ibmmq, whose targets.inline admits the host, channel, queue manager, queue and secret reference: " +
		"docs/security.md#target-profiles-and-allowlists"
}

// daemonMQBackend is the MQ backend the daemon's GET /status names, "" when
// it does not answer one.
func daemonMQBackend(ctx context.Context, dc *daemonclient.Client) string {
	resp, data, err := dc.Do(ctx, http.MethodGet, "status", nil, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	var s struct {
		Backends struct {
			MQ string `json:"mq"`
		} `json:"backends"`
	}
	_ = json.Unmarshal(data, &s)
	return s.Backends.MQ
}

// liveLine reports whether op's progress is drawn on out: a terminal that
// gets the summary table (JSON output stays clean), for the operations
// that report progress.
func liveLine(out io.Writer, o *outputOptions, op string) bool {
	return isTerminal(out) && o.table(out) && (op == "produce" || op == "consume")
}

// operationType is the API's name of a send subcommand: PRODUCE,
// CONNECTION_TEST.
func operationType(op string) string {
	return strings.ToUpper(strings.ReplaceAll(op, "-", "_"))
}

// verbOf names what op does to a message, for the live line.
func verbOf(op string) string {
	if op == "consume" {
		return "got"
	}
	return "put"
}

// lookupHint says how to look at a command the CLI stopped waiting for.
func lookupHint(dc *daemonclient.Client, operation, key string) string {
	return fmt.Sprintf("mqprobe send status %s %s (or %s)", operation, key, dc.Curl(daemonclient.CommandStatePath(operation, key), tokenEnv))
}

// resultExits is the exit status of the daemon's result data, by its status.
var resultExits = map[result.Status]int{
	result.StatusCompleted:  exitCompleted,
	result.StatusFailed:     exitFailed,
	result.StatusRejected:   exitRejected,
	result.StatusInProgress: exitNotDecided,
}

// problemExits is the exit status of the daemon's problem documents, by
// type; the printed problem says what happened (an outcome-pending command
// did execute: the same key answers its outcome once it is recorded).
var problemExits = map[string]int{
	problems.Validation:     exitRejected,
	problems.KeyReused:      exitRejected,
	problems.Target:         exitRejected,
	problems.InProgress:     exitNotDecided,
	problems.Busy:           exitNotDecided,
	problems.RateLimited:    exitNotDecided,
	problems.Unavailable:    exitNotDecided,
	problems.OutcomePending: exitNotDecided,
}

// exitFor maps the daemon's answer to a command to the exit status: by
// the status of result data, else by the problem document's type, else by
// the HTTP status. resp is nil for a result event (aws mode). Outcomes the
// printed body explains have an empty message; the others say what to do.
func exitFor(resp *http.Response, body []byte) error {
	var data struct {
		Status result.Status `json:"status"`
		Type   string        `json:"type"`
	}
	// A problem document's numeric status leaves data.Status empty.
	json.Unmarshal(body, &data) //nolint:errcheck // an answer that is not JSON goes by its HTTP status
	code, ok := resultExits[data.Status]
	if !ok && resp != nil {
		code, ok = problemExits[data.Type]
	}
	switch {
	case ok && code == exitCompleted:
		return nil
	case ok:
		return &exitError{code: code, err: errors.New("")}
	case resp == nil:
		return &exitError{code: exitFailed, err: errors.New("the result names no status")}
	}
	where := resp.Request.Method + " " + resp.Request.URL.Redacted()
	switch status := resp.StatusCode; {
	case status == http.StatusUnauthorized:
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %s: the daemon wants its bearer token: --token-file, $%s or http.authToken ($MQPROBE_HTTP_AUTHTOKEN)", where, resp.Status, tokenEnv)}
	case status == http.StatusForbidden:
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %s: these credentials may not do this: check the token (--token-file, $%s) and the client certificate (--cert-file/--key-file)", where, resp.Status, tokenEnv)}
	case status == http.StatusBadRequest && bytes.Contains(body, []byte("HTTP request to an HTTPS server")):
		return &exitError{code: exitUsage, err: fmt.Errorf("%s speaks HTTPS: give --addr as an https:// URL (with --ca-file for its CA)", resp.Request.URL.Host)}
	case status == http.StatusNotFound:
		return &exitError{code: exitFailed, err: fmt.Errorf("%s: %s: no mqprobe API there: check --addr (a path in it prefixes the API's routes)", where, resp.Status)}
	case status == http.StatusTooManyRequests || (status == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != ""):
		return &exitError{code: exitNotDecided, err: fmt.Errorf("%s: %s: nothing executed; retry after %ss", where, resp.Status, resp.Header.Get("Retry-After"))}
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("%s: unexpected answer %s", where, resp.Status)}
}

// commandBody is --file's content, or the command the flags describe:
// target or targetRef, tags, operationType, and what fill adds.
// ownFlags are op's flags besides the target's: with --file, none of them
// may be given.
func commandBody(cmd *cobra.Command, o *targetOptions, op string, ownFlags []string, fill func(map[string]any)) ([]byte, error) {
	if o.file != "" {
		var inline []string
		for _, name := range append(slices.Clone(targetFlags), ownFlags...) {
			if cmd.Flags().Changed(name) {
				inline = append(inline, "--"+name)
			}
		}
		if len(inline) > 0 {
			return nil, usageErrorf(cmd, "--file holds the whole command: leave out %s, or put it in the file", strings.Join(inline, ", "))
		}
		var data []byte
		var err error
		if o.file == "-" {
			data, err = io.ReadAll(cmd.InOrStdin())
		} else {
			data, err = os.ReadFile(o.file)
		}
		if err != nil {
			return nil, usageErrorf(cmd, "--file: %w", err)
		}
		var named struct {
			OperationType string `json:"operationType"`
		}
		json.Unmarshal(data, &named) //nolint:errcheck // the daemon judges the body
		if named.OperationType != "" && named.OperationType != operationType(op) {
			return nil, usageErrorf(cmd, "--file: operationType %s is not %s: send it with mqprobe send %s",
				named.OperationType, operationType(op), strings.ToLower(strings.ReplaceAll(named.OperationType, "_", "-")))
		}
		return data, nil
	}
	c := map[string]any{}
	if o.targetRef != "" {
		for _, name := range connectionFlags {
			if cmd.Flags().Changed(name) {
				return nil, usageErrorf(cmd, "--%s describes an inline target: a profile (--target-ref) has its own connection", name)
			}
		}
		c["targetRef"] = o.targetRef
		// Without --queue the profile's own queue applies.
		if cmd.Flags().Changed("queue") {
			c["queue"] = o.queue
		}
	} else {
		target := map[string]any{"queueManager": o.qmgr, "queue": o.queue}
		if err := o.connection(cmd, target); err != nil {
			return nil, err
		}
		c["target"] = target
	}
	if len(o.tags) > 0 {
		c["tags"] = o.tags
	}
	if fill != nil {
		fill(c)
	}
	c["operationType"] = operationType(op)
	data, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encoding the command: %w", err)
	}
	return data, nil
}

// bodyKey is the idempotencyKey a command body names itself (it wins
// over the header), or "".
func bodyKey(body []byte) string {
	var c struct {
		Key string `json:"idempotencyKey"`
	}
	json.Unmarshal(body, &c) //nolint:errcheck // the daemon judges the body; no key in it is the common case
	return c.Key
}

// totalOf is how many messages a PRODUCE puts or a CONSUME gets at most,
// 0 when the body does not say.
func totalOf(body []byte) int64 {
	var c struct {
		Batch *struct {
			Count int64 `json:"count"`
		} `json:"batch"`
		MaxMessages int64 `json:"maxMessages"`
	}
	json.Unmarshal(body, &c) //nolint:errcheck // the live line just has less to show
	if c.Batch != nil {
		return c.Batch.Count
	}
	return c.MaxMessages
}

// given records value in m[key] when the user gave the flag name.
func given[T any](flags *pflag.FlagSet, name string, m map[string]any, key string, value T) {
	if flags.Changed(name) {
		m[key] = value
	}
}

// fill adds PRODUCE's fields the user gave (count always: the schema
// requires it).
func (o *produceOptions) fill(flags *pflag.FlagSet, c map[string]any) {
	batch := map[string]any{"count": o.count}
	given(flags, "size", batch, "messageSizeBytes", o.size)
	given(flags, "rate", batch, "rateLimitPerSec", o.rate)
	tx := map[string]any{}
	given(flags, "tx-size", tx, "txSize", o.txSize)
	if o.noTx {
		tx["enabled"] = false
	}
	if len(tx) > 0 {
		batch["transaction"] = tx
	}
	c["batch"] = batch
	payload := map[string]any{}
	given(flags, "payload", payload, "mode", o.payload)
	given(flags, "fixed-base64", payload, "fixedBase64", o.fixedBase64)
	given(flags, "template", payload, "template", o.template)
	if len(payload) > 0 {
		c["payload"] = payload
	}
	props := map[string]any{}
	if o.persistent {
		props["persistence"] = "persistent"
	}
	given(flags, "priority", props, "priority", o.priority)
	given(flags, "expiry-ms", props, "expiryMs", o.expiryMs)
	given(flags, "correl", props, "correlIdMode", o.correl)
	given(flags, "correl-id-base64", props, "fixedCorrelIdBase64", o.correlIDBase64)
	if len(props) > 0 {
		c["mqProps"] = props
	}
	if len(o.headers) > 0 {
		c["headers"] = o.headers
	}
}

// fill adds CONSUME's fields the user gave.
// depthOptions are DEPTH's thresholds.
type depthOptions struct {
	maxDepthShare, maxOldestAge float64
}

func (o *depthOptions) register(f *pflag.FlagSet) {
	f.Float64Var(&o.maxDepthShare, "max-depth-share", 0, "thresholds.maxDepthShare: the largest healthy depth as a share of MAXDEPTH (0 to 1)")
	f.Float64Var(&o.maxOldestAge, "max-oldest-age", 0, "thresholds.maxOldestMessageAgeSeconds: the largest healthy age of the oldest message, in seconds")
}

func (o *depthOptions) fill(flags *pflag.FlagSet, c map[string]any) {
	t := map[string]any{}
	given(flags, "max-depth-share", t, "maxDepthShare", o.maxDepthShare)
	given(flags, "max-oldest-age", t, "maxOldestMessageAgeSeconds", o.maxOldestAge)
	if len(t) > 0 {
		c["thresholds"] = t
	}
}

func (o *consumeOptions) fill(flags *pflag.FlagSet, c map[string]any) {
	given(flags, "max-messages", c, "maxMessages", o.maxMessages)
	given(flags, "wait-seconds", c, "waitSeconds", o.waitSeconds)
	given(flags, "browse", c, "browseOnly", o.browse)
	given(flags, "ack", c, "ack", o.ack)
	// Unlike HTTP's default, the CLI asks for payloads only when shown.
	show, _ := flags.GetBool("show-payloads")
	c["includePayloads"] = o.includePayloads || show
	sel := map[string]any{}
	given(flags, "msg-id-base64", sel, "msgIdBase64", o.msgIDBase64)
	given(flags, "correl-id-base64", sel, "correlIdBase64", o.correlIDBase64)
	if len(sel) > 0 {
		c["selector"] = sel
	}
}
