package metrics

import (
	"testing"
	"time"

	"example.com/deadlocks/internal/leakcheck"
)

func TestSnapshotWhileRecording(t *testing.T) {
	h := &Histogram{samples: []float64{1, 2, 3}}
	go Writer(h, 10*time.Millisecond)
	n, p50, _ := h.Snapshot(func() { time.Sleep(100 * time.Millisecond) })
	if n != 3 || p50 != 2 {
		t.Fatal(n, p50)
	}
}

func TestSnapshotLeaksReader(t *testing.T) {
	defer leakcheck.VerifyNone(t)
	h := &Histogram{samples: []float64{4, 5}}
	go Writer(h, 10*time.Millisecond)
	res := make(chan int, 1)
	go func() {
		n, _, _ := h.Snapshot(func() { time.Sleep(100 * time.Millisecond) })
		res <- n
	}()
	select {
	case <-res:
	case <-time.After(300 * time.Millisecond):
		t.Log("snapshot did not return within 300ms")
	}
}
