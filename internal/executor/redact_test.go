package executor

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// pasted is a password sent where a reference belongs; it holds a quote and
// a backslash, so its escaped forms differ at every level.
const pasted = `Hunter2-"pasted"\secret`

// asJSONString is s as a JSON string literal: one more level of escaping.
func asJSONString(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// depthWith is a DEPTH whose target carries auth.passwordRef ref, written
// as sent (ref is a JSON string literal or a bare value).
func depthWith(ref string) string {
	return `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1","auth":{"user":"app","passwordRef":` + ref + `}}}`
}

func sns(t *testing.T, message string) string {
	return `{"Type":"Notification","MessageId":"m-1","TopicArn":"arn:aws:sns:us-east-1:1:t","Message":` + asJSONString(t, message) + `}`
}

func sqs(t *testing.T, body string) string {
	return `{"MessageId":"q-1","Body":` + asJSONString(t, body) + `,"MessageAttributes":{}}`
}

func eventBridge(detail string) string {
	return `{"version":"0","id":"e-1","detail-type":"probe","source":"lab","detail":` + detail + `}`
}

// TestRedactBody: whatever wraps the command and however it is broken, a
// password-like member's value leaves nothing of the password behind, and
// every other byte is kept.
func TestRedactBody(t *testing.T) {
	secret := asJSONString(t, pasted)
	redacted := depthWith(`"<redacted>"`)
	tests := []struct{ name, body, want string }{
		{"raw command", depthWith(secret), redacted},
		{"SNS envelope: the command escaped in Message", sns(t, depthWith(secret)), sns(t, redacted)},
		{"EventBridge detail", eventBridge(depthWith(secret)), eventBridge(redacted)},
		{"SQS-shaped: the command in Body", sqs(t, depthWith(secret)), sqs(t, redacted)},
		{"SNS inside an SQS Body: escaped twice", sqs(t, sns(t, depthWith(secret))), sqs(t, sns(t, redacted))},
		{"escaped four times", sqs(t, sns(t, sqs(t, sns(t, depthWith(secret))))), sqs(t, sns(t, sqs(t, sns(t, redacted))))},
		{"EventBridge detail as a string", eventBridge(asJSONString(t, depthWith(secret))), eventBridge(asJSONString(t, redacted))},
		{"pretty-printed inside SNS", sns(t, "{\n  \"auth\": {\n    \"passwordRef\" :\n\t"+secret+"\n  }\n}"),
			sns(t, "{\n  \"auth\": {\n    \"passwordRef\" :\n\t\"<redacted>\"\n  }\n}")},
		{"any name holding password or keystore, any case", `{"ssl":{"KeyStoreRef":` + secret + `},"auth":{"PASSWORD":` + secret + `,"dbPassword":"x"}}`,
			`{"ssl":{"KeyStoreRef":"<redacted>"},"auth":{"PASSWORD":"<redacted>","dbPassword":"<redacted>"}}`},
		{"a password holding the word password", `{"passwordRef":"my-password-is-` + pasted[:7] + `","user":"app"}`,
			`{"passwordRef":"<redacted>","user":"app"}`},
		{"bare number", `{"auth":{"password":7734}}`, `{"auth":{"password":"<redacted>"}}`},
		{"bare text, escaped", sns(t, `{"auth":{"password":Hunter2}}`), sns(t, `{"auth":{"password":"<redacted>"}}`)},

		{"truncated in the value", depthWith(secret)[:len(depthWith(secret))-12], strings.TrimSuffix(redacted, `"}}}`)},
		{"truncated in the value inside SNS", sns(t, depthWith(secret))[:strings.Index(sns(t, depthWith(secret)), "pasted")],
			sns(t, redacted)[:strings.Index(sns(t, redacted), "<redacted>")] + "<redacted>"},
		{"truncated in an escape of the value", `{"passwordRef":"Hunter2-\`, `{"passwordRef":"<redacted>`},
		{"invalid JSON: missing commas", `{"target" {"auth" {"passwordRef": ` + secret + ` "user": "app"}}`,
			`{"target" {"auth" {"passwordRef": "<redacted>" "user": "app"}}`},
		{"invalid JSON inside SNS", sns(t, `{"auth":{"passwordRef":`+secret+`,}}}`), sns(t, `{"auth":{"passwordRef":"<redacted>",}}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secretParts := []string{"Hunter2", "pasted", "7734"}
			if !slices.ContainsFunc(secretParts, func(p string) bool { return strings.Contains(tt.body, p) }) {
				t.Fatalf("the case carries no password: %s", tt.body)
			}
			got := string(redactBody([]byte(tt.body)))
			for _, part := range secretParts {
				if strings.Contains(got, part) {
					t.Errorf("%q of the password survives:\n%s", part, got)
				}
			}
			if got != tt.want {
				t.Errorf("redactBody:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestRedactBodyKeepsReferences: references, null and members that only
// mention a password are not secrets, whatever wraps them.
func TestRedactBodyKeepsReferences(t *testing.T) {
	for _, body := range []string{
		depthWith(`"file:/srv/secrets/qm1"`),
		depthWith(`"env:MQ_PASSWORD"`),
		depthWith(`"secret://mqprobe/qm1#password"`),
		depthWith(`"file:\/srv\/secrets\/qm1"`),
		sns(t, depthWith(`"secret://mqprobe/qm1#password"`)),
		sqs(t, sns(t, depthWith(`"file:/srv/secrets/qm1"`))),
		depthWith(`"file:/srv/secrets/qm1`), // truncated, still a reference
		depthWith(`null`),
		`{"note":"passwordRef","tags":{"why":"passwordRef: rotate"}}`,
		`{"passwordRef"`,
		`{"passwordRef":`,
	} {
		if got := string(redactBody([]byte(body))); got != body {
			t.Errorf("redactBody changed what holds no secret:\n got %s\nwant %s", got, body)
		}
	}
}
