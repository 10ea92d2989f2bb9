package command

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"
)

func FuzzDecode(f *testing.F) {
	seeds := []string{
		minimalProduce, minimalConsume, minimalDepth, minimalConnectionTest, minimalTest, minimalStopTest, minimalRedrive,
		`{"operationType":"PRODUCE","targetRef":"p","batch":{"count":1,"rateLimitPerSec":5},"payload":{"mode":"fixed","fixedBase64":"AA=="},` +
			`"mqProps":{"correlIdMode":"fixed","fixedCorrelIdBase64":"AQID"},"headers":{"a.b":"c"},"tags":{"t":"v"},"expirySeconds":10}`,
		`{"operationType":"CONSUME","targetRef":"p","selector":{"msgIdBase64":"AAAA"},"ack":"none","idempotencyKey":"k"}`,
		`{"Type":"Notification","MessageId":"m","Message":"{\"operationType\":\"DEPTH\",\"targetRef\":\"p\"}"}`,
		eventBridgeBody(minimalDepth),
		`{"operationType":"PRODUCE","batch":{"count":1e400}}`,
		`[]`, `null`, `{`, "",
	}
	for i, s := range seeds {
		f.Add([]byte(s), i%2 == 0, uint8(i), "", "", "msg-id")
	}
	f.Add([]byte(minimalDepth), false, uint8(2), "key\x00", "-1", "")
	d, err := NewDecoder(DecoderConfig{KeyExpression: "tags.k", MissingKey: MissingKeyConfig{Bus: MissingKeyDerive}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, overHTTP bool, opIndex uint8, key, expiry, msgID string) {
		in := Input{Body: body, Transport: TransportBus, IdempotencyKey: key, ExpirySeconds: expiry, MessageID: msgID}
		if overHTTP {
			in.Transport = TransportHTTP
			in.Operation = Operations[int(opIndex)%len(Operations)]
		}
		got, err := d.Decode(in)
		if err != nil {
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("internal error for %q: %v", body, err)
			}
			if len(verr.Problems) == 0 {
				t.Fatalf("rejection without problems: %v", verr)
			}
			return
		}
		if len(got.RequestHash) != 64 {
			t.Fatalf("RequestHash %q", got.RequestHash)
		}
		if _, err := hex.DecodeString(got.RequestHash); err != nil {
			t.Fatalf("RequestHash %q: %v", got.RequestHash, err)
		}
		if _, ok := keyProblem(got.IdempotencyKey); !ok {
			t.Fatalf("key %q breaks the key rule", got.IdempotencyKey)
		}
		// The typed command must itself be a valid command.
		typed, err := json.Marshal(got.Command)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Decode(Input{Body: typed, Transport: TransportHTTP, Operation: got.Command.OperationType}); err != nil {
			t.Fatalf("Command %s does not re-validate: %v", typed, err)
		}
	})
}

func BenchmarkDecodeProduce(b *testing.B) {
	d := newDecoder(b, DecoderConfig{})
	body := []byte(`{"operationType":"PRODUCE","idempotencyKey":"order-42",
		"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1","channel":"DEV.APP.SVRCONN","connName":"mq1(1414),mq2(1414)",
			"ssl":{"cipherSpec":"ANY_TLS12_OR_HIGHER","keyStoreRef":"secret://mq/ks"},"auth":{"user":"app","passwordRef":"env:MQ_PASSWORD"}},
		"tags":{"team":"payments","env":"dev"},
		"batch":{"count":1000,"messageSizeBytes":4096,"rateLimitPerSec":200},
		"payload":{"mode":"template","template":"order {{seq}} at {{timestamp}}"},
		"mqProps":{"persistence":"persistent","priority":5},
		"headers":{"app.source":"bench"}}`)
	in := Input{Body: body, Transport: TransportBus, MessageID: "m"}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := d.Decode(in); err != nil {
			b.Fatal(err)
		}
	}
}
