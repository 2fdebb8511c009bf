// Package ratelimiter is a token bucket refilled by elapsed time.
package ratelimiter

import (
	"sync"
	"time"
)

// Limiter allows Rate events per second, in bursts of up to Burst.
type Limiter struct {
	mu     sync.Mutex
	Rate   float64
	Burst  float64
	tokens float64
	last   time.Time
	events chan string
}

// New returns a full limiter whose decisions are reported on a channel drained by a logger.
func New(rate, burst float64) *Limiter {
	l := &Limiter{Rate: rate, Burst: burst, tokens: burst, last: time.Now(), events: make(chan string)}
	go l.log()
	return l
}

func (l *Limiter) log() {
	for e := range l.events { //stuck:log
		_ = e
	}
}

// Allow takes one token if there is one.
func (l *Limiter) Allow() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tokens < 1 {
		l.refill() // the bug: refill locks l.mu again
	}
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

func (l *Limiter) refill() {
	l.mu.Lock() //stuck:refill
	defer l.mu.Unlock()
	now := time.Now()
	l.tokens = min(l.Burst, l.tokens+now.Sub(l.last).Seconds()*l.Rate)
	l.last = now
}
