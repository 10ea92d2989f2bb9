package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/problems"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// command serves one operation synchronously: the body is the result's data.
func (a *api) command(op command.Operation) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := a.readBody(w, r)
		if err != nil {
			return
		}
		// The command outlives a vanished caller: a retry then replays it.
		ctx, release := executor.MergeCancel(r.Context(), a.cfg.WorkContext)
		defer release()
		out := a.execute(ctx, op, tenant.FromContext(r.Context()).Name, command.Input{
			Body: body, Transport: command.TransportHTTP, Operation: op,
			IdempotencyKey: r.Header.Get("Idempotency-Key"),
			ExpirySeconds:  r.Header.Get("Idempotency-Expiry-Seconds"),
		})
		a.startReply(w)
		a.respond(w, r, op, out)
	}
}

// execute runs a command. A duplicate of one running elsewhere waits, up to
// InProgressWait, until that run's record is decided or its claim is let
// go, then runs again, which answers the recorded result or runs the
// command: parallel identical requests all get the one result instead of
// 409. Begin still decides each run; the record only says when to ask.
// Only the last run is the request's answer (the others are
// executor.Provisional).
func (a *api) execute(ctx context.Context, op command.Operation, tenantName string, in command.Input) executor.Outcome {
	if a.cfg.Records == nil {
		return a.cfg.Executor.Execute(ctx, in)
	}
	out := a.cfg.Executor.Execute(ctx, in, executor.Provisional())
	deadline := time.Now().Add(a.cfg.InProgressWait)
	for backoff := 5 * time.Millisecond; out.Kind == outcome.InProgress && out.Key != ""; backoff = min(2*backoff, 250*time.Millisecond) {
		if !time.Now().Before(deadline) {
			return a.cfg.Executor.Execute(ctx, in)
		}
		select {
		case <-ctx.Done():
			return a.cfg.Executor.Execute(ctx, in)
		case <-time.After(min(backoff, time.Until(deadline))):
		}
		rec, found, err := a.cfg.Records.Inspect(ctx, string(op), tenantName, out.Key)
		if err == nil && found && rec.Status == idempotency.StatusInProgress && rec.LeaseExpiresAt.After(time.Now()) {
			continue
		}
		out = a.cfg.Executor.Execute(ctx, in, executor.Provisional())
	}
	return out
}

// respond answers out, an outcome of an op command, as problems.For says:
// the result data, or a problem document.
func (a *api) respond(w http.ResponseWriter, r *http.Request, op command.Operation, out executor.Outcome) {
	replay := out.Kind == outcome.Replayed
	if out.Event != nil && out.Key != "" {
		w.Header().Set("Idempotency-Key", out.Key)
		// A replay answers for the request that gave the key.
		if out.Event.Data.KeyGenerated && !replay {
			w.Header().Set("Idempotency-Key-Generated", "true")
		}
	}
	setExpiry(w, out.ExpiresAt)
	var e *result.Error
	if out.Event != nil {
		e = out.Event.Data.Error
	}
	var code string
	if e != nil {
		code = e.Code
	}
	answer := problems.For(out.Kind, code, handlers.Describe(op).Creates)
	if answer.RetryAfter {
		setRetryAfter(w, out.RetryAfter)
	}
	p := problem{Type: answer.Type, Title: answer.Title, Detail: errText(out.Err)}
	switch out.Kind {
	case outcome.Replayed:
		w.Header().Set("Idempotent-Replay", "true")
	case outcome.Rejected, outcome.Limited:
		p = problem{Type: answer.Type, Title: answer.Title, Code: e.Code, Detail: e.Message, Errors: e.Problems,
			IdempotencyKey: out.Event.Data.IdempotencyKey}
	case outcome.InProgress:
		p.Code, p.Detail, p.IdempotencyKey = codeInProgress, p.Detail+": retry after Retry-After for its result", out.Key
	case outcome.OutcomePending:
		p.IdempotencyKey = out.Key
	}
	if answer.Type == "" {
		writeRaw(w, answer.Status, out.Body)
		return
	}
	writeProblem(w, r, answer.Status, p)
}

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // the client may be gone
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// readBody reads at most MaxBodyBytes+1 bytes; an oversize body is left to
// the decoder, which rejects it as TOO_LARGE with a result event.
func (a *api) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	limit := int64(a.cfg.MaxBodyBytes)
	if limit <= 0 {
		limit = 1 << 20
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		writeProblem(w, r, http.StatusBadRequest, problem{Type: problems.Validation, Detail: "reading the body: " + err.Error()})
		return nil, err
	}
	if int64(len(body)) > limit {
		writeProblem(w, r, http.StatusRequestEntityTooLarge, problem{Type: problems.Validation, Code: string(command.CodeTooLarge),
			Detail: "the body exceeds the configured limit"})
		return nil, errors.New("body too large")
	}
	return body, nil
}

// submit puts a raw command on the in-process bus (202). Bus commands run
// as the implicit tenant, so a named tenant may not submit any.
func (a *api) submit(w http.ResponseWriter, r *http.Request) {
	if t := tenant.FromContext(r.Context()); t.Named() {
		writeProblem(w, r, http.StatusForbidden, problem{Detail: "tenant " + t.Name +
			" may not submit to the command bus, whose commands run as the implicit tenant: use the synchronous routes"})
		return
	}
	if a.cfg.Submit == nil {
		writeProblem(w, r, http.StatusNotFound, problem{Detail: "the command bus is not in-process in this mode; publish to SQS"})
		return
	}
	body, err := a.readBody(w, r)
	if err != nil {
		return
	}
	meta := map[string]string{}
	for _, h := range []string{"Idempotency-Key", "Idempotency-Expiry-Seconds"} {
		if v := r.Header.Get(h); v != "" {
			meta[h] = v
		}
	}
	id, err := a.cfg.Submit(r.Context(), body, meta)
	var full interface{ RetryAfter() time.Duration }
	switch {
	case errors.As(err, &full):
		setRetryAfter(w, full.RetryAfter())
		writeProblem(w, r, http.StatusTooManyRequests, problem{Type: problems.Busy, Title: "Command queue full, retry later", Detail: err.Error()})
		return
	case err != nil:
		writeProblem(w, r, http.StatusServiceUnavailable, problem{Type: problems.Unavailable, Detail: err.Error()})
		return
	}
	// Under the bus's default missing-key policy the message id is the key;
	// an invalid key's rejection is found under its echoed form.
	key := command.EchoKey(meta["Idempotency-Key"])
	if key == "" {
		key = id
	}
	w.Header().Set("Location", "/results?idempotencyKey="+url.QueryEscape(key))
	writeJSON(w, http.StatusAccepted, map[string]string{"messageId": id})
}
