package handlers

import (
	"context"
	"time"

	"github.com/mqprobe/mqprobe/internal/pacing"
)

// pacer keeps PRODUCE's rateLimitPerSec on an absolute schedule (see
// pacing.Schedule): timer overshoot and slow puts do not add up into drift,
// and a stall shifts the schedule instead of causing a burst.
type pacer struct {
	schedule *pacing.Schedule // nil until the first put
	rate     int64            // puts per second; 0 means unpaced
	timer    *time.Timer
}

// newPacer paces to ratePerSec; nil or a value below 1 means no pacing.
func newPacer(ratePerSec *int) *pacer {
	p := &pacer{timer: pacing.NewTimer()}
	if ratePerSec != nil && *ratePerSec >= 1 {
		p.rate = int64(*ratePerSec)
	}
	return p
}

// wait blocks until the next put is due or ctx ends.
func (p *pacer) wait(ctx context.Context) error {
	if !p.paced() {
		if cancelled(ctx) {
			return withCause(ctx, ctx.Err())
		}
		return nil
	}
	now := time.Now()
	if p.schedule == nil {
		p.schedule = pacing.NewSchedule(p.rate, now)
	}
	if err := pacing.Wait(ctx, p.timer, p.schedule.Next(now), p.schedule.Spin()); err != nil {
		return withCause(ctx, err)
	}
	return nil
}

// paced reports whether there is a rate to keep.
func (p *pacer) paced() bool { return p.rate > 0 }
