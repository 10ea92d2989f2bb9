package result

import (
	"context"
	"errors"
)

// Publisher sends result events to their destination.
type Publisher interface {
	Publish(ctx context.Context, e Event) error
}

// PublisherFunc adapts a function to Publisher.
type PublisherFunc func(ctx context.Context, e Event) error

// Publish calls f.
func (f PublisherFunc) Publish(ctx context.Context, e Event) error { return f(ctx, e) }

// Multi publishes to every publisher and fails if any fails.
type Multi []Publisher

// Publish implements Publisher.
func (m Multi) Publish(ctx context.Context, e Event) error {
	var errs []error
	for _, p := range m {
		errs = append(errs, p.Publish(ctx, e))
	}
	return errors.Join(errs...)
}
