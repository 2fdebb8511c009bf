// Package stream: emit sends every event without selecting on ctx.Done(); once the consumer stops on
// cancellation, emit blocks in its send forever and Run waits for it.
package stream

import (
	"context"
	"sync"
)

type Event struct {
	Seq  int
	Kind string
}

func emit(ctx context.Context, out chan<- Event, n int) {
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			return
		}
		out <- Event{Seq: i, Kind: "tick"} //stuck:emit
	}
	close(out)
}

// Run consumes events until handle says stop, then cancels and waits for the producer.
func Run(parent context.Context, handle func(Event) bool) int {
	ctx, cancel := context.WithCancel(parent)
	events := make(chan Event)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); emit(ctx, events, 1000) }()
	seen := 0
	for ev := range events {
		seen++
		if !handle(ev) {
			break
		}
	}
	cancel()
	wg.Wait() //stuck:run
	return seen
}
