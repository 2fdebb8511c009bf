package jobs

import (
	"testing"
	"time"
)

func TestRetryIsPickedUp(t *testing.T) {
	q := NewQueue()
	got := make(chan Job)
	go func() {
		j, _ := q.Pop()
		got <- j
	}()
	time.Sleep(20 * time.Millisecond)
	q.PushFront(Job{ID: 7})
	if j := <-got; j.Retry != 1 {
		t.Fatal(j)
	}
}
