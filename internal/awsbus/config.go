package awsbus

import (
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/tracing"

	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// LoadConfig loads the AWS configuration the standard way (AWS_REGION, the
// credential chain, AWS_ENDPOINT_URL_SQS / _SNS / _DYNAMODB, AWS_CA_BUNDLE,
// shared config files), then makes the HTTP client send request bodies
// from memory.
//
// Why: against goaws, reading a ReceiveMessage response larger than 4 KiB
// occasionally failed with "use of closed network connection" when the
// request body was streamed, and the messages it carried stayed invisible
// for a whole visibility timeout. Bus requests are small (≤ 256 KiB), so
// buffering them costs nothing against real AWS.
func LoadConfig(ctx context.Context, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS config: %w", err)
	}
	// Wrapped only now: LoadDefaultConfig needs its own client to apply
	// AWS_CA_BUNDLE.
	cfg.HTTPClient = bufferedRequests{next: cfg.HTTPClient}
	return cfg, nil
}

// bufferedRequests reads each request body into memory before sending it,
// so it goes out with a known length in one piece and can be replayed.
type bufferedRequests struct {
	next aws.HTTPClient
}

// Do implements aws.HTTPClient.
func (c bufferedRequests) Do(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return c.next.Do(req)
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("buffer request body: %w", err)
	}
	req = req.Clone(req.Context())
	req.ContentLength = int64(len(body))
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return c.next.Do(req)
}

// clientOptions is what the SQS and SNS client options have in common.
type clientOptions interface{ sqs.Options | sns.Options }

// withTracing sets a client's tracer provider when there is one.
func withTracing[O clientOptions](tp tracing.TracerProvider) func(*O) {
	return func(o *O) {
		if tp == nil {
			return
		}
		switch o := any(o).(type) {
		case *sqs.Options:
			o.TracerProvider = tp
		case *sns.Options:
			o.TracerProvider = tp
		}
	}
}
