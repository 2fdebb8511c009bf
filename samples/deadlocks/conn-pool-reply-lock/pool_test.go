package pool

import (
	"testing"
	"time"

	"example.com/deadlocks/internal/leakcheck"
)

func TestAcquireDials(t *testing.T) {
	p := NewPool(4)
	if c := p.Acquire(); c.ID != 1 {
		t.Fatal(c)
	}
}

func TestAcquireWithDeadline(t *testing.T) {
	defer leakcheck.VerifyNone(t)
	p := NewPool(2)
	got := make(chan *Conn, 1)
	go func() { got <- p.Acquire() }()
	select {
	case <-got:
	case <-time.After(200 * time.Millisecond):
		t.Log("acquire timed out")
	}
}
