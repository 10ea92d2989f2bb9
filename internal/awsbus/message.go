package awsbus

import (
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	wsqs "github.com/ThreeDotsLabs/watermill-aws/sqs"
)

// Metadata keys of received commands. Every String and Number message
// attribute is carried under its own name (notably Idempotency-Key,
// Idempotency-Expiry-Seconds and traceparent); these are added from the SQS
// message itself and win over attributes of the same name.
const (
	// MetaMessageID is the SQS message id.
	MetaMessageID = "MessageId"
	// MetaReceiveCount is SQS's ApproximateReceiveCount: 1 on the first
	// delivery. goaws v0.5.4 always reports 1.
	MetaReceiveCount = "ReceiveCount"
)

// MetaRetryAfter is the metadata key a handler sets, before nacking, to the
// delay in milliseconds (decimal integer) after which the message is to be
// delivered again. Without it the message reappears when its visibility
// timeout runs out.
const MetaRetryAfter = "mqprobe-retry-after"

// SetRetryAfter asks, on a message about to be nacked, for redelivery after d.
func SetRetryAfter(msg *message.Message, d time.Duration) {
	msg.Metadata.Set(MetaRetryAfter, strconv.FormatInt(d.Milliseconds(), 10))
}

// retryAfter reads MetaRetryAfter; ok is false when it is absent or invalid.
func retryAfter(meta message.Metadata) (d time.Duration, ok bool) {
	v := meta.Get(MetaRetryAfter)
	if v == "" {
		return 0, false
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms < 0 {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// metaReceipt carries the receipt handle from the unmarshaler to the
// subscriber, which removes it before the handler sees the message.
const metaReceipt = "mqprobe-sqs-receipt-handle"

// unmarshaler turns an SQS message into a watermill message: the body as
// received, attributes as metadata (watermill-aws's default), plus the SQS
// message id, the receive count and the receipt handle.
type unmarshaler struct{}

// Unmarshal implements watermill-aws's sqs.Unmarshaler.
func (unmarshaler) Unmarshal(m *types.Message) (*message.Message, error) {
	msg, err := wsqs.DefaultMarshalerUnmarshaler{}.Unmarshal(m)
	if err != nil {
		return nil, err
	}
	msg.Metadata.Set(MetaMessageID, aws.ToString(m.MessageId))
	msg.Metadata.Set(MetaReceiveCount, m.Attributes[string(types.MessageSystemAttributeNameApproximateReceiveCount)])
	msg.Metadata.Set(metaReceipt, aws.ToString(m.ReceiptHandle))
	// Only the handler decides on redelivery delays, not the sender.
	delete(msg.Metadata, MetaRetryAfter)
	return msg, nil
}
