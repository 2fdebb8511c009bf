package ratelimiter

import (
	"testing"
	"testing/synctest"
	"time"
)

// Both tests run in parallel, each in its own bubble, and both reach the double lock in refill once
// the burst is spent. A mutex wait is not durable: synctest sees no deadlock, fake time stops, and
// the tests hang until `go test -timeout` prints every goroutine (two bubbles in one dump).
func TestBurstThenRefuse(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := New(1, 3)
		for i := 0; i < 4; i++ {
			l.Allow()
		}
	})
}

func TestSteadyRate(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := New(2, 1)
		for i := 0; i < 3; i++ {
			if !l.Allow() {
				t.Errorf("event %d refused", i)
			}
			time.Sleep(500 * time.Millisecond)
		}
	})
}
