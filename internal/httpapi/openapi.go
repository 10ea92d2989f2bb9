package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/apidoc"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/problems"
)

// commandRoutes are the synchronous command endpoints: path, operation,
// summary.
var commandRoutes = []struct {
	path    string
	op      command.Operation
	summary string
}{
	{"/messages/produce", command.Produce, "Put a batch of messages"},
	{"/messages/consume", command.Consume, "Get or browse a batch of messages"},
	{"/queue/depth", command.Depth, "Read a queue's depth and open counts"},
	{"/connections/test", command.ConnectionTest, "Connect and inquire the queue manager"},
	{"/messages/redrive", command.Redrive, "Move dead-lettered messages back to their queues"},
}

// successStatus is the status a completed op answers with.
func successStatus(op command.Operation) int {
	return problems.For(outcome.Completed, "", handlers.Describe(op).Creates).Status
}

// OpenAPI builds the OpenAPI 3.1 document of the HTTP API from the command
// and result JSON Schemas in configs, so the two cannot drift.
func OpenAPI(version string) ([]byte, error) {
	ops := []command.Operation{command.Test}
	for _, r := range commandRoutes {
		ops = append(ops, r.op)
	}
	schemas, err := apidoc.Schemas(ops...)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	if _, dup := schemas["Problem"]; dup {
		return nil, errors.New("openapi: two schemas named Problem")
	}
	schemas["Problem"] = problemSchema
	if _, dup := schemas["IdempotencyRecord"]; dup {
		return nil, errors.New("openapi: two schemas named IdempotencyRecord")
	}
	schemas["IdempotencyRecord"] = recordSchema

	paths := map[string]any{}
	for _, r := range commandRoutes {
		paths[r.path] = map[string]any{"post": commandOperation(apidoc.ComponentName(r.op), r.summary, successStatus(r.op))}
	}
	for path, op := range opsPaths() {
		paths[path] = op
	}
	for path, op := range queuePaths() {
		paths[path] = op
	}
	for path, op := range recordPaths() {
		paths[path] = op
	}
	paths["/commands/{operationType}/{key}"] = commandStatePath()
	// Every route answers 403 to a Host that does not name the daemon, and
	// every state-changing one to a browser's cross-origin request
	// (browser.go); every route but the health probes answers 401 without
	// the token (or the client certificate) the configuration asks for.
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			op := op.(map[string]any)
			responses := op["responses"].(map[string]any)
			refused := "The Host header names neither this daemon nor an http.allowedHosts entry (code HOST_NOT_ALLOWED), on a daemon without http.authToken."
			if method != "get" {
				refused += " Or a browser sent the request from a page of another origin (code CROSS_ORIGIN_REQUEST)."
			}
			if prev, ok := responses["403"].(map[string]any); ok {
				refused = prev["description"].(string) + " " + refused
			}
			responses["403"] = problemResponse(refused, nil)
			if strings.HasPrefix(path, "/health/") {
				op["security"] = []any{}
				continue
			}
			responses["401"] = problemResponse("http.authToken or http.tokens is set and the request carries no valid bearer token.", nil)
		}
	}
	doc := map[string]any{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"info": map[string]any{
			"title":       "mqprobe",
			"version":     version,
			"description": "Executes commands against IBM MQ exactly once. Every command is deduplicated by an idempotency record keyed <operationType>#<idempotencyKey>; a repeat replays the recorded result with Idempotent-Replay: true.",
		},
		"paths": paths,
		// Loopback binds may run without either; any other bind needs one.
		"security": []any{map[string]any{"bearerToken": []any{}}, map[string]any{"clientCertificate": []any{}}, map[string]any{}},
		"components": map[string]any{"schemas": schemas, "securitySchemes": map[string]any{
			"bearerToken": map[string]any{"type": "http", "scheme": "bearer",
				"description": "The value of http.authToken (MQPROBE_HTTP_AUTHTOKEN); required on every route but /health/* when set."},
			"clientCertificate": map[string]any{"type": "mutualTLS",
				"description": "A client certificate signed by http.tls.clientCAFile; required by the TLS handshake when that is set."},
		}},
	}
	return json.MarshalIndent(doc, "", "  ")
}

var problemSchema = map[string]any{
	"description": "RFC 9457 problem details.",
	"type":        "object",
	"required":    []any{"type", "title", "status"},
	"properties": map[string]any{
		"type":           map[string]any{"type": "string"},
		"title":          map[string]any{"type": "string"},
		"status":         map[string]any{"type": "integer"},
		"detail":         map[string]any{"type": "string"},
		"instance":       map[string]any{"type": "string"},
		"code":           map[string]any{"type": "string", "description": "MALFORMED_JSON, TOO_LARGE, SCHEMA_VIOLATION, UNKNOWN_OPERATION, INVALID_KEY, MISSING_KEY, KEY_CONFLICT, IDEMPOTENCY_KEY_REUSED, TARGET_NOT_FOUND, TARGET_NOT_ALLOWED, LIMIT_EXCEEDED; on 409s also IN_PROGRESS (the same command is running: retry after Retry-After), LEASE_ALIVE, RESUMABLE and RECORD_CHANGED (a refused eviction)"},
		"errors":         map[string]any{"type": "array", "items": ref("ResultProblem")},
		"idempotencyKey": map[string]any{"type": "string"},
		"committed":      map[string]any{"type": "integer", "minimum": 0, "description": "Type resumable: the committed messages the record's checkpoint holds."},
	},
}

func ref(name string) map[string]any { return apidoc.SchemaRef(name) }

func jsonContent(schema any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

func problemResponse(description string, headers map[string]any) map[string]any {
	r := map[string]any{"description": description,
		"content": map[string]any{"application/problem+json": map[string]any{"schema": ref("Problem")}}}
	if headers != nil {
		r["headers"] = headers
	}
	return r
}

var retryAfter = map[string]any{"Retry-After": map[string]any{
	"description": "Seconds to wait before retrying.", "schema": map[string]any{"type": "integer"}}}

// generatedHeader marks an answer whose request gave no key.
var generatedHeader = map[string]any{"Idempotency-Key-Generated": map[string]any{
	"description": "true when the request gave no Idempotency-Key and one was generated (the body says keyGenerated: true): " +
		"nothing dedupes the command, and the same request sent again without a key runs again.",
	"schema": map[string]any{"type": "string", "enum": []any{"true"}}}}

func commandOperation(component, summary string, success int) map[string]any {
	replayHeaders := map[string]any{
		"Idempotent-Replay": map[string]any{"description": "true when the body is the recorded result of an earlier execution.", "schema": map[string]any{"type": "string", "enum": []any{"true"}}},
		"Idempotency-Key":   map[string]any{"description": "The key the command was recorded under.", "schema": map[string]any{"type": "string"}},
	}
	maps.Copy(replayHeaders, generatedHeader)
	return map[string]any{
		"summary":     summary,
		"operationId": strings.TrimSuffix(strings.ToLower(component[:1])+component[1:], "Command"),
		"parameters": []any{
			map[string]any{"name": "Idempotency-Key", "in": "header", "required": false,
				"description": "Deduplicates the command (1-255 printable ASCII). Generated when absent (Idempotency-Key-Generated: true): then a retry without the key is a new command.",
				"schema":      map[string]any{"type": "string", "minLength": 1, "maxLength": 255}},
			map[string]any{"name": "Idempotency-Expiry-Seconds", "in": "header", "required": false,
				"description": "How long the record is kept, clamped to idempotency.maxRecordTTL.",
				"schema":      map[string]any{"type": "integer", "minimum": 1}},
		},
		"requestBody": map[string]any{"required": true, "content": jsonContent(ref(component))},
		"responses": map[string]any{
			fmt.Sprint(success): map[string]any{"description": "Executed, or replayed from the idempotency record.", "headers": withHeaders(replayHeaders, expiryHeaders), "content": jsonContent(ref("ResultData"))},
			"400":               problemResponse("Malformed JSON or an invalid idempotency key.", nil),
			"409":               problemResponse("The key was used for a different request (code IDEMPOTENCY_KEY_REUSED: use a new key, or evict the record), or the same request is still running (code IN_PROGRESS, Retry-After).", withHeaders(retryAfter, expiryHeaders)),
			"413":               problemResponse("The command exceeds 256 KiB.", nil),
			"422":               problemResponse("The command violates its schema, or names a target that is not allowed.", nil),
			"429":               problemResponse("The target is over its rate limit (targets.rateLimit); nothing was executed, retry after Retry-After.", retryAfter),
			"502":               map[string]any{"description": "The MQ work failed; the body carries the reason code (status FAILED).", "headers": withHeaders(retryAfter, expiryHeaders, generatedHeader), "content": jsonContent(ref("ResultData"))},
			"503":               problemResponse("Nothing was executed (idempotency store unavailable, shutting down; or busy: no room under limits.maxConcurrentCommands / limits.maxInFlightBytes, no free connection within mq.pool.maxWait); or (type outcome-pending) the command ran and its outcome is known but the idempotency store has not recorded it yet: the daemon retries until it does, a retry answers in progress until then and replays after. Retry after Retry-After.", retryAfter),
		},
	}
}

// testSeriesSchema documents a running test's series (handlers.TestPoint).
var testSeriesSchema = map[string]any{
	"type":        "array",
	"description": "While the run is IN_PROGRESS on the instance answering: a point every 0.5 s, of its last 10 minutes, oldest first. Absent from a finished run's result.",
	"items": map[string]any{
		"type":     "object",
		"required": []any{"n", "elapsedMs", "sent", "received", "lost", "ratePerSec"},
		"properties": map[string]any{
			"n":          map[string]any{"type": "integer", "minimum": 1, "description": "The point's number in the run, from 1."},
			"elapsedMs":  map[string]any{"type": "integer", "minimum": 0, "description": "Milliseconds since the first put."},
			"sent":       map[string]any{"type": "integer", "minimum": 0, "description": "Messages put so far."},
			"received":   map[string]any{"type": "integer", "minimum": 0, "description": "Messages back so far."},
			"lost":       map[string]any{"type": "integer", "minimum": 0, "description": "Messages counted lost so far."},
			"ratePerSec": map[string]any{"type": "number", "minimum": 0, "description": "Round trips completed per second since the previous point."},
			"p50Ms":      map[string]any{"type": "number", "description": "Median round trip since the previous point, in milliseconds; absent when none came back."},
			"p99Ms":      map[string]any{"type": "number", "description": "99th percentile round trip since the previous point, in milliseconds; absent when none came back."},
		},
	},
}

// testPlanSchema documents a running test's plan (handlers.TestPlan).
var testPlanSchema = map[string]any{
	"type":        "object",
	"description": "While the run is IN_PROGRESS on the instance answering: what it was asked to do.",
	"properties": map[string]any{
		"target":           map[string]any{"type": "string", "description": "QM:QUEUE the probes go to."},
		"replyQueue":       map[string]any{"type": "string"},
		"durationSeconds":  map[string]any{"type": "integer", "description": "How long it puts; absent when it puts a count."},
		"count":            map[string]any{"type": "integer", "description": "How many it puts; absent when it runs for a duration."},
		"rateLimitPerSec":  map[string]any{"type": "integer", "description": "Puts per second; absent: as fast as it goes."},
		"messageSizeBytes": map[string]any{"type": "integer"},
	},
}

func opsPaths() map[string]any {
	obj := map[string]any{"type": "object"}
	get := func(id, summary string, content any) map[string]any {
		return map[string]any{"get": map[string]any{"operationId": id, "summary": summary,
			"responses": map[string]any{"200": map[string]any{"description": "OK", "content": jsonContent(content)}}}}
	}
	results := get("listResults", "Recent result events of the caller's tenant, newest first (embedded mode).", map[string]any{
		"type": "object", "properties": map[string]any{"results": map[string]any{"type": "array", "items": ref("ResultEvent")}}})
	results["get"].(map[string]any)["parameters"] = []any{
		map[string]any{"name": "idempotencyKey", "in": "query", "schema": map[string]any{"type": "string"}},
		map[string]any{"name": "operationType", "in": "query", "schema": map[string]any{"type": "string"}},
		map[string]any{"name": "status", "in": "query", "schema": map[string]any{"type": "string", "enum": []any{"COMPLETED", "FAILED", "REJECTED", "IN_PROGRESS"}}},
		map[string]any{"name": "target", "in": "query", "description": "A data.target (QM1:DEV.QUEUE.1), or a queue manager (QM1) for every queue of it.",
			"schema": map[string]any{"type": "string"}},
		map[string]any{"name": "since", "in": "query", "description": "Only events at or after this time (RFC 3339).",
			"schema": map[string]any{"type": "string", "format": "date-time"}},
		map[string]any{"name": "until", "in": "query", "description": "Only events at or before this time (RFC 3339).",
			"schema": map[string]any{"type": "string", "format": "date-time"}},
		map[string]any{"name": "limit", "in": "query", "schema": map[string]any{"type": "integer", "minimum": 1, "maximum": 1000}},
	}
	results["get"].(map[string]any)["responses"].(map[string]any)["400"] = problemResponse("A parameter breaks its rule (the problem names it).", nil)
	results["get"].(map[string]any)["responses"].(map[string]any)["404"] = problemResponse("Not embedded mode: results leave through the results topic or queue only.", nil)
	ready := get("ready", "Ready: store reachable, router running, not draining.", obj)
	ready["get"].(map[string]any)["responses"].(map[string]any)["503"] = map[string]any{"description": "Not ready", "content": jsonContent(obj)}
	idParam := []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}}
	return map[string]any{
		"/tests": map[string]any{"post": map[string]any{
			"operationId": "startTest",
			"summary":     "Start a TEST probe run; the Idempotency-Key is its id.",
			"requestBody": map[string]any{"required": true, "content": jsonContent(ref("TestCommand"))},
			"responses": map[string]any{
				"202": map[string]any{"description": "Started; follow Location.", "headers": withHeaders(map[string]any{
					"Location": map[string]any{"schema": map[string]any{"type": "string"}}}, expiryHeaders, generatedHeader), "content": jsonContent(obj)},
				"200": map[string]any{"description": "The finished run with this id (replay).", "headers": expiryHeaders, "content": jsonContent(ref("ResultData"))},
				"422": problemResponse("The command violates its schema, or names a target that is not allowed.", nil),
				"429": problemResponse("Over tests.maxConcurrent or tests.maxDuration.", nil),
			},
		}},
		"/tests/{id}": map[string]any{"get": map[string]any{
			"operationId": "getTest", "summary": "A run's live statistics and latency series while it runs on this instance, else its result.",
			"parameters": append(slices.Clone(idParam), map[string]any{"name": "after", "in": "query",
				"description": "Only the series points numbered above this (the n of the last point the caller has), so that a chart polling the run fetches each point once.",
				"schema":      map[string]any{"type": "integer", "minimum": 0, "default": 0}}),
			"responses": map[string]any{"200": map[string]any{"description": "OK", "content": jsonContent(map[string]any{
				"allOf": []any{ref("ResultData"), map[string]any{"properties": map[string]any{"series": testSeriesSchema, "plan": testPlanSchema}}}})},
				"400": problemResponse("after is not a whole number of 0 or more, or a query parameter is unknown.", nil),
				"404": problemResponse("No such test.", nil)},
		}},
		"/tests/{id}/stop": map[string]any{"post": map[string]any{
			"operationId": "stopTest", "summary": "End a run early; in-flight messages are drained or counted lost.", "parameters": idParam,
			"responses": map[string]any{"202": map[string]any{"description": "Stopping.", "content": jsonContent(obj)},
				"404": problemResponse("Not running on this instance.", nil)},
		}},
		"/results":      results,
		"/health/live":  get("live", "The process is alive.", obj),
		"/health/ready": ready,
		"/status":       get("status", "Version, mode, uptime, backends, command counts by outcome since start (commands) and the caller's of the last hour (lastHour), the targets the caller may use (targets: the embedded queue managers, the profiles), the caller's commands executing on this instance (inFlight), and the caller's commands that ran here whose outcome the idempotency store has not recorded yet (pendingOutcomes).", obj),
		"/openapi.json": get("openapi", "This document.", obj),
		"/metrics": map[string]any{"get": map[string]any{"operationId": "metrics", "summary": "Prometheus metrics (text exposition format).",
			"responses": map[string]any{"200": map[string]any{"description": "OK",
				"content": map[string]any{"text/plain": map[string]any{"schema": map[string]any{"type": "string"}}}}}}},
		"/commands": map[string]any{"post": map[string]any{
			"operationId": "submitCommand",
			"summary":     "Put a raw command (any operation, any envelope) on the in-process bus; its result appears under /results.",
			"requestBody": map[string]any{"required": true, "content": jsonContent(obj)},
			"responses": map[string]any{
				"202": map[string]any{"description": "Accepted onto the bus.", "content": jsonContent(obj)},
				"403": problemResponse("The caller is a named tenant (http.tokens): bus commands run as the implicit tenant.", nil),
				"413": problemResponse("The body exceeds the limit.", nil),
				"429": problemResponse("limits.commandQueue submitted commands are queued or executing; retry after Retry-After.", retryAfter),
			},
		}},
	}
}
