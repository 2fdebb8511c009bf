package rpc

import (
	"testing"
	"time"

	"example.com/deadlocks/internal/leakcheck"
)

func TestCallTimesOut(t *testing.T) {
	defer leakcheck.VerifyNone(t)
	c := &Client{addr: "10.1.2.3:7000", latency: 60 * time.Millisecond}
	for i := 0; i < 2; i++ {
		if _, err := c.Call("Status.Get", 20*time.Millisecond); err != ErrTimeout {
			t.Fatal(err)
		}
	}
}

func TestSoakCalls(t *testing.T) {
	c := &Client{addr: "10.1.2.4:7000", latency: 50 * time.Millisecond}
	for i := 0; i < 3; i++ {
		c.Call("Health.Check", 5*time.Millisecond)
	}
	time.Sleep(time.Hour)
}
