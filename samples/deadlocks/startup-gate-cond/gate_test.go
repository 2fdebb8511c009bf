package gate

import (
	"testing"
	"time"

	"example.com/deadlocks/internal/leakcheck"
)

func TestBootAfterOpen(t *testing.T) {
	g := NewGate("db-ready")
	out := Boot(g, []string{"api", "worker", "cron"})
	time.Sleep(20 * time.Millisecond)
	g.Open()
	for i := 0; i < 3; i++ {
		t.Log(<-out)
	}
}

func TestBootLeaksWaiters(t *testing.T) {
	defer leakcheck.VerifyNone(t)
	g := NewGate("cache-warm")
	out := Boot(g, []string{"api", "worker"})
	time.Sleep(20 * time.Millisecond)
	g.Open()
	select {
	case s := <-out:
		t.Log(s)
	case <-time.After(200 * time.Millisecond):
		t.Log("components did not start")
	}
}
