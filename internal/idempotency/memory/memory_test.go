package memory_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
)

func TestConformanceMemory(t *testing.T) {
	storetest.Run(t, func(testing.TB) idempotency.Store { return memory.New() })
}

func BenchmarkStore(b *testing.B) {
	storetest.Benchmark(b, func(testing.TB) idempotency.Store { return memory.New() })
}
