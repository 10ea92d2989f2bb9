package httpapi

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// Problem types for the errors clients act on.
const (
	typeValidation = "https://mqprobe.dev/problems/validation"
	typeKeyReused  = "https://mqprobe.dev/problems/idempotency-key-reused"
	typeInProgress = "https://mqprobe.dev/problems/in-progress"
	typeTarget     = "https://mqprobe.dev/problems/target"
	typeNotDecided = "https://mqprobe.dev/problems/unavailable"
	typeRateLimit  = "https://mqprobe.dev/problems/rate-limited"
	typeBusy       = "https://mqprobe.dev/problems/busy"
	// typeOutcomePending: the command ran, its outcome waits for the store.
	typeOutcomePending = "https://mqprobe.dev/problems/outcome-pending"
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
		out := a.cfg.Executor.Execute(ctx, command.Input{
			Body: body, Transport: command.TransportHTTP, Operation: op,
			IdempotencyKey: r.Header.Get("Idempotency-Key"),
			ExpirySeconds:  r.Header.Get("Idempotency-Expiry-Seconds"),
		})
		a.startReply(w)
		a.respond(w, r, out)
	}
}

func (a *api) respond(w http.ResponseWriter, r *http.Request, out executor.Outcome) {
	if out.Event != nil && out.Key != "" {
		w.Header().Set("Idempotency-Key", out.Key)
		// A replay answers for the request that gave the key.
		if out.Event.Data.KeyGenerated && !out.Replay {
			w.Header().Set("Idempotency-Key-Generated", "true")
		}
	}
	setExpiry(w, out.ExpiresAt)
	switch {
	case out.Replay:
		w.Header().Set("Idempotent-Replay", "true")
		writeRaw(w, out.HTTPStatus, out.Body)
	case out.Status == result.StatusCompleted || out.Status == result.StatusFailed:
		if !out.Ack && out.Status == result.StatusFailed {
			setRetryAfter(w, out.RetryAfter)
		}
		writeRaw(w, out.HTTPStatus, out.Body)
	case out.Status == result.StatusRejected:
		e := out.Event.Data.Error
		p := problem{Code: e.Code, Detail: e.Message, Errors: e.Problems, IdempotencyKey: out.Event.Data.IdempotencyKey}
		switch e.Code {
		case result.CodeKeyReused:
			p.Type, p.Title = typeKeyReused, "Idempotency key reused with different request"
		case result.CodeTargetNotFound, result.CodeTargetNotAllowed:
			p.Type = typeTarget
		default:
			p.Type = typeValidation
		}
		writeProblem(w, r, out.HTTPStatus, p)
	case out.Status == result.StatusInProgress:
		setRetryAfter(w, out.RetryAfter)
		writeProblem(w, r, out.HTTPStatus, problem{Type: typeInProgress, Title: "Request with this idempotency key is in progress",
			Code: codeInProgress, Detail: errText(out.Err) + ": retry after Retry-After for its result", IdempotencyKey: out.Key})
	case out.HTTPStatus == http.StatusTooManyRequests:
		setRetryAfter(w, out.RetryAfter)
		writeProblem(w, r, out.HTTPStatus, problem{Type: typeRateLimit, Title: "Target rate limit exceeded", Detail: errText(out.Err)})
	case out.Pending:
		setRetryAfter(w, out.RetryAfter)
		writeProblem(w, r, out.HTTPStatus, problem{Type: typeOutcomePending,
			Title: "Command executed; its outcome is known but not yet recorded, retry later", Detail: errText(out.Err),
			IdempotencyKey: out.Key})
	case out.Backpressure:
		setRetryAfter(w, out.RetryAfter)
		writeProblem(w, r, out.HTTPStatus, problem{Type: typeBusy, Title: "Too much work in progress: command not executed, retry later",
			Detail: errText(out.Err)})
	default:
		setRetryAfter(w, out.RetryAfter)
		writeProblem(w, r, out.HTTPStatus, problem{Type: typeNotDecided, Title: "Command not executed, retry later",
			Detail: errText(out.Err)})
	}
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
	limit := a.cfg.MaxBodyBytes
	if limit <= 0 {
		limit = 1 << 20
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		writeProblem(w, r, http.StatusBadRequest, problem{Type: typeValidation, Detail: "reading the body: " + err.Error()})
		return nil, err
	}
	if int64(len(body)) > limit {
		writeProblem(w, r, http.StatusRequestEntityTooLarge, problem{Type: typeValidation, Code: string(command.CodeTooLarge),
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
		writeProblem(w, r, http.StatusTooManyRequests, problem{Type: typeBusy, Title: "Command queue full, retry later", Detail: err.Error()})
		return
	case err != nil:
		writeProblem(w, r, http.StatusServiceUnavailable, problem{Type: typeNotDecided, Detail: err.Error()})
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
