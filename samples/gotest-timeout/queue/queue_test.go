package queue

import "testing"

func TestSubmitOne(t *testing.T) {
	q := New(1)
	go q.Submit(func() int { return 42 })
	if got := <-q.Results; got != 42 {
		t.Fatalf("got %d", got)
	}
	q.Drain()
}

// TestDrainAfterBurst hangs: nobody reads Results, so the workers block on
// their send, and Drain waits for them forever. go test -timeout ends it.
func TestDrainAfterBurst(t *testing.T) {
	q := New(4)
	for i := 0; i < 4; i++ {
		i := i
		q.Submit(func() int { return i * i })
	}
	q.Drain()
}
