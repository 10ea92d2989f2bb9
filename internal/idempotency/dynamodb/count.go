package dynamodb

import (
	"context"
	"maps"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// Counter counts the DynamoDB requests a client sends, by operation name
// ("PutItem", "GetItem", ...), retries included. Tests and benchmarks use it
// to hold the store to its round-trip budget:
//
//	client := dynamodb.NewFromConfig(cfg, counter.Register)
type Counter struct {
	mu  sync.Mutex
	ops map[string]int
}

// Register adds the counter to a client's options.
func (c *Counter) Register(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		// Last in the finalize step, after the retry loop: one count per
		// request sent.
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("mqprobeCountRequests",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				c.add(awsmiddleware.GetOperationName(ctx))
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	})
}

func (c *Counter) add(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ops == nil {
		c.ops = map[string]int{}
	}
	c.ops[op]++
}

// Snapshot returns the counts so far.
func (c *Counter) Snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.ops)
}

// Since returns the counts added after the snapshot before.
func (c *Counter) Since(before map[string]int) map[string]int {
	diff := map[string]int{}
	for op, n := range c.Snapshot() {
		if d := n - before[op]; d > 0 {
			diff[op] = d
		}
	}
	return diff
}
