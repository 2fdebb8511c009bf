package aggregator

import (
	"testing"
	"time"

	"example.com/deadlocks/internal/leakcheck"
)

func TestCollectTwoSources(t *testing.T) {
	a := New("node-1", "node-2")
	if got := a.Collect(); len(got) != 2 {
		t.Fatal(got)
	}
}

func TestCollectInBackground(t *testing.T) {
	defer leakcheck.VerifyNone(t)
	a := New("node-3")
	done := make(chan struct{})
	go func() { a.Collect(); close(done) }()
	select {
	case <-done:
	case <-time.After(200 * time.Millisecond):
		t.Log("collect did not finish")
	}
}
