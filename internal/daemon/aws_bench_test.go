package daemon_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkSQSCommands: DEPTH commands per second end to end through goaws
// (SQS in, SQS results out) and dynalite (records), with 1 and 8 commands
// in flight: c senders each send a command and wait for its result.
func BenchmarkSQSCommands(b *testing.B) {
	for _, conc := range []int{1, 8} {
		b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
			env := newLocalAWS(b, 10)
			start(b, inAWSMode(env), func(s *setup) { s.cfg.SQS.MaxMessages = 8 })
			results := newResultQueue(b, env.results)
			body := `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			began := time.Now()
			for w := range conc {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
						key := fmt.Sprintf("bench-%d-%d-%d", conc, w, i)
						sendCommand(b, env.commands, body, map[string]string{"Idempotency-Key": key})
						results.wait(key, 1, 30*time.Second)
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "commands/s")
		})
	}
}
