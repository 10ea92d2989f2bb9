package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit statuses of send.
const (
	exitCompleted  = 0
	exitFailed     = 1 // the MQ work failed, or the daemon could not be reached
	exitUsage      = 2
	exitRejected   = 3 // invalid command, key reused, target not allowed
	exitNotDecided = 4 // in progress elsewhere or nothing executed: retry later
)

var sendRoutes = map[string]string{
	"produce":         "/messages/produce",
	"consume":         "/messages/consume",
	"depth":           "/queue/depth",
	"connection-test": "/connections/test",
}

func sendCommand() *cobra.Command {
	send := &cobra.Command{
		Use:   "send",
		Short: "Send a command to the running daemon's HTTP API and print its result",
		Long: `Send a command to the running daemon (embedded mode: its HTTP API) and print
the result JSON. The command is built from flags, or read whole from --file.
Only the flags you give are sent; the schema supplies every default.

In aws mode (the configuration's mode, or --sqs-queue / --sns-topic) the
command is published to the command queue (sqs.commandQueue) or topic with
the message attributes Idempotency-Key and Idempotency-Expiry-Seconds; with
--wait, send waits for its result on a results queue (results.sqsQueue, or
--results-queue) and prints it. Without --wait it prints the message id.

Exit status: 0 COMPLETED (or published, without --wait), 1 FAILED (or daemon
unreachable), 2 usage, 3 REJECTED (invalid, key reused, target not
allowed), 4 not executed yet (in progress elsewhere, or the daemon could not
decide): retry later.`,
	}
	send.PersistentFlags().String("addr", "", "daemon HTTP address host:port (default: http.addr of the configuration)")
	send.PersistentFlags().String("key", "", "idempotency key (Idempotency-Key header)")
	send.PersistentFlags().Int("expiry-seconds", 0, "record TTL in seconds (Idempotency-Expiry-Seconds header)")
	send.PersistentFlags().String("file", "", "read the command JSON from this file ('-' for stdin) instead of flags")
	send.PersistentFlags().String("qmgr", "QM1", "queue manager of the inline target")
	send.PersistentFlags().String("queue", "DEV.QUEUE.1", "queue of the inline target; with --target-ref, a queue the profile allows")
	send.PersistentFlags().String("target-ref", "", "name of a configured target profile instead of --qmgr/--queue")
	send.PersistentFlags().StringToString("tag", nil, "tag key=value, repeatable")
	send.PersistentFlags().Duration("timeout", 10*time.Minute, "how long to wait for the result")
	send.PersistentFlags().String("sqs-queue", "", "aws mode: publish to this SQS queue (name or URL; default sqs.commandQueue)")
	send.PersistentFlags().String("sns-topic", "", "aws mode: publish to this SNS topic ARN instead")
	send.PersistentFlags().Bool("wait", false, "aws mode: wait for the result on the results queue")
	send.PersistentFlags().String("results-queue", "", "aws mode: where results arrive (default results.sqsQueue)")

	produce := &cobra.Command{Use: "produce", Short: "Put a batch of messages", Args: cobra.NoArgs}
	f := produce.Flags()
	f.Int("count", 1, "messages to put")
	f.Int("size", 1024, "message size in bytes")
	f.Int("rate", 0, "messages per second (default: as fast as possible)")
	f.Int("tx-size", 100, "messages per syncpoint transaction")
	f.Bool("no-tx", false, "put outside syncpoint")
	f.String("payload", "random", "payload mode: random, fixed or template")
	f.String("fixed-base64", "", "payload for --payload fixed")
	f.String("template", "", "payload template for --payload template ({{seq}}, {{uuid}}, {{timestamp}})")
	f.Bool("persistent", false, "put persistent messages")
	f.Int("priority", 0, "message priority 0-9")
	f.Int64("expiry-ms", 0, "message expiry in milliseconds (0: unlimited)")
	f.String("correl", "none", "CorrelId mode: none, echoMsgId or fixed")
	f.String("correl-id-base64", "", "CorrelId for --correl fixed")
	f.StringToString("header", nil, "message property name=value, repeatable")

	consume := &cobra.Command{Use: "consume", Short: "Get or browse a batch of messages", Args: cobra.NoArgs}
	f = consume.Flags()
	f.Int("max-messages", 1, "most messages to get")
	f.Int("wait", 20, "seconds to wait for the first message (0-60)")
	f.Bool("browse", false, "browse instead of getting")
	f.String("ack", "commit", "commit, rollback or none")
	f.String("msg-id-base64", "", "select by MsgId")
	f.String("correl-id-base64", "", "select by CorrelId")

	depth := &cobra.Command{Use: "depth", Short: "Read a queue's depth", Args: cobra.NoArgs}
	conn := &cobra.Command{Use: "connection-test", Short: "Connect and inquire the queue manager", Args: cobra.NoArgs}
	for _, c := range []*cobra.Command{produce, consume, depth, conn} {
		c.RunE = func(cmd *cobra.Command, _ []string) error { return runSend(cmd, cmd.Name()) }
		send.AddCommand(c)
	}
	send.AddCommand(testCommand())
	return send
}

func runSend(cmd *cobra.Command, op string) error {
	body, err := commandBody(cmd, op)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if aws, err := awsSend(cmd, body); aws || err != nil {
		return err
	}
	dc, err := newDaemonClient(cmd)
	if err != nil {
		return err
	}
	// Relative to the address, as a path in --addr is kept.
	resp, out, err := dc.do(cmd.Context(), http.MethodPost, strings.TrimPrefix(sendRoutes[op], "/"), body, idempotencyHeader(cmd))
	switch {
	case err != nil && resp != nil:
		return &exitError{code: exitFailed, err: err}
	case err != nil:
		return unreachable(err)
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, out, "", "  ") != nil {
		pretty.Write(out)
	}
	fmt.Fprintln(cmd.OutOrStdout(), pretty.String())
	if resp.Header.Get("Idempotent-Replay") == "true" {
		fmt.Fprintln(cmd.ErrOrStderr(), "(replayed: this command already ran; the recorded result is shown)")
	}
	return exitFor(resp.StatusCode, out)
}

// exitFor maps the daemon's answer to send's exit status.
func exitFor(status int, body []byte) error {
	var data struct {
		Status string `json:"status"`
	}
	json.Unmarshal(body, &data) //nolint:errcheck // problem documents have a numeric status
	switch {
	case data.Status == "COMPLETED":
		return nil
	case data.Status == "FAILED":
		return &exitError{code: exitFailed, err: errors.New("")}
	case status == http.StatusServiceUnavailable || (status == http.StatusConflict && bytes.Contains(body, []byte("in-progress"))):
		return &exitError{code: exitNotDecided, err: errors.New("")}
	case status >= 400 && status < 500:
		return &exitError{code: exitRejected, err: errors.New("")}
	}
	return &exitError{code: exitFailed, err: errors.New("")}
}

// commandBody is --file's content, or the command the flags describe.
func commandBody(cmd *cobra.Command, op string) ([]byte, error) {
	if file, _ := cmd.Flags().GetString("file"); file != "" {
		if file == "-" {
			return io.ReadAll(cmd.InOrStdin())
		}
		return os.ReadFile(file)
	}
	flags := cmd.Flags()
	c := map[string]any{}
	if ref, _ := flags.GetString("target-ref"); ref != "" {
		c["targetRef"] = ref
		// Without --queue the profile's own queue applies.
		if flags.Changed("queue") {
			c["queue"], _ = flags.GetString("queue")
		}
	} else {
		qmgr, _ := flags.GetString("qmgr")
		queue, _ := flags.GetString("queue")
		c["target"] = map[string]any{"queueManager": qmgr, "queue": queue}
	}
	if tags, _ := flags.GetStringToString("tag"); len(tags) > 0 {
		c["tags"] = tags
	}
	switch op {
	case "produce":
		batch := map[string]any{}
		setIf(flags, "count", batch, "count")
		setIf(flags, "size", batch, "messageSizeBytes")
		setIf(flags, "rate", batch, "rateLimitPerSec")
		tx := map[string]any{}
		setIf(flags, "tx-size", tx, "txSize")
		if noTx, _ := flags.GetBool("no-tx"); noTx {
			tx["enabled"] = false
		}
		if len(tx) > 0 {
			batch["transaction"] = tx
		}
		if _, ok := batch["count"]; !ok {
			batch["count"] = 1
		}
		c["batch"] = batch
		payload := map[string]any{}
		setIf(flags, "payload", payload, "mode")
		setIf(flags, "fixed-base64", payload, "fixedBase64")
		setIf(flags, "template", payload, "template")
		if len(payload) > 0 {
			c["payload"] = payload
		}
		props := map[string]any{}
		if p, _ := flags.GetBool("persistent"); p {
			props["persistence"] = "persistent"
		}
		setIf(flags, "priority", props, "priority")
		setIf(flags, "expiry-ms", props, "expiryMs")
		setIf(flags, "correl", props, "correlIdMode")
		setIf(flags, "correl-id-base64", props, "fixedCorrelIdBase64")
		if len(props) > 0 {
			c["mqProps"] = props
		}
		if h, _ := flags.GetStringToString("header"); len(h) > 0 {
			c["headers"] = h
		}
	case "consume":
		setIf(flags, "max-messages", c, "maxMessages")
		setIf(flags, "wait", c, "waitSeconds")
		setIf(flags, "browse", c, "browseOnly")
		setIf(flags, "ack", c, "ack")
		sel := map[string]any{}
		setIf(flags, "msg-id-base64", sel, "msgIdBase64")
		setIf(flags, "correl-id-base64", sel, "correlIdBase64")
		if len(sel) > 0 {
			c["selector"] = sel
		}
	}
	c["operationType"] = strings.ToUpper(strings.ReplaceAll(op, "-", "_"))
	return json.Marshal(c)
}

// setIf copies a flag the user gave into m[key], typed as the flag is.
func setIf(flags *pflag.FlagSet, name string, m map[string]any, key string) {
	f := flags.Lookup(name)
	if f == nil || !f.Changed {
		return
	}
	switch f.Value.Type() {
	case "int":
		v, _ := flags.GetInt(name)
		m[key] = v
	case "int64":
		v, _ := flags.GetInt64(name)
		m[key] = v
	case "bool":
		v, _ := flags.GetBool(name)
		m[key] = v
	default:
		m[key] = f.Value.String()
	}
}
