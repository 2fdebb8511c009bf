// Package metrics: Snapshot holds a read lock and calls percentile, which read-locks again. A Record
// that arrives in between queues for the write lock, and RWMutex then blocks the second RLock.
package metrics

import (
	"sort"
	"sync"
	"time"
)

type Histogram struct {
	mu      sync.RWMutex
	samples []float64
}

func (h *Histogram) Record(v float64) {
	h.mu.Lock() //stuck:record
	h.samples = append(h.samples, v)
	h.mu.Unlock()
}

func (h *Histogram) percentile(p float64) float64 {
	h.mu.RLock() //stuck:percentile
	defer h.mu.RUnlock()
	if len(h.samples) == 0 {
		return 0
	}
	s := append([]float64(nil), h.samples...)
	sort.Float64s(s)
	return s[int(p*float64(len(s)-1))]
}

// Snapshot returns count, p50 and p99.
func (h *Histogram) Snapshot(between func()) (int, float64, float64) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := len(h.samples)
	between()
	return n, h.percentile(0.5), h.percentile(0.99)
}

// Writer is the background recorder; it starts a Record after delay.
func Writer(h *Histogram, delay time.Duration) {
	time.Sleep(delay)
	h.Record(1.5)
}
