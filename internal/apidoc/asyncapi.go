package apidoc

import (
	"encoding/json"
	"fmt"

	"github.com/mqprobe/mqprobe/internal/command"
)

// traceParentSchema is the W3C trace context header (version 00), the only
// form mqprobe continues; other values are ignored.
var traceParentSchema = map[string]any{
	"type":        "string",
	"pattern":     "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$",
	"description": "W3C trace context (traceparent). Commands: the process span continues it; other values are ignored. Results: the command's trace.",
}

// AsyncAPI builds the AsyncAPI 3.0 document of the command bus in aws mode:
// the command channel (an SQS queue fed directly, through SNS or by
// EventBridge), the result channel (an SNS topic or SQS queue) and
// mqprobe's two operations on them. The payloads are the command and
// result JSON Schemas of configs, as AsyncAPI Schema Objects.
func AsyncAPI(version string) ([]byte, error) {
	schemas, err := Schemas(command.Operations...)
	if err != nil {
		return nil, fmt.Errorf("asyncapi: %w", err)
	}
	for name, s := range schemas {
		if schemas[name], err = draft07(s, "#/components/schemas/"+name); err != nil {
			return nil, err
		}
	}
	extra, err := busSchemas(schemas)
	if err != nil {
		return nil, err
	}
	for name, s := range extra {
		if _, dup := schemas[name]; dup {
			return nil, fmt.Errorf("asyncapi: two schemas named %s", name)
		}
		schemas[name] = s
	}

	messages := map[string]any{}
	commandMessages := map[string]any{}
	var receiveMessages []any
	addCommandMessage := func(name string, m map[string]any) {
		messages[name] = m
		commandMessages[name] = map[string]any{"$ref": "#/components/messages/" + name}
		receiveMessages = append(receiveMessages, map[string]any{"$ref": "#/channels/commands/messages/" + name})
	}
	for _, op := range command.Operations {
		name := ComponentName(op)
		s := schemas[name].(map[string]any)
		addCommandMessage(name, map[string]any{
			"name":        string(op),
			"title":       s["title"],
			"summary":     s["description"],
			"description": "The command itself as the message body: sent to the queue directly, or through SNS with raw message delivery.",
			"headers":     SchemaRef("CommandAttributes"),
			"payload":     SchemaRef(name),
		})
	}
	addCommandMessage("SNSNotification", map[string]any{
		"name":        "SNSNotification",
		"title":       "Command in an SNS notification",
		"summary":     "A command published to an SNS topic the queue subscribes to, without raw message delivery.",
		"description": "The body is SNS's notification JSON: Message holds the command as a string, MessageAttributes carry Idempotency-Key, Idempotency-Expiry-Seconds and traceparent, and MessageId stands in for the key under the messageId missing-key policy (it is the same for SNS's own duplicate deliveries).",
		"payload":     SchemaRef("SNSNotification"),
	})
	addCommandMessage("EventBridgeEvent", map[string]any{
		"name":        "EventBridgeEvent",
		"title":       "Command in an EventBridge event",
		"summary":     "A command sent by an EventBridge rule or schedule with the queue as its target.",
		"description": "The body is the EventBridge event: detail holds the command, and the event id is its idempotency key when the command has none (unique per event and per scheduled invocation, stable across redeliveries).",
		"payload":     SchemaRef("EventBridgeEvent"),
	})
	messages["ResultEvent"] = map[string]any{
		"name":        "ResultEvent",
		"title":       "Result event",
		"summary":     "The outcome of one command, as a CloudEvents 1.0 structured-mode JSON event.",
		"description": "Published once for every command that is executed, replayed or rejected (type mqprobe.command.completed, .failed or .rejected), and every progressSeconds while a TEST runs (mqprobe.command.progress). Through an SNS topic subscribers receive it wrapped in a notification unless they enable raw message delivery.",
		"headers":     SchemaRef("ResultAttributes"),
		"payload":     SchemaRef("ResultEvent"),
		"correlationId": map[string]any{
			"description": "The idempotency key of the command the event reports on.",
			"location":    "$message.payload#/data/idempotencyKey",
		},
	}

	doc := map[string]any{
		"asyncapi": "3.0.0",
		"info": map[string]any{
			"title":   "mqprobe",
			"version": version,
			"description": "The command bus of mqprobe in aws mode. Commands arrive on an SQS queue, sent directly, through an SNS topic or by EventBridge; " +
				"each is executed against IBM MQ exactly once, claimed by a conditional write of an idempotency record keyed <operationType>#<idempotencyKey> before it touches MQ; " +
				"its outcome is published as a result event. Endpoints and region come from the AWS SDK's settings (AWS_REGION, AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL_SNS). " +
				"In embedded mode the same commands travel on an in-process bus fed by POST /commands (see the OpenAPI document).",
		},
		"defaultContentType": "application/json",
		"servers": map[string]any{
			"sqs": awsServer("sqs", "Amazon SQS: the command queue, or the results queue."),
			"sns": awsServer("sns", "Amazon SNS: the results topic."),
		},
		"channels": map[string]any{
			"commands": map[string]any{
				"address":     "{commandQueue}",
				"title":       "Command queue",
				"description": "The SQS queue mqprobe receives commands from. N instances may share it: each command still runs once.",
				"servers":     []any{map[string]any{"$ref": "#/servers/sqs"}},
				"parameters": map[string]any{"commandQueue": map[string]any{
					"description": "sqs.commandQueue: the queue's name or URL.",
				}},
				"messages": commandMessages,
			},
			"results": map[string]any{
				"address":     "{resultsDestination}",
				"title":       "Results",
				"description": "The SNS topic or SQS queue result events are published to; the message attributes serve SNS filter policies.",
				"servers":     []any{map[string]any{"$ref": "#/servers/sns"}, map[string]any{"$ref": "#/servers/sqs"}},
				"parameters": map[string]any{"resultsDestination": map[string]any{
					"description": "results.snsTopicArn (an SNS topic) or results.sqsQueue (an SQS queue, name or URL).",
				}},
				"messages": map[string]any{"ResultEvent": map[string]any{"$ref": "#/components/messages/ResultEvent"}},
			},
		},
		"operations": map[string]any{
			"receiveCommand": map[string]any{
				"action":  "receive",
				"channel": map[string]any{"$ref": "#/channels/commands"},
				"title":   "Receive a command",
				"summary": "Execute a command against IBM MQ exactly once.",
				"description": "The envelope (raw, SNS notification, EventBridge event) is unwrapped and the command validated against its operationType's schema. " +
					"The idempotency key is, first found: idempotencyKey in the command, the Idempotency-Key attribute, command.keyExpression, the EventBridge event id, then command.missingKey.bus (default messageId). " +
					"The message is deleted only once its result is published. A command in progress elsewhere, a transient failure or an unavailable store is redelivered after bus.nackDelay; " +
					"after the queue's maxReceiveCount SQS moves the message to its dead-letter queue. While a command runs its visibility is extended every third of sqs.visibilityTimeout.",
				"messages": receiveMessages,
			},
			"sendResult": map[string]any{
				"action":   "send",
				"channel":  map[string]any{"$ref": "#/channels/results"},
				"title":    "Publish a result",
				"summary":  "Publish the outcome of a command.",
				"messages": []any{map[string]any{"$ref": "#/channels/results/messages/ResultEvent"}},
			},
		},
		"components": map[string]any{
			"schemas":  schemas,
			"messages": messages,
		},
	}
	return json.MarshalIndent(doc, "", "  ")
}

func awsServer(service, description string) map[string]any {
	return map[string]any{
		"host":        service + ".{region}.amazonaws.com",
		"protocol":    service,
		"description": description + " AWS_ENDPOINT_URL_" + map[string]string{"sqs": "SQS", "sns": "SNS"}[service] + " replaces the host (local emulators).",
		"variables": map[string]any{"region": map[string]any{
			"description": "AWS_REGION.",
			"default":     "us-east-1",
		}},
	}
}

// busSchemas are the schemas of the bus beyond the command and result
// schemas: message attributes and envelopes. Enumerations are taken from
// the result event schema in schemas.
func busSchemas(schemas map[string]any) (map[string]any, error) {
	eventProps, err := properties(schemas, "ResultEvent")
	if err != nil {
		return nil, err
	}
	dataProps, err := properties(schemas, "ResultData")
	if err != nil {
		return nil, err
	}
	var commandRefs []any
	for _, op := range command.Operations {
		commandRefs = append(commandRefs, SchemaRef(ComponentName(op)))
	}
	snsAttribute := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"Type":  map[string]any{"type": "string"},
			"Value": map[string]any{"type": "string"},
		},
	}
	return map[string]any{
		"CommandAttributes": map[string]any{
			"title":       "Command message attributes",
			"description": "SQS message attributes (String or Number) mqprobe reads from a command message; names match in any case.",
			"type":        "object",
			"properties": map[string]any{
				"Idempotency-Key": map[string]any{
					"description": "The idempotency key, when the command carries no idempotencyKey.",
					"allOf":       []any{SchemaRef("idempotencyKey")},
				},
				"Idempotency-Expiry-Seconds": map[string]any{
					"description": "Lifetime in seconds of the command's idempotency record, as expirySeconds; clamped to idempotency.maxRecordTTL.",
					"type":        "string",
					"pattern":     "^[0-9]+$",
				},
				"traceparent": traceParentSchema,
			},
		},
		"ResultAttributes": map[string]any{
			"title":       "Result message attributes",
			"description": "String message attributes of every result message, for SNS filter policies and SQS consumers; an attribute whose value would be empty is left out.",
			"type":        "object",
			"properties": map[string]any{
				"type":           eventProps["type"],
				"operationType":  dataProps["operationType"],
				"status":         dataProps["status"],
				"idempotencyKey": map[string]any{"type": "string"},
				"traceparent":    traceParentSchema,
			},
		},
		"SNSNotification": map[string]any{
			"title":       "SNS notification",
			"description": "How SNS delivers a message to an SQS subscriber without raw message delivery.",
			"type":        "object",
			"required":    []any{"Type", "Message"},
			"properties": map[string]any{
				"Type":      map[string]any{"const": "Notification"},
				"MessageId": map[string]any{"type": "string", "description": "The key under the messageId missing-key policy."},
				"TopicArn":  map[string]any{"type": "string"},
				"Subject":   map[string]any{"type": "string"},
				"Message": map[string]any{
					"type":             "string",
					"contentMediaType": "application/json",
					"description":      "The command as a JSON string, valid against the schema of its operationType.",
				},
				"Timestamp": map[string]any{"type": "string", "format": "date-time"},
				"MessageAttributes": map[string]any{
					"description":          "The publisher's message attributes; mqprobe reads Idempotency-Key, Idempotency-Expiry-Seconds and traceparent as for a raw command.",
					"type":                 "object",
					"additionalProperties": snsAttribute,
				},
			},
		},
		"EventBridgeEvent": map[string]any{
			"title":       "EventBridge event",
			"description": "An EventBridge event whose detail is the command.",
			"type":        "object",
			"required":    []any{"version", "id", "detail-type", "source", "detail"},
			"properties": map[string]any{
				"version":     map[string]any{"type": "string"},
				"id":          map[string]any{"type": "string", "description": "The idempotency key when the command has none."},
				"detail-type": map[string]any{"type": "string"},
				"source":      map[string]any{"type": "string"},
				"account":     map[string]any{"type": "string"},
				"time":        map[string]any{"type": "string", "format": "date-time"},
				"region":      map[string]any{"type": "string"},
				"resources":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				"detail":      map[string]any{"description": "The command.", "oneOf": commandRefs},
			},
		},
	}, nil
}

func properties(schemas map[string]any, name string) (map[string]any, error) {
	s, _ := schemas[name].(map[string]any)
	props, ok := s["properties"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("asyncapi: schema %s has no properties", name)
	}
	return props, nil
}

// draft07 returns the JSON Schema 2020-12 schema s in the draft-07 form
// AsyncAPI Schema Objects follow, with the same meaning: a $ref with
// sibling keywords (ignored by draft-07) moves into allOf, and
// dependentRequired/dependentSchemas become dependencies. A keyword
// draft-07 lacks and that has no such rewriting is an error.
func draft07(s any, at string) (any, error) {
	schema, ok := s.(map[string]any)
	if !ok {
		return s, nil // true, false
	}
	out := make(map[string]any, len(schema))
	for k, v := range schema {
		var err error
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			out[k], err = draft07Map(v, at+"/"+k)
		case "items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames":
			out[k], err = draft07(v, at+"/"+k)
		case "allOf", "anyOf", "oneOf":
			out[k], err = draft07List(v, at+"/"+k)
		case "prefixItems", "unevaluatedProperties", "unevaluatedItems", "minContains", "maxContains",
			"contentSchema", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor":
			return nil, fmt.Errorf("asyncapi: %s/%s: JSON Schema draft-07 has no %s; express it another way", at, k, k)
		default:
			out[k] = v
		}
		if err != nil {
			return nil, err
		}
	}
	if ref, ok := out["$ref"]; ok && len(out) > 1 {
		delete(out, "$ref")
		allOf, _ := out["allOf"].([]any)
		out["allOf"] = append([]any{map[string]any{"$ref": ref}}, allOf...)
	}
	if err := mergeDependencies(out, at); err != nil {
		return nil, err
	}
	return out, nil
}

func draft07Map(v any, at string) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("asyncapi: %s: want an object of schemas", at)
	}
	out := make(map[string]any, len(m))
	for name, s := range m {
		var err error
		if out[name], err = draft07(s, at+"/"+name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func draft07List(v any, at string) (any, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("asyncapi: %s: want an array of schemas", at)
	}
	out := make([]any, len(list))
	for i, s := range list {
		var err error
		if out[i], err = draft07(s, fmt.Sprintf("%s/%d", at, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergeDependencies folds dependentRequired and dependentSchemas into
// draft-07's dependencies, which takes either form per property.
func mergeDependencies(schema map[string]any, at string) error {
	deps := map[string]any{}
	for _, k := range []string{"dependencies", "dependentRequired", "dependentSchemas"} {
		m, ok := schema[k].(map[string]any)
		if !ok {
			continue
		}
		for name, dep := range m {
			if _, dup := deps[name]; dup {
				return fmt.Errorf("asyncapi: %s: two dependencies of %s", at, name)
			}
			deps[name] = dep
		}
		delete(schema, k)
	}
	if len(deps) > 0 {
		schema["dependencies"] = deps
	}
	return nil
}
