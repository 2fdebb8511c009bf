// Package metrics flushes counters on tickers.
package metrics

import (
	"context"
	"runtime/pprof"
	"sync/atomic"
	"time"
)

// Registry holds the process counters.
type Registry struct {
	Requests atomic.Int64
	Flushes  atomic.Int64
	Samples  atomic.Int64
}

// Run starts the flush loop and the runtime sampler, labeled component=metrics.
func (r *Registry) Run(ctx context.Context) {
	pprof.Do(ctx, pprof.Labels("component", "metrics"), func(ctx context.Context) {
		go r.flushLoop(ctx, 10*time.Second)
		go r.sampleLoop(ctx, 15*time.Second)
	})
}

func (r *Registry) flushLoop(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			r.Flushes.Add(1)
		case <-ctx.Done():
			return
		}
	}
}

func (r *Registry) sampleLoop(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.Samples.Add(1)
		}
	}
}
