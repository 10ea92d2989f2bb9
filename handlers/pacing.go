package handlers

import (
	"context"
	"sync/atomic"
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
	// ended is set when the context watch was given ends: an unpaced wait,
	// once per put, loads it rather than receiving from the context's done
	// channel, about a hundred instructions a put less.
	ended atomic.Bool
}

// newPacer paces to ratePerSec; nil or a value below 1 means no pacing.
func newPacer(ratePerSec *int) *pacer {
	p := &pacer{timer: pacing.NewTimer()}
	if ratePerSec != nil && *ratePerSec >= 1 {
		p.rate = int64(*ratePerSec)
	}
	return p
}

// watch has unpaced waits see ctx end; call the returned stop when the
// puts under ctx are done. A put may follow ctx's end by the moment the
// flag takes to be set.
func (p *pacer) watch(ctx context.Context) (stop func() bool) {
	p.ended.Store(ctx.Err() != nil)
	return context.AfterFunc(ctx, func() { p.ended.Store(true) })
}

// wait blocks until the next put is due or ctx (given to watch) ends.
func (p *pacer) wait(ctx context.Context) error {
	if !p.paced() {
		// The flag may be left over from an earlier attempt's context.
		if p.ended.Load() && ctx.Err() != nil {
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
